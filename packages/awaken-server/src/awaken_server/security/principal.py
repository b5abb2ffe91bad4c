"""Who a run acts for: the authenticated user, else the user id the request body names.

With ``user_api_keys`` configured (user id → API key), a request carrying one of those keys is
that user's: the guard records the user on the request scope (:func:`remember_user`) and
:func:`run_user_id` returns it — a body naming another user is refused (403). Requests with a
plain API key (a trusted backend) or without auth may name the user themselves: ``userId`` /
``user_id`` in the native and AI SDK bodies, ``forwardedProps.userId`` in AG-UI, message
``metadata.userId`` in A2A (see ``docs/state-and-plugins.md``). Ids follow the shared id rule.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.types import Scope

from awaken_server.errors import Forbidden
from awaken_server.wire import optional_id

__all__ = ["USER_FIELDS", "body_user_id", "remember_user", "run_user_id"]

USER_FIELDS = ("userId", "user_id")
"""Body fields naming the run's user."""
_STATE_KEY = "awaken.user_id"


def remember_user(scope: Scope, user_id: str | None) -> None:
    """Record the authenticated user of a request (the guard calls this after auth)."""
    if user_id is not None:
        scope.setdefault("state", {})[_STATE_KEY] = user_id


def authenticated_user(request: Request) -> str | None:
    """The user the request's API key belongs to, if any."""
    state = request.scope.get("state")
    user = state.get(_STATE_KEY) if isinstance(state, dict) else None
    return user if isinstance(user, str) else None


def body_user_id(data: Any, container: str | None = None) -> str | None:
    """The user id a JSON body names: ``userId``/``user_id`` at the top level, else inside
    the object field ``container`` (400 when not an id, 422 when not a string)."""
    if not isinstance(data, dict):
        return None
    found = optional_id(data, *USER_FIELDS)
    if found is None and container is not None and isinstance(data.get(container), dict):
        found = optional_id(data[container], *USER_FIELDS)
    return found


def run_user_id(request: Request, claimed: str | None) -> str | None:
    """The user a run started by ``request`` acts for: the authenticated user (403 when the
    body claims another), else ``claimed``."""
    user = authenticated_user(request)
    if user is None:
        return claimed
    if claimed is not None and claimed != user:
        raise Forbidden("userId does not match the authenticated user")
    return user
