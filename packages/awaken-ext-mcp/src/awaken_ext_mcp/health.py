"""Per-server lifecycle states and health records of the MCP registry manager."""

from __future__ import annotations

import enum

import msgspec

__all__ = [
    "FAILURE_THRESHOLD",
    "McpPromptEntry",
    "McpRefreshHealth",
    "McpResourceEntry",
    "McpServerState",
]

FAILURE_THRESHOLD = 3
"""Consecutive tracked failures (per operation kind) that trigger a reconnect."""


class McpServerState(enum.StrEnum):
    """Where a server is in its lifecycle."""

    CONNECTING = "connecting"
    CONNECTED = "connected"
    RECONNECTING = "reconnecting"
    DISCONNECTED = "disconnected"
    DISABLING = "disabling"
    DISABLED = "disabled"
    PERMANENTLY_FAILED = "permanently_failed"

    @property
    def publishes_tools(self) -> bool:
        """Whether the server's last catalog is part of the registry snapshot."""
        return self not in (
            McpServerState.DISABLING,
            McpServerState.DISABLED,
            McpServerState.PERMANENTLY_FAILED,
        )


class McpRefreshHealth(msgspec.Struct, omit_defaults=True):
    """Health of one server; timestamps are unix milliseconds.

    ``consecutive_failures`` is the larger of the discovery and rpc failure budgets;
    ``reconnect_attempts`` counts failed reconnects since the last success.
    """

    state: McpServerState
    consecutive_failures: int = 0
    reconnect_attempts: int = 0
    reconnecting: bool = False
    permanently_failed: bool = False
    last_attempt_at: int | None = None
    last_success_at: int | None = None
    last_error: str | None = None


class McpPromptEntry(msgspec.Struct):
    """A prompt offered by a server (``prompt`` is the MCP prompt JSON)."""

    server: str
    prompt: dict[str, object]

    @property
    def name(self) -> str:
        """The prompt's name."""
        return str(self.prompt.get("name", ""))


class McpResourceEntry(msgspec.Struct):
    """A resource offered by a server (``resource`` is the MCP resource JSON)."""

    server: str
    resource: dict[str, object]

    @property
    def uri(self) -> str:
        """The resource's URI."""
        return str(self.resource.get("uri", ""))
