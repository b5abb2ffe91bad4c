"""Bearer-token protection: API keys for ``/v1`` routes and the admin token for config routes."""

from __future__ import annotations

import hmac
import os
from collections.abc import Iterable, Mapping

from awaken_server.errors import Unauthorized

__all__ = ["BearerAuth", "api_keys_from_env", "parse_bearer"]

API_KEYS_ENV = "AWAKEN_API_KEYS"
ADMIN_TOKEN_ENV = "AWAKEN_ADMIN_API_BEARER_TOKEN"


def api_keys_from_env(environ: dict[str, str] | None = None) -> list[str]:
    """Comma-separated ``AWAKEN_API_KEYS`` (trimmed, empties dropped)."""
    env = os.environ if environ is None else environ
    return [k.strip() for k in env.get(API_KEYS_ENV, "").split(",") if k.strip()]


def parse_bearer(header: bytes | None) -> str:
    """The token of an ``Authorization: Bearer <token>`` header, or raise :class:`Unauthorized`
    with the spec's message."""
    if header is None:
        raise Unauthorized("authentication required")
    try:
        value = header.decode("ascii")
    except UnicodeDecodeError:
        raise Unauthorized("invalid Authorization header") from None
    scheme, _, token = value.partition(" ")
    if scheme not in ("Bearer", "bearer") or not token.strip():
        raise Unauthorized("Authorization header must use Bearer authentication")
    return token.strip()


class BearerAuth:
    """Accepts any of ``tokens`` or of the ``users``' tokens (constant-time comparison); no
    tokens = open. ``users`` maps a user id to the token that authenticates as that user."""

    def __init__(
        self,
        tokens: Iterable[str],
        *,
        label: str = "API key",
        users: Mapping[str, str] | None = None,
    ) -> None:
        self.users = [(user, token) for user, token in (users or {}).items() if token]
        self.tokens = [t for t in tokens if t] + [token for _, token in self.users]
        self.label = label

    @property
    def enabled(self) -> bool:
        """True when at least one token is configured."""
        return bool(self.tokens)

    def check(self, header: bytes | None) -> str | None:
        """Raise :class:`Unauthorized` unless the header carries a configured token; the user
        id when it is a user's token."""
        if not self.tokens:
            return None
        if header is None:
            raise Unauthorized(
                "admin authentication required"
                if self.label == "admin bearer token"
                else "authentication required: send Authorization: Bearer <api key>"
            )
        token = parse_bearer(header).encode()
        matched = [hmac.compare_digest(token, t.encode()) for t in self.tokens]
        if not any(matched):
            raise Unauthorized(f"invalid {self.label}")
        users = [user for user, t in self.users if hmac.compare_digest(token, t.encode())]
        return users[0] if users else None
