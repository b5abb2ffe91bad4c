"""The stop plugins: :class:`StopConditionPlugin` (any policies) and :class:`MaxRoundsPlugin`.

Register them with ``builder.with_plugin("stop-condition", StopConditionPlugin(policies))`` and
list the id in the agent's ``plugin_ids``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from awaken_contract.contract.lifecycle import StopConditionSpec
from awaken_contract.ids import now_ms
from awaken_contract.model import Phase
from awaken_contract.plugin import ConfigSchema, Plugin, PluginDescriptor, PluginRegistrar

from awaken_runtime.policies.builtin import policies_from_specs
from awaken_runtime.policies.hook import (
    Clock,
    MaxRoundsHook,
    StopClockHook,
    StopConditionHook,
    StopStatsHook,
)
from awaken_runtime.policies.policy import StopPolicy
from awaken_runtime.policies.section import stop_conditions_schema
from awaken_runtime.policies.state import StopConditionStatsKey

__all__ = [
    "MAX_ROUNDS_PLUGIN_ID",
    "STOP_CONDITION_PLUGIN_ID",
    "MaxRoundsPlugin",
    "StopConditionPlugin",
]

STOP_CONDITION_PLUGIN_ID = "stop-condition"
MAX_ROUNDS_PLUGIN_ID = "stop-condition:max-rounds"


class StopConditionPlugin(Plugin):
    """Evaluates ``policies`` after every step; the first ``Stop`` ends the run with
    ``TerminationReason.stopped(code, detail)``. Agents using the plugin may add policies
    declaratively in their ``stop_conditions`` section (a list of ``StopConditionSpec``).

    ``clock`` returns unix milliseconds (inject one to test timeouts deterministically).
    """

    def __init__(self, policies: Sequence[StopPolicy] = (), *, clock: Clock = now_ms) -> None:
        self.policies: list[StopPolicy] = list(policies)
        self.clock = clock

    @classmethod
    def from_specs(
        cls, specs: Iterable[StopConditionSpec], *, clock: Clock = now_ms
    ) -> StopConditionPlugin:
        """A plugin for declarative stop conditions (see :func:`policies_from_specs`)."""
        return cls(policies_from_specs(specs), clock=clock)

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor(STOP_CONDITION_PLUGIN_ID)

    def register(self, registrar: PluginRegistrar) -> None:
        name = self.descriptor().name
        registrar.register_key(StopConditionStatsKey)
        registrar.register_phase_hook(name, Phase.RUN_START, StopClockHook(self.clock))
        registrar.register_phase_hook(name, Phase.AFTER_INFERENCE, StopStatsHook(self.clock))
        hook = StopConditionHook(self.policies, clock=self.clock, from_section=True)
        registrar.register_phase_hook(name, Phase.STEP_END, hook)

    def config_schemas(self) -> list[ConfigSchema]:
        return [stop_conditions_schema()]

    def __repr__(self) -> str:
        return f"StopConditionPlugin({self.policies!r})"


class MaxRoundsPlugin(Plugin):
    """Stops the run once ``max_rounds`` inference rounds completed (0 disables it).

    Cheaper than ``StopConditionPlugin([MaxRoundsPolicy(n)])``: one StepEnd hook, no
    statistics beyond the run's step count.
    """

    def __init__(self, max_rounds: int) -> None:
        self.max_rounds = max(int(max_rounds), 0)

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor(MAX_ROUNDS_PLUGIN_ID)

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_key(StopConditionStatsKey)
        if self.max_rounds:
            registrar.register_phase_hook(
                self.descriptor().name,
                Phase.STEP_END,
                MaxRoundsHook(self.max_rounds),
            )

    def __repr__(self) -> str:
        return f"MaxRoundsPlugin({self.max_rounds})"
