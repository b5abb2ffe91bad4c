"""JSON encoding/decoding helpers that turn msgspec failures into typed Awaken errors."""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

from awaken_contract.errors import DecodeError

T = TypeVar("T")

_encoder = msgspec.json.Encoder()


def encode_json(value: Any) -> bytes:
    """Encode any msgspec-supported value to compact JSON bytes."""
    return _encoder.encode(value)


def _type_name(type_: Any, name: str | None) -> str:
    return name or getattr(type_, "__name__", None) or str(type_)


def decode_json(data: bytes | str, type_: type[T] | Any, *, name: str | None = None) -> T:
    """Decode JSON into ``type_``; malformed input raises :class:`DecodeError`.

    ``name`` labels the expected type in the error (useful for unions).
    """
    try:
        return msgspec.json.decode(data, type=type_)
    except msgspec.DecodeError as exc:
        raise DecodeError(_type_name(type_, name), str(exc)) from None


def to_builtins(value: Any) -> Any:
    """Convert a msgspec structure into plain JSON-compatible Python values."""
    return msgspec.to_builtins(value)


def convert(value: Any, type_: type[T] | Any, *, name: str | None = None) -> T:
    """Convert plain Python values (e.g. parsed JSON) into ``type_``; failures raise DecodeError."""
    try:
        return msgspec.convert(value, type=type_)
    except msgspec.ValidationError as exc:
        raise DecodeError(_type_name(type_, name), str(exc)) from None


def is_unset(value: object) -> bool:
    """True for msgspec's ``UNSET`` sentinel.

    Wire structs use ``UNSET`` as the default of fields that must always be written (even as
    null) and replace it in ``__post_init__``; this helper keeps those checks type-clean.
    """
    return value is msgspec.UNSET
