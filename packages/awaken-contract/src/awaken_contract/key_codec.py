"""The JSON codec of typed keys: what ``StateKey`` and ``ProfileKey`` share.

:class:`TypedKey` binds a key string to a value type and encodes/decodes values through
:func:`encode_value`/:func:`decode_value` (msgspec types, pydantic models, classes with
``to_json_value``/``from_json_value``); :class:`ProfileOwnerKind` says whose profile entry a
Profile-scoped key is.
"""

from __future__ import annotations

import contextlib
import enum
import types
import typing
from collections.abc import Callable
from typing import Any, ClassVar, Generic, TypeVar, cast

import msgspec
import pydantic

from awaken_contract.errors import KeyDecode, KeyEncode

__all__ = ["ProfileOwnerKind", "TypedKey", "decode_value", "default_of", "encode_value"]

V = TypeVar("V")


# --------------------------------------------------------------------------- JSON codec


def _enc_hook(value: Any) -> Any:
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json")
    to_json = getattr(value, "to_json_value", None)
    if to_json is not None:
        return to_json()
    raise TypeError(f"cannot encode value of type {type(value).__name__}")


def _custom_decoder(type_: Any) -> Callable[[Any], Any] | None:
    """The decoder of a pydantic model or a class with ``from_json_value``, else ``None``."""
    if isinstance(type_, type):
        if issubclass(type_, pydantic.BaseModel):
            return type_.model_validate
        from_json: Callable[[Any], Any] | None = getattr(type_, "from_json_value", None)
        return from_json
    return None


def _dec_hook(type_: Any, data: Any) -> Any:
    decoder = _custom_decoder(type_)
    if decoder is None:
        raise TypeError(f"cannot decode into {type_!r}")
    return decoder(data)


def encode_value(value: Any, *, key: str) -> Any:
    """Turn a value into plain JSON-compatible Python data.

    Supports everything msgspec encodes (builtins, ``msgspec.Struct``, enums, dataclasses),
    pydantic models, and classes defining ``to_json_value()``. Failures raise ``KeyEncode``.
    """
    try:
        if not isinstance(value, msgspec.Struct) and isinstance(value, pydantic.BaseModel):
            return value.model_dump(mode="json")  # (a Struct skips pydantic's ABC check)
        return msgspec.to_builtins(value, enc_hook=_enc_hook)
    except (TypeError, ValueError, OverflowError, pydantic.ValidationError) as exc:
        raise KeyEncode(key, str(exc)) from None


def decode_value(data: Any, type_: Any, *, key: str) -> Any:
    """Turn plain JSON-compatible data into ``type_``; failures raise ``KeyDecode``.

    Supports msgspec-convertible types, pydantic models, and classes defining a classmethod
    ``from_json_value(data)``.
    """
    if type_ is Any or type_ is object:
        return data
    try:
        decoder = _custom_decoder(type_)
        if decoder is not None:
            return decoder(data)
        return msgspec.convert(data, type_, dec_hook=_dec_hook)
    except (msgspec.ValidationError, pydantic.ValidationError, TypeError, ValueError) as exc:
        raise KeyDecode(key, str(exc)) from None


def _infer_type_arg(cls: type, base: type, attr: str, *, subclasses: bool = False) -> None:
    """Set ``cls.<attr>`` to the first type argument ``cls`` passed to ``base[...]`` (or, with
    ``subclasses``, to any generic subclass of ``base``), unless the class body sets ``attr``
    itself or no concrete argument was given."""
    if attr in cls.__dict__:
        return
    for klass in cls.__mro__:
        for orig in getattr(klass, "__orig_bases__", ()):
            origin = typing.get_origin(orig)
            if origin is base or (
                subclasses and isinstance(origin, type) and issubclass(origin, base)
            ):
                args = typing.get_args(orig)
                if args and not isinstance(args[0], TypeVar):
                    setattr(cls, attr, args[0])
                    return


_OPTIONAL: dict[Any, bool] = {}  # per value type: keys take their default on every commit


def _is_optional(type_: Any) -> bool:
    try:
        return _OPTIONAL[type_]
    except (KeyError, TypeError):  # not seen yet, or unhashable
        pass
    origin = typing.get_origin(type_)
    optional = (origin is typing.Union or origin is types.UnionType) and type(
        None
    ) in typing.get_args(type_)
    with contextlib.suppress(TypeError):  # unhashable: not cached
        _OPTIONAL[type_] = optional
    return optional


def default_of(type_: Any) -> Any:
    """The default value of a value type: ``None`` for optional types, else ``type_()``."""
    if type_ is None or type_ is Any or _is_optional(type_):
        return None
    return type_()


# --------------------------------------------------------------------------- keys


class ProfileOwnerKind(enum.StrEnum):
    """Whose profile entry a Profile-scoped key is (``PER`` of a ``StateKey``/``ProfileKey``).

    * ``AGENT`` — one value per agent, shared by all its users (the default).
    * ``USER`` — one value per user (the run's ``user_id``), shared by every agent.
    * ``AGENT_USER`` — one value per agent and user.
    """

    AGENT = "agent"
    USER = "user"
    AGENT_USER = "agent_user"


class TypedKey(Generic[V]):
    """A named value of one type with a JSON codec — what :class:`StateKey` and
    :class:`~awaken_contract.profile.ProfileKey` share.

    ``value_type`` (inferred from the first type parameter when not set) drives ``default()``
    and ``decode()``; ``PER`` says whose entry a Profile-scoped key is.
    """

    KEY: ClassVar[str]
    PER: ClassVar[ProfileOwnerKind] = ProfileOwnerKind.AGENT
    value_type: ClassVar[Any] = Any

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _infer_type_arg(cls, TypedKey, "value_type", subclasses=True)

    @classmethod
    def default(cls) -> V:
        """The value an absent key starts from."""
        type_ = cls.value_type
        try:  # a value type seen before: ``default_of`` without its two calls
            optional = _OPTIONAL[type_]
        except (KeyError, TypeError):
            value: V = default_of(type_)  # (no ``cast()``: a call per new key)
            return value
        made: V = None if optional else type_()  # type: ignore[assignment]
        return made

    @classmethod
    def encode(cls, value: V) -> Any:
        """Value → JSON-compatible data (raises ``KeyEncode``)."""
        return encode_value(value, key=cls.KEY)

    @classmethod
    def decode(cls, data: Any) -> V:
        """JSON-compatible data → value (raises ``KeyDecode``)."""
        return cast(V, decode_value(data, cls.value_type, key=cls.KEY))
