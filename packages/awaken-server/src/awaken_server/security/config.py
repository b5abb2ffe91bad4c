"""``SecurityConfig``: the ``server.security`` section (hosts, public URL, secrets, MCP, A2A)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["SecurityConfig"]


class SecurityConfig(BaseModel):
    """Who may reach the server and what the config API may point it at."""

    model_config = ConfigDict(extra="forbid")

    allowed_hosts: list[str] | None = None
    """Accepted ``Host`` headers: ``name`` (any port), ``name:port``, ``name:*`` or ``*``.
    ``None``: when bound to loopback, ``localhost``/``127.0.0.1``/``[::1]`` on the server's
    port; otherwise any host (set it when the server is reachable from other machines)."""
    public_url: str | None = None
    """Base URL clients use (``https://agents.example.com``) for agent cards; default: the
    address the connection arrived at. Never taken from ``Host`` / ``X-Forwarded-*``."""
    api_key_env_patterns: list[str] = Field(default_factory=lambda: ["*_API_KEY", "*_TOKEN"])
    """Environment variables a provider's ``api_key_env`` may name (shell globs); names
    starting with ``AWAKEN_`` are always refused."""
    mcp_session_idle_secs: float = Field(default=600.0, gt=0)
    """An MCP HTTP session without requests for this long is closed."""
    mcp_max_sessions: int = Field(default=1000, ge=1)
    """Most MCP HTTP sessions open at once; more → 503."""
    a2a_push_allowed_hosts: list[str] = Field(default_factory=list)
    """Hosts (names or IPs) A2A push notifications may target even when they resolve to a
    private, loopback or link-local address (refused by default)."""
