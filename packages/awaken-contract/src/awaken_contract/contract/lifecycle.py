"""Run lifecycle: statuses, why a run ended, and the stop-condition specs."""

from __future__ import annotations

import enum

import msgspec

from awaken_contract.errors import DecodeError


class RunStatus(enum.StrEnum):
    """Coarse status of a run."""

    CREATED = "created"
    RUNNING = "running"
    WAITING = "waiting"
    DONE = "done"

    @property
    def is_terminal(self) -> bool:
        """Only ``DONE`` is terminal."""
        return self is RunStatus.DONE

    def can_transition_to(self, target: RunStatus) -> bool:
        """Whether the lifecycle allows moving to ``target`` (self-transition always allowed)."""
        return target is self or target in _RUN_TRANSITIONS[self]


_RUN_TRANSITIONS: dict[RunStatus, frozenset[RunStatus]] = {
    RunStatus.CREATED: frozenset({RunStatus.RUNNING, RunStatus.DONE}),
    RunStatus.RUNNING: frozenset({RunStatus.WAITING, RunStatus.DONE}),
    RunStatus.WAITING: frozenset({RunStatus.RUNNING, RunStatus.DONE}),
    RunStatus.DONE: frozenset(),
}


class StoppedReason(msgspec.Struct, omit_defaults=True, gc=False):
    """Why a stop policy ended the run: a stable ``code`` and optional detail."""

    code: str
    detail: str | None = None


class TerminationKind(enum.StrEnum):
    """The kinds of :class:`TerminationReason`."""

    NATURAL_END = "natural_end"
    BEHAVIOR_REQUESTED = "behavior_requested"
    STOPPED = "stopped"
    CANCELLED = "cancelled"
    BLOCKED = "blocked"
    SUSPENDED = "suspended"
    ERROR = "error"


_VALUE_KINDS = {TerminationKind.STOPPED, TerminationKind.BLOCKED, TerminationKind.ERROR}


# Enum members read on the hot path, as module constants: on Python 3.11 every
# ``Enum.MEMBER`` lookup goes through ``EnumType.__getattr__``'s slow attribute hook.
_STOPPED = TerminationKind.STOPPED
_BLOCKED = TerminationKind.BLOCKED
_ERROR = TerminationKind.ERROR
_NATURAL_END = TerminationKind.NATURAL_END
_SUSPENDED = TerminationKind.SUSPENDED
_WAITING = RunStatus.WAITING
_DONE = RunStatus.DONE


class TerminationReason(msgspec.Struct, frozen=True, gc=False):
    """Why a run ended. JSON: ``{"type": kind}`` or ``{"type": kind, "value": payload}``.

    ``value`` is a :class:`StoppedReason` for ``stopped`` and a string for ``blocked``/``error``.
    Use the constructors: ``TerminationReason.natural_end()``, ``.stopped(code, detail)`` …
    """

    type: TerminationKind
    value: StoppedReason | str | msgspec.UnsetType = msgspec.UNSET

    def __post_init__(self) -> None:
        has_value = self.value is not msgspec.UNSET
        if self.type in _VALUE_KINDS and not has_value:
            raise DecodeError("TerminationReason", f"`{self.type}` requires a value")
        if self.type not in _VALUE_KINDS and has_value:
            raise DecodeError("TerminationReason", f"`{self.type}` takes no value")
        if self.type is _STOPPED and not isinstance(self.value, StoppedReason):
            raise DecodeError("TerminationReason", "`stopped` value must be {code, detail?}")
        if self.type in (_BLOCKED, _ERROR) and not isinstance(self.value, str):
            raise DecodeError("TerminationReason", f"`{self.type}` value must be a string")

    # ------------------------------------------------------------------ constructors
    @classmethod
    def natural_end(cls) -> TerminationReason:
        """The model finished without requesting tools."""
        return _PLAIN[_NATURAL_END]

    @classmethod
    def behavior_requested(cls) -> TerminationReason:
        """A plugin asked the run to end."""
        return _PLAIN[TerminationKind.BEHAVIOR_REQUESTED]

    @classmethod
    def stopped(cls, code: str, detail: str | None = None) -> TerminationReason:
        """A stop policy ended the run."""
        return cls(_STOPPED, StoppedReason(code=code, detail=detail))

    @classmethod
    def cancelled(cls) -> TerminationReason:
        """The run was cancelled."""
        return _PLAIN[TerminationKind.CANCELLED]

    @classmethod
    def blocked(cls, reason: str) -> TerminationReason:
        """A plugin blocked the run."""
        return cls(_BLOCKED, reason)

    @classmethod
    def suspended(cls) -> TerminationReason:
        """The run is parked waiting for decisions."""
        return _PLAIN[_SUSPENDED]

    @classmethod
    def error(cls, message: str) -> TerminationReason:
        """The run failed."""
        return cls(_ERROR, message)

    # ------------------------------------------------------------------ codec
    @property
    def stopped_reason(self) -> StoppedReason | None:
        """The stop detail for ``stopped`` terminations."""
        return self.value if isinstance(self.value, StoppedReason) else None

    @property
    def message(self) -> str | None:
        """The text payload of ``blocked``/``error`` terminations."""
        return self.value if isinstance(self.value, str) else None

    def to_run_status(self) -> tuple[RunStatus, str | None]:
        """The run status and ``done_reason`` string this termination maps to."""
        kind = self.type
        if kind is _SUSPENDED:
            return _WAITING, None
        if kind is _NATURAL_END:
            return _DONE, "natural"
        if kind is _BLOCKED:
            return _DONE, f"blocked:{self.value}"
        if kind is _STOPPED:
            assert isinstance(self.value, StoppedReason)
            return _DONE, f"stopped:{self.value.code}"
        return _DONE, kind.value

    @classmethod
    def from_done_reason(cls, reason: str) -> TerminationReason:
        """Inverse of :meth:`to_run_status`'s done reason (lossy for details)."""
        if reason == "natural":
            return cls.natural_end()
        if reason == "behavior_requested":
            return cls.behavior_requested()
        if reason == "cancelled":
            return cls.cancelled()
        for prefix, make in (("blocked:", cls.blocked), ("error:", cls.error)):
            if reason.startswith(prefix):
                return make(reason[len(prefix) :])
        if reason.startswith("stopped:"):
            return cls.stopped(reason[len("stopped:") :])
        return cls.error(reason)


#: The valueless reasons, built (and validated) once: a frozen struct is shared safely.
_PLAIN = {kind: TerminationReason(kind) for kind in TerminationKind if kind not in _VALUE_KINDS}


class StopConditionSpec(msgspec.Struct, tag_field="type", frozen=True, gc=False):
    """Declarative stop condition (tagged by ``"type"``). 0 disables a limit."""


class MaxRounds(StopConditionSpec, tag="max_rounds", frozen=True, gc=False):
    """Stop after ``rounds`` inference rounds."""

    rounds: int


class Timeout(StopConditionSpec, tag="timeout", frozen=True, gc=False):
    """Stop after ``seconds`` of wall time."""

    seconds: int


class TokenBudget(StopConditionSpec, tag="token_budget", frozen=True, gc=False):
    """Stop once total tokens reach ``max_total``."""

    max_total: int


class MaxCost(StopConditionSpec, tag="max_cost", frozen=True, gc=False):
    """Stop once the run's inferences cost more than ``max_total`` (the model's currency
    units, usually USD; needs prices on the ``ModelSpec``)."""

    max_total: float


class ConsecutiveErrors(StopConditionSpec, tag="consecutive_errors", frozen=True, gc=False):
    """Stop after ``max`` consecutive rounds whose tool calls all failed."""

    max: int


class StopOnTool(StopConditionSpec, tag="stop_on_tool", frozen=True, gc=False):
    """Stop after the named tool was called."""

    tool_name: str


class ContentMatch(StopConditionSpec, tag="content_match", frozen=True, gc=False):
    """Stop when the model's text matches ``pattern`` (a Python regex)."""

    pattern: str


class LoopDetection(StopConditionSpec, tag="loop_detection", frozen=True, gc=False):
    """Stop when the same tool-call round repeats within ``window`` rounds."""

    window: int


AnyStopConditionSpec = (
    MaxRounds
    | Timeout
    | TokenBudget
    | MaxCost
    | ConsecutiveErrors
    | StopOnTool
    | ContentMatch
    | LoopDetection
)
