"""The payload side of scheduled actions and effects: phases, action/effect specs and their
queue records — what a :class:`~awaken_contract.state.StateCommand` carries.

Kept apart from :mod:`awaken_contract.model` (handlers, the engine's state keys), which
depends on ``state``, so that ``state`` can name these types without an import cycle. Import
them from :mod:`awaken_contract.model`, which re-exports every name.
"""

from __future__ import annotations

import enum
from typing import Any, ClassVar, Generic, TypeVar, cast

import msgspec

from awaken_contract.key_codec import _infer_type_arg, decode_value, encode_value

__all__ = [
    "DEFAULT_MAX_PHASE_ROUNDS",
    "EffectSpec",
    "FailedScheduledAction",
    "Phase",
    "ScheduledAction",
    "ScheduledActionEnvelope",
    "ScheduledActionSpec",
    "TypedEffect",
]

P = TypeVar("P")

#: Upper bound of EXECUTE rounds per phase before ``PhaseRunLoopExceeded``.
DEFAULT_MAX_PHASE_ROUNDS = 16


class Phase(enum.StrEnum):
    """The fixed points of a run where plugins act, in execution order.

    The book lists eight phases; ``TOOL_GATE`` (run by the tool pipeline before
    ``BEFORE_TOOL_EXECUTE``) is the ninth value of the wire enum.
    """

    RUN_START = "run_start"
    STEP_START = "step_start"
    BEFORE_INFERENCE = "before_inference"
    AFTER_INFERENCE = "after_inference"
    TOOL_GATE = "tool_gate"
    BEFORE_TOOL_EXECUTE = "before_tool_execute"
    AFTER_TOOL_EXECUTE = "after_tool_execute"
    STEP_END = "step_end"
    RUN_END = "run_end"

    @property
    def is_run_level(self) -> bool:
        """``RUN_START`` and ``RUN_END`` happen once per run; the others once per step."""
        return self is Phase.RUN_START or self is Phase.RUN_END


class ScheduledAction(msgspec.Struct):
    """A queued action: ``{"phase", "key", "payload"}`` (payload is JSON data)."""

    phase: Phase
    key: str
    payload: Any = None


class ScheduledActionEnvelope(msgspec.Struct):
    """A queued action with its engine-assigned id: ``{"id", "action"}``."""

    id: int
    action: ScheduledAction


class FailedScheduledAction(msgspec.Struct):
    """A dead-lettered action: ``{"id", "action", "error"}``."""

    id: int
    action: ScheduledAction
    error: str


class _PayloadSpec(Generic[P]):
    """What action and effect specs share: a ``KEY`` and a payload type (inferred from the
    spec's type parameter when not set) with its JSON codec."""

    KEY: ClassVar[str]
    payload_type: ClassVar[Any] = Any

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        spec = next(klass for klass in cls.__mro__ if _PayloadSpec in klass.__bases__)
        _infer_type_arg(cls, spec, "payload_type")

    @classmethod
    def encode_payload(cls, payload: P) -> Any:
        """Payload → JSON data (raises ``KeyEncode``)."""
        return encode_value(payload, key=cls.KEY)

    @classmethod
    def decode_payload(cls, data: Any) -> P:
        """JSON data → payload (raises ``KeyDecode``)."""
        return cast(P, decode_value(data, cls.payload_type, key=cls.KEY))


class ScheduledActionSpec(_PayloadSpec[P]):
    """Declares an action type. Subclass with the payload type as parameter::

    class Notify(ScheduledActionSpec[str]):
        KEY = "my_plugin.notify"
        PHASE = Phase.BEFORE_INFERENCE
    """

    PHASE: ClassVar[Phase]

    @classmethod
    def action(cls, payload: P) -> ScheduledAction:
        """The queue entry for ``payload``."""
        return ScheduledAction(cls.PHASE, cls.KEY, cls.encode_payload(payload))


class EffectSpec(_PayloadSpec[P]):
    """Declares an effect type (``KEY`` like ``"<plugin>.<effect>"``, payload type parameter)."""

    @classmethod
    def effect(cls, payload: P) -> TypedEffect:
        """The type-erased effect for ``payload``."""
        return TypedEffect(cls.KEY, cls.encode_payload(payload))


class TypedEffect(msgspec.Struct):
    """A type-erased effect: ``{"key", "payload"}``."""

    key: str
    payload: Any = None

    @classmethod
    def from_spec(cls, spec: type[EffectSpec[P]], payload: P) -> TypedEffect:
        """Serialize a typed payload of ``spec``."""
        return spec.effect(payload)

    def decode(self, spec: type[EffectSpec[P]]) -> P:
        """Deserialize the payload as ``spec``'s payload type."""
        return spec.decode_payload(self.payload)
