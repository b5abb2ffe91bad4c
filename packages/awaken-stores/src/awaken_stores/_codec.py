"""JSON encoding for stores: failures become ``SerializationError``.

Decoders are built once per target type and reused: ``msgspec.json.decode(data, type=…)``
rebuilds its type plan on every call for anything but a plain Struct (``list[Message]``, the
journal record union), which costs more than decoding a small value. msgspec decoders are
thread-safe, so the file and SQLite worker threads share them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

import msgspec
from awaken_contract.errors import SerializationError

T = TypeVar("T")

_decoders: dict[Any, msgspec.json.Decoder[Any]] = {}
_encoder = msgspec.json.Encoder()  # (the default encoder, as ``awaken_contract.codec``'s)


def encode(value: Any) -> bytes:
    """Compact JSON bytes of ``value``."""
    try:
        return _encoder.encode(value)
    except (TypeError, ValueError, OverflowError) as exc:
        raise SerializationError(str(exc)) from exc


def encode_many(values: Iterable[Any]) -> list[bytes]:
    """Compact JSON bytes of each of ``values`` (one ``SerializationError`` check for all)."""
    enc = _encoder.encode
    try:
        return [enc(value) for value in values]
    except (TypeError, ValueError, OverflowError) as exc:
        raise SerializationError(str(exc)) from exc


def encode_str(value: Any) -> str:
    """Compact JSON text of ``value``."""
    return encode(value).decode()


def decoder(type_: Any) -> msgspec.json.Decoder[Any]:
    """The shared decoder of ``type_`` (built on first use)."""
    found = _decoders.get(type_)
    if found is None:
        found = _decoders[type_] = msgspec.json.Decoder(type_)
    return found


def decode(data: bytes | str, type_: type[T] | Any) -> T:
    """Decode JSON into ``type_``."""
    try:
        result: T = decoder(type_).decode(data)
    except (msgspec.DecodeError, ValueError) as exc:
        raise SerializationError(str(exc)) from exc
    return result


def clone(value: T, type_: type[T] | Any) -> T:
    """An independent copy made through JSON, so only storable values pass."""
    copied: T = decode(encode(value), type_)
    return copied
