"""Cross-run priors: each agent's per-tool usage rate, learned by EWMA in the profile store.

At RunEnd the presence frequency of every tool used this run is blended into the stored
prior with ``λ = max(0.1, 1/(session_count + 1))``; at RunStart the stored priors
re-initialise the DiscBeta posteriors of the tracked tools (the book's behaviour; the
reference release inserted them only for untracked tools, so they had no effect).
"""

from __future__ import annotations

import logging

import msgspec
from awaken_contract.profile import ProfileAccess, ProfileKey

from awaken_ext_deferred_tools.state import UsageStats

__all__ = ["AgentToolPriors", "AgentToolPriorsKey", "blend_priors", "load_priors", "smoothing"]

_log = logging.getLogger(__name__)


class AgentToolPriors(msgspec.Struct, frozen=True):
    """Profile value ``{"tools": {tool_id: p}, "session_count": n}``."""

    tools: dict[str, float] = msgspec.field(default_factory=dict)
    session_count: int = 0


class AgentToolPriorsKey(ProfileKey[AgentToolPriors]):
    """Profile key ``deferred_tools.agent_priors`` (owner: the agent)."""

    KEY = "deferred_tools.agent_priors"


def smoothing(session_count: int) -> float:
    """EWMA weight of the new session: 1, 1/2, 1/3, … then 0.1 from the 9th stored session."""
    return max(0.1, 1.0 / (session_count + 1))


def blend_priors(stored: AgentToolPriors, usage: UsageStats) -> AgentToolPriors:
    """``stored`` updated with this run's presence frequencies (unused tools untouched)."""
    weight = smoothing(stored.session_count)
    tools = dict(stored.tools)
    for tool_id in usage.tools:
        rate = usage.presence_freq(tool_id)
        prior = tools.get(tool_id, rate)
        tools[tool_id] = (1.0 - weight) * prior + weight * rate
    return AgentToolPriors(tools, stored.session_count + 1)


async def load_priors(profile: ProfileAccess) -> AgentToolPriors:
    """The stored priors; a read or decode error is logged and gives empty priors."""
    try:
        stored = await profile.get(AgentToolPriorsKey)
    except Exception as exc:  # the run goes on without priors
        _log.warning(
            "deferred tools: cannot read priors of %s: %s",
            profile.owner_of(AgentToolPriorsKey),
            exc,
        )
        return AgentToolPriors()
    return stored if stored is not None else AgentToolPriors()


async def save_priors(profile: ProfileAccess, priors: AgentToolPriors) -> None:
    """Store the priors; a write error is logged."""
    try:
        await profile.set(AgentToolPriorsKey, priors)
    except Exception as exc:  # losing one session's update is acceptable
        _log.warning(
            "deferred tools: cannot write priors of %s: %s",
            profile.owner_of(AgentToolPriorsKey),
            exc,
        )
