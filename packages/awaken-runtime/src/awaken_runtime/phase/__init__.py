"""The phase engine: GATHER hooks, EXECUTE scheduled actions, dispatch effects."""

from awaken_runtime.phase.engine import (
    DEFAULT_MAX_PHASE_ROUNDS,
    EffectReport,
    PhaseRunReport,
    PhaseRuntime,
    PhaseRuntimePlugin,
    SubmitReport,
)

__all__ = [
    "DEFAULT_MAX_PHASE_ROUNDS",
    "EffectReport",
    "PhaseRunReport",
    "PhaseRuntime",
    "PhaseRuntimePlugin",
    "SubmitReport",
]
