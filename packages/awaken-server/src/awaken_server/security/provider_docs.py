"""What a provider document written through the config API may point the server at.

``api_key_env`` names the environment variable holding the key; without a limit, any key
holder could have the server send *any* variable (``AWAKEN_API_KEYS``, cloud credentials) as a
bearer token. Only names matching ``security.api_key_env_patterns`` are accepted, never
``AWAKEN_*``. A new or changed ``base_url`` (where that key is sent) needs the admin token.
"""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatchcase
from typing import Any

from awaken_server.errors import BadRequest, Forbidden

__all__ = ["check_provider_doc", "env_name_allowed"]


def env_name_allowed(name: str, patterns: Sequence[str]) -> bool:
    """True when ``api_key_env`` may name ``name``."""
    if name.upper().startswith("AWAKEN_"):
        return False
    return any(fnmatchcase(name, pattern) for pattern in patterns)


def check_provider_doc(
    doc: dict[str, Any], previous: Any, *, patterns: Sequence[str], is_admin: bool
) -> None:
    """Raise 400 for a forbidden ``api_key_env``, 403 for a ``base_url`` change by a non-admin."""
    env = doc.get("api_key_env")
    if env is not None and (not isinstance(env, str) or not env_name_allowed(env, patterns)):
        allowed = ", ".join(patterns) or "none"
        raise BadRequest(
            f"invalid payload: api_key_env may only name an allowed variable ({allowed}; "
            "never AWAKEN_*)"
        )
    before = previous.get("base_url") if isinstance(previous, dict) else None
    if doc.get("base_url") not in (None, before) and not is_admin:
        raise Forbidden("changing a provider's base_url requires the admin token")
