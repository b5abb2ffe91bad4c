"""Admin-only operations: config writes, agent previews, provider ``base_url`` changes.

- An admin token is configured → the request must carry it.
- Only API keys are configured → refused (an API key never grants admin rights).
- Nothing is configured (the quick start) → allowed only from a loopback client whose request
  carries no foreign ``Origin`` (a web page elsewhere cannot drive it through the browser).
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.requests import Request
from starlette.types import Scope

from awaken_server.auth import BearerAuth
from awaken_server.errors import Forbidden, Unauthorized
from awaken_server.security.hosts import HostPolicy, is_loopback_host, scope_port

__all__ = ["AdminGate", "admin_gate_of", "header_of"]

ADMIN_HINT = "set AWAKEN_ADMIN_API_BEARER_TOKEN (or server.admin_bearer_token)"


def header_of(scope: Scope, name: bytes) -> bytes | None:
    """The first header ``name`` (lower-case bytes) of ``scope``."""
    for key, value in scope.get("headers", []):
        if key == name:
            return bytes(value)
    return None


class AdminGate:
    """Decides whether a request may perform an admin-only operation."""

    def __init__(
        self,
        admin_auth: BearerAuth,
        api_auth: BearerAuth,
        hosts: HostPolicy,
        trusted_origins: Sequence[str],
    ) -> None:
        self.admin_auth = admin_auth
        self.api_auth = api_auth
        self.hosts = hosts
        self.trusted_origins = {o.rstrip("/") for o in trusted_origins}

    def is_admin(self, scope: Scope) -> bool:
        """True when the request carries the configured admin token."""
        if not self.admin_auth.enabled:
            return False
        try:
            self.admin_auth.check(header_of(scope, b"authorization"))
        except Unauthorized:
            return False
        return True

    def check(self, scope: Scope, what: str) -> None:
        """Raise 401/403 unless the request may do ``what`` (e.g. ``"config changes"``)."""
        if self.admin_auth.enabled:
            self.admin_auth.check(header_of(scope, b"authorization"))
            return
        if self.api_auth.enabled:
            raise Forbidden(f"{what} require the admin token: {ADMIN_HINT}")
        client = scope.get("client")
        if not client or not is_loopback_host(str(client[0])):
            raise Forbidden(f"{what} without an admin token are only accepted from loopback")
        origin = header_of(scope, b"origin")
        if origin is not None and not self._own_origin(origin, scope):
            raise Forbidden(f"{what} are not accepted from a foreign Origin")

    def _own_origin(self, raw: bytes, scope: Scope) -> bool:
        origin = raw.decode("latin-1").strip().rstrip("/")
        return origin in self.trusted_origins or self.hosts.allows_origin(origin, scope_port(scope))


def admin_gate_of(request: Request) -> AdminGate:
    """The :class:`AdminGate` of the app serving ``request`` (set by ``create_app``)."""
    gate: AdminGate = request.app.state.admin_gate
    return gate
