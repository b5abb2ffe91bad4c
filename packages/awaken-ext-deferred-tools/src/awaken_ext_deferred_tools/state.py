"""Deferred-tools state: the registry, the modes, usage statistics and DiscBeta entries.

All four keys are run scoped, persisted at checkpoints and commutative; every reducer returns
a new value (updates are tagged msgspec structs, so they round-trip through JSON).
"""

from __future__ import annotations

import msgspec
from awaken_contract.contract.tool import ToolDescriptor
from awaken_contract.state import KeyScope, MergeStrategy, StateKey

from awaken_ext_deferred_tools.config import ToolLoadMode
from awaken_ext_deferred_tools.disc_beta import DiscBetaEntry, observe

__all__ = [
    "Defer",
    "DeferralRegistry",
    "DeferralRegistryKey",
    "DeferralState",
    "DeferralStateKey",
    "DeferralUpdate",
    "DiscBetaKey",
    "DiscBetaState",
    "DiscBetaUpdate",
    "IncrementTurn",
    "InitBatch",
    "ObserveTurn",
    "Promote",
    "PromoteBatch",
    "RecordCall",
    "RecordTurnCalls",
    "Register",
    "RegisterBatch",
    "RegistryUpdate",
    "Remove",
    "SetBatch",
    "SetPriors",
    "StoredToolDescriptor",
    "ToolUsage",
    "UsageStats",
    "UsageStatsKey",
    "UsageUpdate",
]

# --------------------------------------------------------------------------- registry


class StoredToolDescriptor(msgspec.Struct, frozen=True, omit_defaults=True):
    """What the registry keeps of a deferred tool: ``{id, name, description, parameters,
    category?}``."""

    id: str
    name: str
    description: str
    parameters: dict[str, object] = msgspec.field(default_factory=dict)
    category: str | None = None

    @classmethod
    def of(cls, descriptor: ToolDescriptor) -> StoredToolDescriptor:
        """The stored form of a tool descriptor."""
        return cls(
            descriptor.id,
            descriptor.name,
            descriptor.description,
            dict(descriptor.parameters),
            descriptor.category,
        )


class DeferralRegistry(msgspec.Struct, frozen=True):
    """Value of ``deferred_tools.registry``: the tools ToolSearch can find."""

    tools: dict[str, StoredToolDescriptor] = msgspec.field(default_factory=dict)


class Register(msgspec.Struct, frozen=True, tag="register", tag_field="type"):
    """Add or replace one tool."""

    descriptor: StoredToolDescriptor


class RegisterBatch(msgspec.Struct, frozen=True, tag="register_batch", tag_field="type"):
    """Add or replace several tools."""

    descriptors: list[StoredToolDescriptor]


class Remove(msgspec.Struct, frozen=True, tag="remove", tag_field="type"):
    """Drop one tool (missing is fine)."""

    tool_id: str


RegistryUpdate = Register | RegisterBatch | Remove


class DeferralRegistryKey(StateKey[DeferralRegistry, RegistryUpdate]):
    """``deferred_tools.registry``."""

    KEY = "deferred_tools.registry"
    MERGE = MergeStrategy.COMMUTATIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(cls, value: DeferralRegistry, update: RegistryUpdate) -> DeferralRegistry:
        tools = dict(value.tools)
        if isinstance(update, Register):
            tools[update.descriptor.id] = update.descriptor
        elif isinstance(update, RegisterBatch):
            tools.update((d.id, d) for d in update.descriptors)
        else:
            tools.pop(update.tool_id, None)
        return DeferralRegistry(tools)


# --------------------------------------------------------------------------- modes


class DeferralState(msgspec.Struct, frozen=True):
    """Value of ``deferred_tools.state``: the current mode of every classified tool."""

    modes: dict[str, ToolLoadMode] = msgspec.field(default_factory=dict)

    def deferred_ids(self) -> list[str]:
        """Ids currently deferred, sorted."""
        return sorted(i for i, m in self.modes.items() if m is ToolLoadMode.DEFERRED)


class Defer(msgspec.Struct, frozen=True, tag="defer", tag_field="type"):
    """Set one tool deferred."""

    tool_id: str


class Promote(msgspec.Struct, frozen=True, tag="promote", tag_field="type"):
    """Set one tool eager."""

    tool_id: str


class PromoteBatch(msgspec.Struct, frozen=True, tag="promote_batch", tag_field="type"):
    """Set several tools eager."""

    tool_ids: list[str]


class SetBatch(msgspec.Struct, frozen=True, tag="set_batch", tag_field="type"):
    """Set the mode of several tools."""

    modes: list[tuple[str, ToolLoadMode]]


DeferralUpdate = Defer | Promote | PromoteBatch | SetBatch


class DeferralStateKey(StateKey[DeferralState, DeferralUpdate]):
    """``deferred_tools.state``."""

    KEY = "deferred_tools.state"
    MERGE = MergeStrategy.COMMUTATIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(cls, value: DeferralState, update: DeferralUpdate) -> DeferralState:
        modes = dict(value.modes)
        if isinstance(update, Defer):
            modes[update.tool_id] = ToolLoadMode.DEFERRED
        elif isinstance(update, Promote):
            modes[update.tool_id] = ToolLoadMode.EAGER
        elif isinstance(update, PromoteBatch):
            modes.update((tool_id, ToolLoadMode.EAGER) for tool_id in update.tool_ids)
        else:
            modes.update(update.modes)
        return DeferralState(modes)


# --------------------------------------------------------------------------- usage statistics


class ToolUsage(msgspec.Struct, frozen=True, omit_defaults=True):
    """Per-tool usage: steps with a call, calls, first and last step used."""

    turn_presence_count: int = 0
    total_call_count: int = 0
    first_use_turn: int | None = None
    last_use_turn: int | None = None

    def record(self, turn: int, calls: int = 1) -> ToolUsage:
        """The usage after ``calls`` calls at ``turn``."""
        return ToolUsage(
            turn_presence_count=self.turn_presence_count + (self.last_use_turn != turn),
            total_call_count=self.total_call_count + calls,
            first_use_turn=turn if self.first_use_turn is None else self.first_use_turn,
            last_use_turn=turn,
        )


class UsageStats(msgspec.Struct, frozen=True):
    """Value of ``deferred_tools.usage_stats``."""

    total_turns: int = 0
    tools: dict[str, ToolUsage] = msgspec.field(default_factory=dict)

    def presence_freq(self, tool_id: str) -> float:
        """Fraction of steps in which ``tool_id`` was called (0 before the first step)."""
        usage = self.tools.get(tool_id)
        if self.total_turns == 0 or usage is None:
            return 0.0
        return usage.turn_presence_count / self.total_turns

    def called_at(self, turn: int) -> list[str]:
        """Ids whose last use is ``turn``, sorted."""
        return sorted(i for i, u in self.tools.items() if u.last_use_turn == turn)


class IncrementTurn(msgspec.Struct, frozen=True, tag="increment_turn", tag_field="type"):
    """Count one more step."""


class RecordCall(msgspec.Struct, frozen=True, tag="record_call", tag_field="type"):
    """One call of ``tool_id`` in the current step."""

    tool_id: str


class RecordTurnCalls(msgspec.Struct, frozen=True, tag="record_turn_calls", tag_field="type"):
    """Several tools' call counts in the current step."""

    calls: list[tuple[str, int]]


UsageUpdate = IncrementTurn | RecordCall | RecordTurnCalls


class UsageStatsKey(StateKey[UsageStats, UsageUpdate]):
    """``deferred_tools.usage_stats``."""

    KEY = "deferred_tools.usage_stats"
    MERGE = MergeStrategy.COMMUTATIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(cls, value: UsageStats, update: UsageUpdate) -> UsageStats:
        if isinstance(update, IncrementTurn):
            return UsageStats(value.total_turns + 1, value.tools)
        calls = [(update.tool_id, 1)] if isinstance(update, RecordCall) else update.calls
        tools = dict(value.tools)
        for tool_id, count in calls:
            tools[tool_id] = tools.get(tool_id, ToolUsage()).record(value.total_turns, count)
        return UsageStats(value.total_turns, tools)


# --------------------------------------------------------------------------- DiscBeta


class DiscBetaState(msgspec.Struct, frozen=True):
    """Value of ``deferred_tools.disc_beta``: one Beta posterior per tracked tool."""

    tools: dict[str, DiscBetaEntry] = msgspec.field(default_factory=dict)


class InitBatch(msgspec.Struct, frozen=True, tag="init_batch", tag_field="type"):
    """Insert entries whose id is not tracked yet (existing entries stay)."""

    entries: list[tuple[str, DiscBetaEntry]]


class SetPriors(msgspec.Struct, frozen=True, tag="set_priors", tag_field="type"):
    """Re-initialise tracked tools' ``alpha``/``beta`` from learned priors (``{id: p}``),
    keeping their last use and costs."""

    priors: dict[str, float]
    n0: float


class ObserveTurn(msgspec.Struct, frozen=True, tag="observe_turn", tag_field="type"):
    """Discount every entry by ``omega`` and add this step's observation."""

    omega: float
    current_turn: int
    tools_called: list[str]


DiscBetaUpdate = InitBatch | SetPriors | ObserveTurn


class DiscBetaKey(StateKey[DiscBetaState, DiscBetaUpdate]):
    """``deferred_tools.disc_beta``."""

    KEY = "deferred_tools.disc_beta"
    MERGE = MergeStrategy.COMMUTATIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(cls, value: DiscBetaState, update: DiscBetaUpdate) -> DiscBetaState:
        tools = dict(value.tools)
        if isinstance(update, InitBatch):
            for tool_id, entry in update.entries:
                tools.setdefault(tool_id, entry)
        elif isinstance(update, SetPriors):
            for tool_id, prior in update.priors.items():
                tracked = tools.get(tool_id)
                if tracked is not None:
                    tools[tool_id] = tracked.with_prior(prior, update.n0)
        else:
            called = set(update.tools_called)
            for tool_id, entry in tools.items():
                tools[tool_id] = observe(
                    entry, update.omega, update.current_turn, tool_id in called
                )
        return DiscBetaState(tools)
