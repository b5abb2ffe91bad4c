"""``McpServerConnectionConfig``: how to reach one MCP server (stdio, Streamable HTTP or SSE)."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Any, Self

from awaken_contract.registry_spec import McpRestartPolicy, McpServerSpec
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = ["McpServerConnectionConfig", "McpTransportKind", "default_restart_policy"]


class McpTransportKind(enum.StrEnum):
    """Transport of a connection: a superset of the contract's ``McpTransport`` with ``sse``."""

    STDIO = "stdio"
    HTTP = "http"
    SSE = "sse"


def default_restart_policy() -> McpRestartPolicy:
    """Automatic reconnect on: 5 attempts, 1 s doubling up to 30 s (1, 2, 4, 8, 16 s)."""
    return McpRestartPolicy(
        enabled=True, max_attempts=5, delay_ms=1000, backoff_multiplier=2.0, max_delay_ms=30_000
    )


class McpServerConnectionConfig(BaseModel):
    """One MCP server connection.

    ``stdio`` spawns ``command args…`` (``env`` is added to the inherited environment, ``cwd``
    is the working directory); ``http`` (Streamable HTTP) and ``sse`` (legacy HTTP+SSE) connect
    to ``url`` sending ``headers`` with every request. ``timeout_secs`` bounds every request
    (clamped to ≥ 1). ``restart_policy`` drives automatic reconnects after the server dies
    (``enabled=False`` leaves reconnecting to :meth:`McpToolRegistryManager.reconnect`).
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    name: str
    transport: McpTransportKind
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    timeout_secs: int = 30
    restart_policy: McpRestartPolicy = Field(default_factory=default_restart_policy)

    @field_validator("name")
    @classmethod
    def _name_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("server name must be non-empty")
        return value.strip()

    @field_validator("timeout_secs")
    @classmethod
    def _clamp_timeout(cls, value: int) -> int:
        return max(value, 1)

    @model_validator(mode="after")
    def _transport_fields(self) -> Self:
        if self.transport is McpTransportKind.STDIO:
            if not (self.command or "").strip():
                raise ValueError("stdio transport requires a non-blank 'command'")
            self.command = (self.command or "").strip()
        else:
            url = (self.url or "").strip()
            if not url:
                raise ValueError(f"{self.transport.value} transport requires a non-blank 'url'")
            if not url.startswith(("http://", "https://")):
                raise ValueError(f"url must start with http:// or https://, got {url!r}")
            self.url = url
        return self

    # ------------------------------------------------------------------ constructors
    @classmethod
    def stdio(
        cls, name: str, command: str, args: list[str] | None = None, **options: Any
    ) -> McpServerConnectionConfig:
        """A server started as a subprocess speaking newline-delimited JSON-RPC on stdio."""
        return cls(
            name=name,
            transport=McpTransportKind.STDIO,
            command=command,
            args=list(args or []),
            **options,
        )

    @classmethod
    def http(cls, name: str, url: str, **options: Any) -> McpServerConnectionConfig:
        """A Streamable HTTP server."""
        return cls(name=name, transport=McpTransportKind.HTTP, url=url, **options)

    @classmethod
    def sse(cls, name: str, url: str, **options: Any) -> McpServerConnectionConfig:
        """A legacy HTTP+SSE server (``url`` is the SSE endpoint)."""
        return cls(name=name, transport=McpTransportKind.SSE, url=url, **options)

    @classmethod
    def from_spec(cls, spec: McpServerSpec) -> McpServerConnectionConfig:
        """Convert a managed ``McpServerSpec`` (config store namespace ``mcp-servers``)."""
        return cls(
            name=spec.id,
            transport=McpTransportKind(spec.transport.value),
            command=spec.command,
            args=list(spec.args),
            env=dict(spec.env),
            url=spec.url,
            timeout_secs=spec.timeout_secs,
            restart_policy=spec.restart_policy.model_copy(),
        )

    # ------------------------------------------------------------------ helpers
    def with_env(self, key: str, value: str) -> McpServerConnectionConfig:
        """Add an environment variable (stdio)."""
        return self.model_copy(update={"env": {**self.env, key: value}})

    def with_cwd(self, cwd: str | Path) -> McpServerConnectionConfig:
        """Set the working directory (stdio)."""
        return self.model_copy(update={"cwd": str(cwd)})

    def with_header(self, key: str, value: str) -> McpServerConnectionConfig:
        """Add an HTTP header (http / sse)."""
        return self.model_copy(update={"headers": {**self.headers, key: value}})

    def with_timeout(self, seconds: int) -> McpServerConnectionConfig:
        """Set the per-request timeout (clamped to ≥ 1 s)."""
        return self.model_copy(update={"timeout_secs": max(seconds, 1)})

    def with_restart_policy(self, policy: McpRestartPolicy) -> McpServerConnectionConfig:
        """Set the automatic reconnect policy."""
        return self.model_copy(update={"restart_policy": policy})

    def reconnect_delay(self, attempt: int) -> float:
        """Seconds to wait before reconnect ``attempt`` (0-based):
        ``delay_ms * backoff_multiplier**attempt`` capped at ``max_delay_ms``."""
        policy = self.restart_policy
        delay_ms = policy.delay_ms * policy.backoff_multiplier ** max(attempt, 0)
        return min(delay_ms, float(policy.max_delay_ms)) / 1000.0

    @property
    def max_reconnect_attempts(self) -> int:
        """Attempts before the server is marked permanently failed (default 5)."""
        attempts = self.restart_policy.max_attempts
        return 5 if attempts is None else attempts
