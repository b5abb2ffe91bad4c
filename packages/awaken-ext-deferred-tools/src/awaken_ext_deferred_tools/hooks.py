"""The per-step hooks: hide deferred schemas, record usage, promote, observe, learn priors."""

from __future__ import annotations

from collections.abc import Callable

from awaken_contract.actions import (
    AddContextMessage,
    ContextMessageStoreKey,
    ExcludeTool,
    RemoveContextMessages,
)
from awaken_contract.contract.context_message import ContextMessage
from awaken_contract.plugin import PhaseContext, PhaseHook
from awaken_contract.state import StateCommand

from awaken_ext_deferred_tools.classify import classify, deferral_enabled
from awaken_ext_deferred_tools.config import DeferredToolsConfig, ToolLoadMode
from awaken_ext_deferred_tools.priors import blend_priors, load_priors, save_priors
from awaken_ext_deferred_tools.redeferral import tools_to_defer
from awaken_ext_deferred_tools.search import PROMOTE_FIELD, TOOL_SEARCH_ID
from awaken_ext_deferred_tools.state import (
    Defer,
    DeferralState,
    DeferralStateKey,
    DiscBetaKey,
    DiscBetaState,
    IncrementTurn,
    ObserveTurn,
    PromoteBatch,
    RecordCall,
    SetPriors,
    UsageStats,
    UsageStatsKey,
)

__all__ = [
    "DEFERRED_LIST_HEADER",
    "DEFERRED_LIST_KEY",
    "AfterInferenceHook",
    "AfterToolExecuteHook",
    "BeforeInferenceHook",
    "RunEndHook",
    "RunStartHook",
    "deferred_list_text",
]

#: Key of the persistent system context message listing the deferred tools.
DEFERRED_LIST_KEY = "deferred_tools.list"
#: First line of that message.
DEFERRED_LIST_HEADER = (
    "These tools are deferred: their schemas are not loaded. "
    "Call ToolSearch to load one before using it:"
)

ConfigOf = Callable[[PhaseContext], DeferredToolsConfig]


def deferred_list_text(ids: list[str]) -> str:
    """The header, a newline, then the sorted ids joined by ``", "``."""
    return DEFERRED_LIST_HEADER + "\n" + ", ".join(sorted(ids))


class _Hook(PhaseHook):
    __slots__ = ("config_of",)

    def __init__(self, config_of: ConfigOf) -> None:
        self.config_of = config_of


class RunStartHook(_Hook):
    """Classify ``ctx.tools`` when the plugin had no seed tools; apply learned priors."""

    __slots__ = ("classify_tools",)

    def __init__(self, config_of: ConfigOf, *, classify_tools: bool) -> None:
        super().__init__(config_of)
        self.classify_tools = classify_tools

    async def run(self, ctx: PhaseContext) -> StateCommand:
        command = StateCommand()
        config = self.config_of(ctx)
        tracked: set[str]
        if self.classify_tools:
            result = classify(ctx.tools, config)
            result.write(command)
            tracked = {tool_id for tool_id, _ in result.entries} if result.enabled else set()
        else:
            tracked = set((ctx.state(DiscBetaKey) or DiscBetaState()).tools)
        profile = ctx.profile
        if not tracked or profile is None:
            return command
        priors = await load_priors(profile)
        if priors.session_count == 0:
            return command
        learned = {i: p for i, p in priors.tools.items() if i in tracked}
        if learned:
            command.update(DiscBetaKey, SetPriors(learned, config.disc_beta.n0))
        return command


class BeforeInferenceHook(_Hook):
    """Re-defer idle tools, hide every deferred schema and list the deferred ids."""

    async def run(self, ctx: PhaseContext) -> StateCommand:
        command = StateCommand()
        config = self.config_of(ctx)
        if not deferral_enabled(ctx, config):
            return command
        state = ctx.state(DeferralStateKey) or DeferralState()
        usage = ctx.state(UsageStatsKey) or UsageStats()
        disc_beta = ctx.state(DiscBetaKey) or DiscBetaState()
        modes = dict(state.modes)
        for tool_id in tools_to_defer(disc_beta, state, config, usage.total_turns):
            modes[tool_id] = ToolLoadMode.DEFERRED
            command.update(DeferralStateKey, Defer(tool_id))
        deferred = DeferralState(modes).deferred_ids()
        deferred = [tool_id for tool_id in deferred if tool_id != TOOL_SEARCH_ID]
        for tool_id in deferred:
            command.schedule_action(ExcludeTool, tool_id)
        if deferred:
            message = ContextMessage.system_persistent(
                DEFERRED_LIST_KEY, deferred_list_text(deferred)
            )
            command.schedule_action(AddContextMessage, message)
        else:
            stored = ctx.state(ContextMessageStoreKey)
            if stored is not None and DEFERRED_LIST_KEY in stored.messages:
                command.update(ContextMessageStoreKey, RemoveContextMessages([DEFERRED_LIST_KEY]))
        return command


class AfterToolExecuteHook(_Hook):
    """Record the call; a ToolSearch result promotes the ids under ``__promote``."""

    async def run(self, ctx: PhaseContext) -> StateCommand:
        command = StateCommand()
        if ctx.tool_name is None or not deferral_enabled(ctx, self.config_of(ctx)):
            return command
        command.update(UsageStatsKey, RecordCall(ctx.tool_name))
        result = ctx.tool_result
        if ctx.tool_name == TOOL_SEARCH_ID and result is not None:
            promote = result.data.get(PROMOTE_FIELD) if isinstance(result.data, dict) else None
            valid = isinstance(promote, list) and all(isinstance(i, str) for i in promote)
            if valid and promote:
                command.update(DeferralStateKey, PromoteBatch(list(promote)))
        return command


class AfterInferenceHook(_Hook):
    """Observe which tools the step used (those of the previous step: one-step lag)."""

    async def run(self, ctx: PhaseContext) -> StateCommand:
        command = StateCommand()
        config = self.config_of(ctx)
        if not deferral_enabled(ctx, config):
            return command
        usage = ctx.state(UsageStatsKey) or UsageStats()
        turn = usage.total_turns
        observation = ObserveTurn(config.disc_beta.omega, turn, usage.called_at(turn))
        command.update(DiscBetaKey, observation)
        command.update(UsageStatsKey, IncrementTurn())
        return command


class RunEndHook(_Hook):
    """Blend this run's usage into the agent's stored priors."""

    async def run(self, ctx: PhaseContext) -> StateCommand:
        usage = ctx.state(UsageStatsKey)
        profile = ctx.profile
        if profile is None or usage is None or usage.total_turns == 0:
            return StateCommand()
        stored = await load_priors(profile)
        await save_priors(profile, blend_priors(stored, usage))
        return StateCommand()
