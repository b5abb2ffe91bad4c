"""``McpServerConnectionConfig``: the contract's ``McpServerSpec`` with reconnects on by default.

The one MCP server model is :class:`awaken_contract.registry_spec.McpServerSpec` (fields,
validation, constructors, ``with_*`` helpers, back-off). A connection built in code differs only
by its default ``restart_policy``: automatic reconnects are on (5 attempts, 1 s doubling to 30 s),
where a managed spec keeps the spec's default (off) unless it says otherwise.
"""

from __future__ import annotations

from awaken_contract.registry_spec import McpRestartPolicy, McpServerSpec
from awaken_contract.registry_spec import McpTransport as McpTransport
from pydantic import Field

__all__ = [
    "McpServerConnectionConfig",
    "McpTransport",
    "McpTransportKind",
    "default_restart_policy",
]

McpTransportKind = McpTransport
"""The extension's former name for :class:`McpTransport` (same enum)."""


def default_restart_policy() -> McpRestartPolicy:
    """Automatic reconnect on: 5 attempts, 1 s doubling up to 30 s (1, 2, 4, 8, 16 s)."""
    return McpRestartPolicy(
        enabled=True, max_attempts=5, delay_ms=1000, backoff_multiplier=2.0, max_delay_ms=30_000
    )


class McpServerConnectionConfig(McpServerSpec):
    """One MCP server connection: an ``McpServerSpec`` whose reconnects default to on.

    ``restart_policy.enabled=False`` leaves reconnecting to
    :meth:`McpToolRegistryManager.reconnect`.
    """

    restart_policy: McpRestartPolicy = Field(default_factory=default_restart_policy)

    @classmethod
    def from_spec(cls, spec: McpServerSpec) -> McpServerConnectionConfig:
        """A connection for a managed ``McpServerSpec`` (its ``restart_policy`` is kept)."""
        return cls.model_validate(
            {**spec.model_dump(), "restart_policy": spec.restart_policy.model_copy()}
        )
