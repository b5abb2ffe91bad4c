"""``RedactedString``: a secret (API key, bearer token) that never shows in a repr, log or error.

It *is* a ``str`` — code that sends it (``f"Bearer {key}"``, SDK clients) gets the real value —
but ``repr()`` (what pydantic model reprs, tracebacks, ``%r`` log lines and validation errors
show) prints ``'**********'``. Config models annotate secret fields with :data:`Secret`::

    class ProviderSpec(BaseModel):
        api_key: Secret | None = None

    repr(ProviderSpec(api_key="sk-live")).count("sk-live")  # -> 0
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, PlainSerializer

__all__ = ["MASK", "RedactedString", "Secret", "SecretMap"]

MASK = "**********"
"""What a secret looks like wherever it is displayed."""


class RedactedString(str):
    """A ``str`` whose ``repr`` is masked (the value itself is unchanged)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return repr(MASK)

    def reveal(self) -> str:
        """The value as a plain ``str`` (for code that must hand it on)."""
        return str.__str__(self)


def _redacted(value: Any) -> Any:
    return RedactedString(value) if isinstance(value, str) else value


def _redacted_map(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _redacted(v) for k, v in value.items()}
    return value


Secret = Annotated[str, AfterValidator(_redacted), PlainSerializer(str, return_type=str)]
"""A pydantic field type for one secret: validated as ``str``, held as :class:`RedactedString`,
serialized (to the config store) as the plain value."""

SecretMap = Annotated[
    dict[str, str],
    AfterValidator(_redacted_map),
    PlainSerializer(lambda m: {k: str(v) for k, v in m.items()}, return_type=dict[str, str]),
]
"""A ``dict[str, str]`` whose values are secrets (environment of an MCP server, headers)."""
