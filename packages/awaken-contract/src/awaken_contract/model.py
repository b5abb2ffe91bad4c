"""Phases, scheduled actions and effects: the typed side-effect vocabulary of the phase engine.

A :class:`ScheduledActionSpec` names an action (``KEY``), the phase whose EXECUTE stage runs it
(``PHASE``) and its payload type. Commands queue actions (``StateCommand.schedule_action``); the
phase engine hands each queued action to the handler registered for its key. An
:class:`EffectSpec` names a fire-and-forget effect dispatched after the command is committed.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, Generic, TypeVar, cast

import msgspec

from awaken_contract.key_codec import _infer_type_arg, decode_value, encode_value
from awaken_contract.state import KeyScope, MergeStrategy, Snapshot, StateCommand, StateKey

__all__ = [
    "DEFAULT_MAX_PHASE_ROUNDS",
    "EffectSpec",
    "FailedScheduledAction",
    "FailedScheduledActions",
    "PendingScheduledActions",
    "Phase",
    "PushScheduledAction",
    "RemoveScheduledAction",
    "ScheduledAction",
    "ScheduledActionEnvelope",
    "ScheduledActionHandler",
    "ScheduledActionSpec",
    "TypedEffect",
    "TypedEffectHandler",
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


# --------------------------------------------------------------------------- scheduled actions


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


class ScheduledActionHandler(ABC, Generic[P]):
    """Handles one action type during its phase's EXECUTE stage.

    Receives the decoded payload and a fresh snapshot; returns a command (which may schedule
    further actions — they cascade within the same phase). Raising dead-letters the action into
    ``FailedScheduledActions``; actions are never retried.
    """

    @abstractmethod
    async def handle(self, payload: P, snapshot: Snapshot) -> StateCommand:
        """Handle one queued action."""

    @staticmethod
    def of(
        handler: ScheduledActionHandler[P] | Callable[[P, Snapshot], Awaitable[StateCommand]],
    ) -> ScheduledActionHandler[P]:
        """``handler`` itself, or an ``async def (payload, snapshot)`` function wrapped."""
        if isinstance(handler, ScheduledActionHandler):
            return handler
        return _FnActionHandler(handler)


class _FnActionHandler(ScheduledActionHandler[P]):
    __slots__ = ("_fn",)

    def __init__(self, fn: Callable[[P, Snapshot], Awaitable[StateCommand]]) -> None:
        self._fn = fn

    async def handle(self, payload: P, snapshot: Snapshot) -> StateCommand:
        return await self._fn(payload, snapshot)


# --------------------------------------------------------------------------- effects


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


class TypedEffectHandler(ABC, Generic[P]):
    """Handles one effect type after the emitting command was committed.

    Sees the post-commit snapshot. Raising is logged and counted as failed; it never rolls
    back the commit nor stops other effects.
    """

    @abstractmethod
    async def handle_typed(self, payload: P, snapshot: Snapshot) -> None:
        """Handle one effect."""

    @staticmethod
    def of(
        handler: TypedEffectHandler[P] | Callable[[P, Snapshot], Awaitable[None]],
    ) -> TypedEffectHandler[P]:
        """``handler`` itself, or an ``async def (payload, snapshot)`` function wrapped."""
        if isinstance(handler, TypedEffectHandler):
            return handler
        return _FnEffectHandler(handler)


class _FnEffectHandler(TypedEffectHandler[P]):
    __slots__ = ("_fn",)

    def __init__(self, fn: Callable[[P, Snapshot], Awaitable[None]]) -> None:
        self._fn = fn

    async def handle_typed(self, payload: P, snapshot: Snapshot) -> None:
        await self._fn(payload, snapshot)


# --------------------------------------------------------------------------- built-in keys


class PushScheduledAction(msgspec.Struct, frozen=True):
    """Queue update: append an envelope."""

    envelope: ScheduledActionEnvelope


class RemoveScheduledAction(msgspec.Struct, frozen=True, gc=False):
    """Queue update: remove the envelope with this id."""

    id: int


class PendingScheduledActions(
    StateKey[list[ScheduledActionEnvelope], PushScheduledAction | RemoveScheduledAction]
):
    """The action queue (``__runtime.pending_scheduled_actions``)."""

    KEY = "__runtime.pending_scheduled_actions"
    MERGE = MergeStrategy.EXCLUSIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(
        cls,
        value: list[ScheduledActionEnvelope],
        update: PushScheduledAction | RemoveScheduledAction,
    ) -> list[ScheduledActionEnvelope]:
        if isinstance(update, PushScheduledAction):
            return [*value, update.envelope]
        return [e for e in value if e.id != update.id]


class FailedScheduledActions(StateKey[list[FailedScheduledAction], FailedScheduledAction]):
    """Dead-lettered actions (``__runtime.failed_scheduled_actions``); updates append."""

    KEY = "__runtime.failed_scheduled_actions"
    MERGE = MergeStrategy.EXCLUSIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(
        cls, value: list[FailedScheduledAction], update: FailedScheduledAction
    ) -> list[FailedScheduledAction]:
        return [*value, update]
