"""A tool's ``StateCommand`` as journal data (:class:`RecordedCommand`) and back.

A finished tool call is journaled with the command it returned, so a result answered from the
journal — on crash-safe resume and in deterministic replay — re-applies the same state effects
(key updates, scheduled actions, effects) as the original execution. Updates are encoded with
their key's JSON codec and decoded with the update type of the key class registered under
that name (the second type argument of ``StateKey[V, U]``).
"""

from __future__ import annotations

import logging
import typing
from typing import Any, TypeVar

from awaken_contract.contract.journal import RecordedCommand, RecordedOp
from awaken_contract.errors import KeyEncode, UnknownKey
from awaken_contract.state import AnyKey, StateCommand, StateKey, decode_value, encode_value

from awaken_runtime.state.store import StateStore

__all__ = ["decode_command", "encode_command", "update_type"]

_log = logging.getLogger(__name__)


def update_type(key: AnyKey) -> Any:
    """The update type ``U`` of ``key`` (``StateKey[V, U]``); ``Any`` when not concrete."""
    for klass in key.__mro__:
        for orig in getattr(klass, "__orig_bases__", ()):
            if typing.get_origin(orig) is StateKey:
                args = typing.get_args(orig)
                if len(args) > 1 and not isinstance(args[1], TypeVar):
                    return args[1]
                return Any
    return Any


def encode_command(command: StateCommand | None) -> RecordedCommand | None:
    """``command`` as journal data; ``None`` for no command, or one that cannot be encoded
    (logged: a recorded result then re-applies nothing)."""
    if command is None or command.is_empty:
        return None
    ops: list[RecordedOp] = []
    try:
        for key, name, update in command.patch.ops:
            if key is None:
                ops.append(RecordedOp(key=name, clear=True))
            else:
                ops.append(RecordedOp(key=name, update=encode_value(update, key=name)))
    except KeyEncode as exc:
        _log.warning(
            "tool state command not journaled (%s): a recorded result will not re-apply it", exc
        )
        return None
    return RecordedCommand(
        ops=ops, actions=list(command.scheduled_actions), effects=list(command.effects)
    )


def decode_command(recorded: RecordedCommand | None, store: StateStore) -> StateCommand | None:
    """The ``StateCommand`` of ``recorded`` over the keys registered in ``store`` (raises
    ``UnknownKey`` for a key the run no longer registers, ``KeyDecode`` for bad data)."""
    if recorded is None:
        return None
    command = StateCommand()
    for op in recorded.ops:
        if op.clear:
            command.patch.clear_extension(op.key)
            continue
        registration = store.registration(op.key)
        if registration is None:
            raise UnknownKey(op.key)
        key = registration.key
        command.update(key, decode_value(op.update, update_type(key), key=op.key))
    command.scheduled_actions.extend(recorded.actions)
    command.effects.extend(recorded.effects)
    return command
