"""Re-deferral: which promoted tools are idle enough, by their Discounted-Beta posterior, to
list by name only again (see ``disc_beta`` for the model)."""

from __future__ import annotations

import math

from awaken_ext_deferred_tools.config import DeferredToolsConfig, DiscBetaParams, ToolLoadMode
from awaken_ext_deferred_tools.disc_beta import DiscBetaEntry
from awaken_ext_deferred_tools.state import DeferralState, DiscBetaState

__all__ = ["tools_to_defer"]


def _idle_steps(entry: DiscBetaEntry, current_turn: int) -> int:
    last = entry.last_used_turn
    if last is None:
        return current_turn
    return current_turn - last if last < current_turn else 0


def tools_to_defer(
    disc_beta: DiscBetaState,
    state: DeferralState,
    config: DeferredToolsConfig,
    current_turn: int,
) -> list[str]:
    """Eager tools (not configured eager) idle for ``defer_after`` steps whose usage bound fell
    below the threshold, sorted by id."""
    params: DiscBetaParams = config.disc_beta
    chosen = []
    for tool_id, entry in sorted(disc_beta.tools.items()):
        if state.modes.get(tool_id) is not ToolLoadMode.EAGER:
            continue
        if config.resolve_mode(tool_id) is ToolLoadMode.EAGER:
            continue
        if _idle_steps(entry, current_turn) < params.defer_after:
            continue
        breakeven = entry.breakeven(params.gamma)
        if math.isinf(breakeven):
            continue
        if entry.upper(0.90) < breakeven * params.thresh_mult:
            chosen.append(tool_id)
    return chosen
