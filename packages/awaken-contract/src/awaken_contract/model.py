"""Phases, scheduled actions and effects: the typed side-effect vocabulary of the phase engine.

A :class:`ScheduledActionSpec` names an action (``KEY``), the phase whose EXECUTE stage runs it
(``PHASE``) and its payload type. Commands queue actions (``StateCommand.schedule_action``); the
phase engine hands each queued action to the handler registered for its key. An
:class:`EffectSpec` names a fire-and-forget effect dispatched after the command is committed.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

import msgspec

from awaken_contract.action_spec import (
    DEFAULT_MAX_PHASE_ROUNDS,
    EffectSpec,
    FailedScheduledAction,
    Phase,
    ScheduledAction,
    ScheduledActionEnvelope,
    ScheduledActionSpec,
    TypedEffect,
)
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


# --------------------------------------------------------------------------- scheduled actions


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
