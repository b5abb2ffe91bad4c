"""``StateError``: the state engine's errors (keys, revisions, plugins, handlers, phases)."""

from __future__ import annotations

from typing import Any

from awaken_contract.errors.base import AwakenError


class StateError(AwakenError):
    """Failures of the state engine (keys, commits, phases, handlers)."""


class RevisionConflict(StateError):
    def __init__(self, expected: int, actual: int) -> None:
        self.expected, self.actual = expected, actual
        super().__init__(f"revision conflict: expected {expected}, actual {actual}")


class MutationBaseRevisionMismatch(StateError):
    def __init__(self, left: int, right: int) -> None:
        self.left, self.right = left, right
        super().__init__(f"patch base revision mismatch: {left} vs {right}")


class PluginAlreadyInstalled(StateError):
    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"plugin already installed: {name}")


class PluginNotInstalled(StateError):
    def __init__(self, type_name: str) -> None:
        self.type_name = type_name
        super().__init__(f"plugin not installed: {type_name}")


class KeyAlreadyRegistered(StateError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"key already registered: {key}")


class UnknownKey(StateError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"unknown key: {key}")


class KeyDecode(StateError):
    def __init__(self, key: str, message: str) -> None:
        self.key, self.message = key, message
        super().__init__(f"failed to decode key {key}: {message}")


class KeyEncode(StateError):
    def __init__(self, key: str, message: str) -> None:
        self.key, self.message = key, message
        super().__init__(f"failed to encode key {key}: {message}")


class HandlerAlreadyRegistered(StateError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"scheduled action handler already registered: {key}")


class EffectHandlerAlreadyRegistered(StateError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"effect handler already registered: {key}")


class PhaseRunLoopExceeded(StateError):
    def __init__(self, phase: Any, max_rounds: int) -> None:
        self.phase, self.max_rounds = phase, max_rounds
        super().__init__(f"phase {phase} did not converge after {max_rounds} rounds")


class UnknownScheduledActionHandler(StateError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"no scheduled action handler registered for {key}")


class UnknownEffectHandler(StateError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"no effect handler registered for {key}")


class ParallelMergeConflict(StateError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"parallel merge conflict on exclusive key: {key}")


class ToolAlreadyRegistered(StateError):
    def __init__(self, tool_id: str) -> None:
        self.tool_id = tool_id
        super().__init__(f"tool already registered: {tool_id}")


class StateCancelled(StateError):
    def __init__(self) -> None:
        super().__init__("operation cancelled")


StateError.Cancelled = StateCancelled  # type: ignore[attr-defined]
