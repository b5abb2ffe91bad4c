"""The MCP extension's error type."""

from __future__ import annotations

from awaken_contract.errors import AwakenError

__all__ = ["McpError"]


class McpError(AwakenError):
    """A failure of the MCP registry manager (configuration, discovery, lifecycle)."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)
