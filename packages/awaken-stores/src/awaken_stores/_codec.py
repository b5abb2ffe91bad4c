"""JSON encoding for stores: failures become ``SerializationError``."""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec
from awaken_contract.codec import encode_json
from awaken_contract.errors import SerializationError

T = TypeVar("T")


def encode(value: Any) -> bytes:
    """Compact JSON bytes of ``value``."""
    try:
        return encode_json(value)
    except (TypeError, ValueError, OverflowError) as exc:
        raise SerializationError(str(exc)) from exc


def encode_str(value: Any) -> str:
    """Compact JSON text of ``value``."""
    return encode(value).decode()


def decode(data: bytes | str, type_: type[T] | Any) -> T:
    """Decode JSON into ``type_``."""
    try:
        result: T = msgspec.json.decode(data, type=type_)
    except (msgspec.DecodeError, ValueError) as exc:
        raise SerializationError(str(exc)) from exc
    return result


def clone(value: T, type_: type[T] | Any) -> T:
    """An independent copy made through JSON, so only storable values pass."""
    copied: T = decode(encode(value), type_)
    return copied
