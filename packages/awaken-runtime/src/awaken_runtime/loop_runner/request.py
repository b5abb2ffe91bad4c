"""Assembling one inference request: prompt, context messages, tools and overrides.

Messages are ``[system prompt] + history`` with the step's context messages placed by target
(``system`` right after the prompt, ``session`` / ``conversation`` after the leading system
messages, ``suffix_system`` at the end), then the env's request transforms in order. Tools are
the agent's descriptors sorted by id, narrowed by the step's include-only / exclude filter.
Overrides merge the agent's reasoning effort, the run's overrides and the step's overrides; a
model override replaces the upstream model.
"""

from __future__ import annotations

from collections.abc import Sequence

from awaken_contract.actions import InferenceOverrideState, ToolFilterState
from awaken_contract.contract.context_message import ContextMessage, ContextMessageTarget
from awaken_contract.contract.message import Message, Role
from awaken_contract.contract.tool import ToolDescriptor
from awaken_contract.errors import InferenceFailed
from awaken_contract.registry_spec import AgentSpec, InferenceOverride

__all__ = ["effective_overrides", "filter_tools", "place_context_messages"]


def _leading_system(messages: list[Message]) -> int:
    index = 0
    while index < len(messages) and messages[index].role is Role.SYSTEM:
        index += 1
    return index


def place_context_messages(
    messages: list[Message], context: Sequence[ContextMessage], has_system_prompt: bool
) -> list[Message]:
    """Insert ``context`` (already sorted) into ``messages`` by target; returns a new list."""
    out = list(messages)
    by_target: dict[ContextMessageTarget, list[Message]] = {}
    for item in context:
        by_target.setdefault(item.target, []).append(
            Message(role=item.role, content=list(item.content), visibility=item.visibility)
        )
    system = by_target.get(ContextMessageTarget.SYSTEM, [])
    if system:
        at = 1 if has_system_prompt else 0
        out[at:at] = system
    session = by_target.get(ContextMessageTarget.SESSION, [])
    if session:
        at = _leading_system(out)
        out[at:at] = session
        after_session = at + len(session)
    else:
        after_session = _leading_system(out)
    conversation = by_target.get(ContextMessageTarget.CONVERSATION, [])
    if conversation:
        out[after_session:after_session] = conversation
    out.extend(by_target.get(ContextMessageTarget.SUFFIX_SYSTEM, []))
    return out


def filter_tools(
    tools: list[ToolDescriptor], tool_filter: ToolFilterState | None
) -> list[ToolDescriptor]:
    """Apply the step's include-only lists (their union) then its exclusions."""
    if tool_filter is None or not (tool_filter.include_only or tool_filter.excluded):
        return tools
    keep = set(tool_filter.filter_ids([t.id for t in tools]))
    return [t for t in tools if t.id in keep]


def effective_overrides(
    spec: AgentSpec,
    run_overrides: InferenceOverride | None,
    step_overrides: InferenceOverrideState | None,
    default_model: str,
) -> tuple[str, InferenceOverride | None]:
    """``(upstream model, remaining overrides or None)`` for one inference.

    A blank model override raises ``InferenceFailed``.
    """
    step = step_overrides.overrides if step_overrides is not None else None
    if spec.reasoning_effort is None and run_overrides is None and step is None:
        return default_model, None
    merged = InferenceOverride()
    if spec.reasoning_effort is not None:
        merged.reasoning_effort = spec.reasoning_effort
    if run_overrides is not None:
        merged.merge(run_overrides)
    if step is not None:
        merged.merge(step)
    model = default_model
    if merged.model is not None:
        if not merged.model.strip():
            raise InferenceFailed("inference override upstream_model cannot be empty")
        model = merged.model
        merged.model = None
    return model, None if merged.is_empty() else merged
