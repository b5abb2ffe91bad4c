"""Handoff state: ``ActiveAgentKey`` (``agent_handoff``) and ``ActiveAgentIdKey``
(``__runtime.active_agent``), both Thread scoped, and the actions that change them.

``requested_agent`` is pending until the next safe boundary (RunStart or StepEnd), where the
handoff hook promotes it to ``active_agent`` and publishes it in ``__runtime.active_agent`` —
the key the loop watches to switch agents before the next step. ``None`` means the base agent.
"""

from __future__ import annotations

import msgspec
from awaken_contract.state import KeyScope, MergeStrategy, StateKey

__all__ = [
    "ActivateHandoff",
    "ActiveAgentIdKey",
    "ActiveAgentKey",
    "ClearHandoff",
    "HandoffAction",
    "HandoffState",
    "RequestHandoff",
    "activate_handoff",
    "clear_handoff",
    "request_handoff",
]


class HandoffState(msgspec.Struct, gc=False):
    """``{"active_agent", "requested_agent"}``; ``None`` active = the base agent."""

    active_agent: str | None = None
    requested_agent: str | None = None

    def effective_agent(self) -> str | None:
        """The requested agent when one is pending, else the active one."""
        return self.requested_agent if self.requested_agent is not None else self.active_agent


class RequestHandoff(msgspec.Struct, tag="request", tag_field="type", frozen=True, gc=False):
    """Ask for ``agent`` at the next safe boundary."""

    agent: str


class ActivateHandoff(msgspec.Struct, tag="activate", tag_field="type", frozen=True, gc=False):
    """Make ``agent`` active now (clears any pending request)."""

    agent: str


class ClearHandoff(msgspec.Struct, tag="clear", tag_field="type", frozen=True, gc=False):
    """Return to the base agent."""


HandoffAction = RequestHandoff | ActivateHandoff | ClearHandoff


def request_handoff(agent: str) -> HandoffAction:
    """Update for :class:`ActiveAgentKey`: switch to ``agent`` at the next step boundary."""
    return RequestHandoff(_agent_id(agent))


def activate_handoff(agent: str) -> HandoffAction:
    """Update for :class:`ActiveAgentKey`: ``agent`` becomes the active agent."""
    return ActivateHandoff(_agent_id(agent))


def clear_handoff() -> HandoffAction:
    """Update for :class:`ActiveAgentKey`: back to the base agent."""
    return ClearHandoff()


def _agent_id(agent: str) -> str:
    agent = agent.strip()
    if not agent:
        raise ValueError("handoff target agent id must not be empty")
    return agent


class ActiveAgentKey(StateKey[HandoffState, HandoffAction]):
    """``agent_handoff``: the handoff state (Thread scope, Exclusive)."""

    KEY = "agent_handoff"
    MERGE = MergeStrategy.EXCLUSIVE
    SCOPE = KeyScope.THREAD

    @classmethod
    def apply(cls, value: HandoffState, update: HandoffAction) -> HandoffState:
        if isinstance(update, RequestHandoff):
            return HandoffState(value.active_agent, update.agent)
        if isinstance(update, ActivateHandoff):
            return HandoffState(update.agent, None)
        return HandoffState()


class ActiveAgentIdKey(StateKey[str | None, str | None]):
    """``__runtime.active_agent``: the agent the loop runs next (Thread scope, Exclusive)."""

    KEY = "__runtime.active_agent"
    MERGE = MergeStrategy.EXCLUSIVE
    SCOPE = KeyScope.THREAD
