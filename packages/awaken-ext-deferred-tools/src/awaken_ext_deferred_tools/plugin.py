"""The deferred-tools plugin: keys, the ToolSearch tool, hooks and the defer/promote actions."""

from __future__ import annotations

from collections.abc import Sequence

from awaken_contract.contract.tool import ToolDescriptor
from awaken_contract.model import Phase, ScheduledActionSpec
from awaken_contract.plugin import (
    ConfigSchema,
    PhaseContext,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
)
from awaken_contract.registry_spec import AgentSpec
from awaken_contract.state import MutationBatch, Snapshot, StateCommand, StateKeyOptions

from awaken_ext_deferred_tools.classify import classify
from awaken_ext_deferred_tools.config import (
    DeferredToolsConfig,
    DeferredToolsConfigKey,
    ToolLoadMode,
)
from awaken_ext_deferred_tools.hooks import (
    AfterInferenceHook,
    AfterToolExecuteHook,
    BeforeInferenceHook,
    RunEndHook,
    RunStartHook,
)
from awaken_ext_deferred_tools.priors import AgentToolPriorsKey
from awaken_ext_deferred_tools.search import TOOL_SEARCH_ID, ToolSearchTool
from awaken_ext_deferred_tools.state import (
    DeferralRegistryKey,
    DeferralStateKey,
    DiscBetaKey,
    PromoteBatch,
    SetBatch,
    UsageStatsKey,
)

__all__ = [
    "DEFERRED_TOOLS_PLUGIN_ID",
    "DeferToolsAction",
    "DeferredToolsPlugin",
    "PromoteToolsAction",
    "defer_and_promote",
]

#: Plugin id (use it in ``plugin_ids`` / ``with_plugin``).
DEFERRED_TOOLS_PLUGIN_ID = "ext-deferred-tools"


class DeferToolsAction(ScheduledActionSpec[list[str]]):
    """Defer these tool ids (handled at BeforeInference)."""

    KEY = "deferred_tools.defer"
    PHASE = Phase.BEFORE_INFERENCE


class PromoteToolsAction(ScheduledActionSpec[list[str]]):
    """Promote these tool ids to eager (handled at BeforeInference)."""

    KEY = "deferred_tools.promote"
    PHASE = Phase.BEFORE_INFERENCE


def defer_and_promote(defer: Sequence[str] = (), promote: Sequence[str] = ()) -> StateCommand:
    """A command scheduling both actions: defers first, then promotes (promote wins)."""
    command = StateCommand()
    if defer:
        command.schedule_action(DeferToolsAction, list(defer))
    if promote:
        command.schedule_action(PromoteToolsAction, list(promote))
    return command


async def _defer(ids: list[str], snapshot: Snapshot) -> StateCommand:
    modes = [(tool_id, ToolLoadMode.DEFERRED) for tool_id in ids]
    return StateCommand().update(DeferralStateKey, SetBatch(modes))


async def _promote(ids: list[str], snapshot: Snapshot) -> StateCommand:
    return StateCommand().update(DeferralStateKey, PromoteBatch(list(ids)))


class DeferredToolsPlugin(Plugin):
    """Keep rarely used tool schemas out of the prompt; ToolSearch loads them on demand.

    ``seed_tools`` are the descriptors of the agent's tools, classified when the agent
    activates (the book's constructor). Without them (e.g. when the plugin comes from the
    ``awaken.plugins`` entry point) the tools the agent offers the model are classified at
    RunStart. The agent's ``deferred_tools`` section wins over ``config``.
    """

    def __init__(
        self,
        seed_tools: Sequence[ToolDescriptor] | None = None,
        config: DeferredToolsConfig | None = None,
    ) -> None:
        self.seed_tools = list(seed_tools) if seed_tools is not None else None
        self.config = config

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor(DEFERRED_TOOLS_PLUGIN_ID)

    def config_for(self, agent_spec: AgentSpec) -> DeferredToolsConfig:
        """The agent's section, else this plugin's config, else the defaults."""
        if agent_spec.section(DeferredToolsConfigKey.KEY) is not None:
            return agent_spec.config(DeferredToolsConfigKey)
        return self.config if self.config is not None else DeferredToolsConfig()

    def _config_of(self, ctx: PhaseContext) -> DeferredToolsConfig:
        return self.config_for(ctx.agent_spec)

    def register(self, registrar: PluginRegistrar) -> None:
        persistent = StateKeyOptions(persistent=True)
        for key in (DeferralRegistryKey, DeferralStateKey, UsageStatsKey, DiscBetaKey):
            registrar.register_key(key, persistent)
        registrar.register_profile_key(AgentToolPriorsKey)
        registrar.register_scheduled_action(DeferToolsAction, _defer)
        registrar.register_scheduled_action(PromoteToolsAction, _promote)
        registrar.register_tool(TOOL_SEARCH_ID, ToolSearchTool())
        plugin_id = DEFERRED_TOOLS_PLUGIN_ID
        config_of = self._config_of
        start = RunStartHook(config_of, classify_tools=self.seed_tools is None)
        registrar.register_phase_hook(plugin_id, Phase.RUN_START, start)
        registrar.register_phase_hook(
            plugin_id, Phase.BEFORE_INFERENCE, BeforeInferenceHook(config_of)
        )
        registrar.register_phase_hook(
            plugin_id, Phase.AFTER_INFERENCE, AfterInferenceHook(config_of)
        )
        registrar.register_phase_hook(
            plugin_id, Phase.AFTER_TOOL_EXECUTE, AfterToolExecuteHook(config_of)
        )
        registrar.register_phase_hook(plugin_id, Phase.RUN_END, RunEndHook(config_of))

    def config_schemas(self) -> list[ConfigSchema]:
        return [ConfigSchema.for_key(DeferredToolsConfigKey)]

    def on_activate(self, agent_spec: AgentSpec, patch: MutationBatch) -> None:
        if self.seed_tools is not None:
            classify(self.seed_tools, self.config_for(agent_spec)).write(patch)
