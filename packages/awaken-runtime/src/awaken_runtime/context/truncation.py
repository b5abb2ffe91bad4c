"""The context-window transform: summary view, artifact compaction and truncation.

Runs as the last request transform of agents with a ``ContextWindowPolicy``
(plugin ``context_transform``). On a copy of the request's messages it

1. keeps only the history from the latest ``<conversation-summary>`` on (earlier messages were
   summarized — they stay in the thread log but are not sent again);
2. compacts oversized tool results (≥ 2048 estimated tokens) to a preview of at most 1600
   characters / 24 lines with a note of the original size; other roles are never compacted;
3. when the request still exceeds ``max_context_tokens - max_output_tokens - tool tokens``,
   drops the oldest history (the leading system messages and the last ``min_recent_messages``
   are always kept) without splitting a tool call from its results — results whose call falls
   outside the budget are dropped with it, unless they are among the protected recent messages,
   which then pull their call in — and answers any tool call left without a result with
   ``"[Tool execution was interrupted]"``.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
from awaken_contract.contract.content import TextBlock
from awaken_contract.contract.message import Message, Role
from awaken_contract.contract.tokens import estimate_message_tokens, estimate_tools_tokens
from awaken_contract.contract.tool import ToolDescriptor
from awaken_contract.plugin import (
    InferenceRequestTransform,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
    TransformOutput,
)
from awaken_contract.registry_spec import ContextWindowPolicy

from awaken_runtime.context.summary import summary_view

__all__ = [
    "ARTIFACT_COMPACT_THRESHOLD_TOKENS",
    "ARTIFACT_PREVIEW_MAX_CHARS",
    "ARTIFACT_PREVIEW_MAX_LINES",
    "CONTEXT_TRANSFORM_PLUGIN_ID",
    "INTERRUPTED_TOOL_RESULT",
    "ContextTransform",
    "ContextTransformPlugin",
    "compact_artifact",
    "compact_tool_artifacts",
    "repair_dangling_tool_calls",
    "truncate_messages",
]

CONTEXT_TRANSFORM_PLUGIN_ID = "context_transform"
ARTIFACT_COMPACT_THRESHOLD_TOKENS = 2048
ARTIFACT_PREVIEW_MAX_CHARS = 1600
ARTIFACT_PREVIEW_MAX_LINES = 24
INTERRUPTED_TOOL_RESULT = "[Tool execution was interrupted]"


def compact_artifact(text: str) -> str | None:
    """A preview of an oversized tool output, or ``None`` when ``text`` is small enough."""
    estimated = len(text.encode()) // 4
    if estimated < ARTIFACT_COMPACT_THRESHOLD_TOKENS:
        return None
    preview = text[:ARTIFACT_PREVIEW_MAX_CHARS]
    newline = -1
    for _ in range(ARTIFACT_PREVIEW_MAX_LINES):
        newline = preview.find("\n", newline + 1)
        if newline < 0:
            break
    else:
        preview = preview[: newline + 1]
    return (
        f"{preview}\n\n[Content compacted: original ~{estimated} tokens, "
        f"showing first {len(preview)} chars]"
    )


def compact_tool_artifacts(messages: Sequence[Message]) -> list[Message]:
    """Copies of ``messages`` with oversized Tool-role text blocks compacted."""
    out: list[Message] = []
    for message in messages:
        if message.role is not Role.TOOL:
            out.append(message)
            continue
        changed = False
        blocks = []
        for block in message.content:
            if isinstance(block, TextBlock):
                preview = compact_artifact(block.text)
                if preview is not None:
                    block = TextBlock(text=preview)
                    changed = True
            blocks.append(block)
        out.append(msgspec.structs.replace(message, content=blocks) if changed else message)
    return out


def _leading_system(messages: Sequence[Message]) -> int:
    count = 0
    for message in messages:
        if message.role is not Role.SYSTEM:
            break
        count += 1
    return count


def _split_point(history: Sequence[Message], budget: int, min_recent: int) -> int:
    """Index of the first history message to keep."""
    total = len(history)
    split = total
    used = 0
    for index in range(total - 1, -1, -1):
        tokens = estimate_message_tokens(history[index])
        if total - index <= min_recent or used + tokens <= budget:
            used += tokens
            split = index
            continue
        break
    if split < total and history[split].role is Role.TOOL:
        forward = split
        while forward < total and history[forward].role is Role.TOOL:
            forward += 1
        if forward <= total - min_recent:
            split = forward  # drop results whose call was dropped: stays within budget
        else:
            while split > 0 and history[split].role is Role.TOOL:
                split -= 1  # protected recent results: keep their call too
    if split > 0 and history[split - 1].role is Role.ASSISTANT and history[split - 1].tool_calls:
        while split < total and history[split].role is Role.TOOL:
            split += 1
    return split


def repair_dangling_tool_calls(messages: Sequence[Message]) -> list[Message]:
    """Insert an interrupted result after every tool call that has no Tool-role answer."""
    answered = {m.tool_call_id for m in messages if m.role is Role.TOOL and m.tool_call_id}
    out: list[Message] = []
    index = 0
    total = len(messages)
    while index < total:
        message = messages[index]
        out.append(message)
        index += 1
        if message.role is not Role.ASSISTANT or not message.tool_calls:
            continue
        while index < total and messages[index].role is Role.TOOL:
            out.append(messages[index])
            index += 1
        for call in message.tool_calls:
            if call.id not in answered:
                out.append(Message.tool(call.id, INTERRUPTED_TOOL_RESULT))
    return out


def truncate_messages(
    messages: Sequence[Message], tools: Sequence[ToolDescriptor], policy: ContextWindowPolicy
) -> list[Message]:
    """Drop the oldest history so the request fits the policy's budget (see module doc)."""
    available = max(
        policy.max_context_tokens - policy.max_output_tokens - estimate_tools_tokens(tools), 0
    )
    if sum(estimate_message_tokens(m) for m in messages) <= available:
        return list(messages)
    lead = _leading_system(messages)
    system, history = messages[:lead], messages[lead:]
    budget = max(available - sum(estimate_message_tokens(m) for m in system), 0)
    # the newest message always stays: a request without it would be meaningless
    split = _split_point(history, budget, max(policy.min_recent_messages, 1))
    return [*system, *repair_dangling_tool_calls(history[split:])]


class ContextTransform(InferenceRequestTransform):
    """Applies a :class:`ContextWindowPolicy` to every inference request."""

    def __init__(self, policy: ContextWindowPolicy) -> None:
        self.policy = policy

    def transform(self, messages: list[Message], tools: list[ToolDescriptor]) -> TransformOutput:
        view = compact_tool_artifacts(summary_view(messages))
        return TransformOutput(messages=truncate_messages(view, tools, self.policy))


class ContextTransformPlugin(Plugin):
    """``context_transform``: registers :class:`ContextTransform` (runs after other transforms)."""

    def __init__(self, policy: ContextWindowPolicy) -> None:
        self.policy = policy

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor(CONTEXT_TRANSFORM_PLUGIN_ID)

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_request_transform(
            CONTEXT_TRANSFORM_PLUGIN_ID, ContextTransform(self.policy)
        )
