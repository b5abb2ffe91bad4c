"""OpenAI-compatible Chat Completions (OpenAI, DeepSeek, Ollama, vLLM, OpenRouter, …)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from awaken_contract.contract.content import (
    AnyContentBlock,
    Base64Source,
    ImageBlock,
    TextBlock,
    text_of,
)
from awaken_contract.contract.executor import InferenceRequest
from awaken_contract.contract.inference import (
    LlmStreamEvent,
    ReasoningDeltaChunk,
    StopChunk,
    StopReason,
    TextDeltaChunk,
    TokenUsage,
    ToolCallDeltaChunk,
    ToolCallStartChunk,
    UsageChunk,
)
from awaken_contract.contract.message import Message, Role
from awaken_contract.errors import ProviderError
from awaken_contract.registry_spec import ReasoningBudget, ReasoningEffort

from awaken_runtime.engine.adapters.base import (
    ProviderAdapter,
    ProviderEndpoint,
    StreamParser,
    block_placeholder,
    compact_json,
    new_call_id,
    overrides_of,
)
from awaken_runtime.engine.errors import classify_message, provider_message
from awaken_runtime.engine.sse import SseEvent

__all__ = ["OpenAiAdapter", "OpenAiStreamParser"]

_FINISH_REASONS = {
    "stop": StopReason.END_TURN,
    "length": StopReason.MAX_TOKENS,
    "tool_calls": StopReason.TOOL_USE,
    "function_call": StopReason.TOOL_USE,
    "content_filter": StopReason.END_TURN,
}


def _openai_effort(effort: ReasoningEffort | ReasoningBudget | None) -> str | None:
    """OpenAI's ``reasoning_effort`` level; ``None`` (not sent) for no effort / ``none``."""
    if effort is None or effort is ReasoningEffort.NONE:
        return None
    if isinstance(effort, ReasoningBudget):
        if effort.budget <= 0:
            return None
        if effort.budget <= 2048:
            return "low"
        return "medium" if effort.budget <= 8192 else "high"
    return "high" if effort is ReasoningEffort.MAX else effort.value


def _part(block: AnyContentBlock) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ImageBlock):
        src = block.source
        url = (
            f"data:{src.media_type};base64,{src.data}" if isinstance(src, Base64Source) else src.url
        )
        return {"type": "image_url", "image_url": {"url": url}}
    return {"type": "text", "text": block_placeholder(block)}


def _user_content(blocks: list[AnyContentBlock]) -> str | list[dict[str, Any]]:
    if all(isinstance(b, TextBlock) for b in blocks):
        return text_of(blocks)
    return [_part(b) for b in blocks if block_placeholder(b) or isinstance(b, ImageBlock)]


def _message(msg: Message) -> dict[str, Any]:
    if msg.role is Role.SYSTEM:
        return {"role": "system", "content": "".join(block_placeholder(b) for b in msg.content)}
    if msg.role is Role.USER:
        return {"role": "user", "content": _user_content(msg.content)}
    if msg.role is Role.TOOL:
        return {
            "role": "tool",
            "tool_call_id": msg.tool_call_id or "",
            "content": "".join(block_placeholder(b) for b in msg.content),
        }
    text = text_of(msg.content)
    out: dict[str, Any] = {"role": "assistant", "content": text}
    if msg.tool_calls:
        out["content"] = text or None
        out["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": compact_json(call.arguments)},
            }
            for call in msg.tool_calls
        ]
    return out


@dataclass
class OpenAiAdapter(ProviderAdapter):
    """Chat Completions over SSE.

    ``native`` (api.openai.com) sends ``max_completion_tokens`` and ``reasoning_effort``;
    compatible servers get ``max_tokens`` and no reasoning parameter.
    """

    kind: str = "openai"
    native: bool = True

    def url(self, endpoint: ProviderEndpoint, model: str) -> str:
        return endpoint.base_url.rstrip("/") + "/chat/completions"

    def auth_headers(self, endpoint: ProviderEndpoint) -> dict[str, str]:
        if endpoint.api_key:
            return {"authorization": f"Bearer {endpoint.api_key}"}
        return {}

    def build_body(self, request: InferenceRequest, endpoint: ProviderEndpoint) -> dict[str, Any]:
        messages: list[dict[str, Any]] = []
        if request.system:
            messages.append({"role": "system", "content": text_of(request.system)})
        messages.extend(_message(m) for m in request.messages)
        body: dict[str, Any] = {
            "model": request.upstream_model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": tool.id,
                        "description": tool.description,
                        "parameters": tool.parameters,
                    },
                }
                for tool in request.tools
            ]
        ov = overrides_of(request)
        if ov.temperature is not None:
            body["temperature"] = ov.temperature
        if ov.top_p is not None:
            body["top_p"] = ov.top_p
        if ov.max_tokens is not None:
            body["max_completion_tokens" if self.native else "max_tokens"] = ov.max_tokens
        effort = _openai_effort(ov.reasoning_effort)
        if self.native and effort is not None:
            body["reasoning_effort"] = effort
        fmt = request.response_format
        if fmt is not None and self.native:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": fmt.name, "schema": fmt.schema, "strict": fmt.strict},
            }
        return body

    def supports_response_format(self, request: InferenceRequest) -> bool:
        """``response_format: json_schema`` on api.openai.com; compatible servers vary, so
        they get the ``final_result`` tool."""
        return self.native

    def parser(self, endpoint: ProviderEndpoint) -> StreamParser:
        return OpenAiStreamParser(endpoint.provider_id)


@dataclass
class _PendingCall:
    id: str
    name: str = ""
    started: bool = False
    buffered: list[str] = field(default_factory=list)


class OpenAiStreamParser(StreamParser):
    """Assembles Chat Completions chunks; tool-call arguments are streamed per call id."""

    def __init__(self, provider: str) -> None:
        self.provider = provider
        self.done = False
        self._calls: dict[int, _PendingCall] = {}
        self._finish: str | None = None
        self._usage: TokenUsage | None = None

    def feed(self, event: SseEvent) -> list[LlmStreamEvent]:
        if event.data.strip() == "[DONE]":
            self.done = True
            return []
        chunk = event.json(self.provider)
        if not isinstance(chunk, dict):
            raise ProviderError(f"malformed stream line from {self.provider}: {event.data[:500]}")
        if "error" in chunk:
            raise classify_message(
                f"{self.provider} stream error: {provider_message(event.data.encode())}"
            )
        out: list[LlmStreamEvent] = []
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                out.append(ReasoningDeltaChunk(reasoning))
            content = delta.get("content")
            if isinstance(content, str) and content:
                out.append(TextDeltaChunk(content))
            for call in delta.get("tool_calls") or []:
                out.extend(self._tool_delta(call))
            if choice.get("finish_reason"):
                self._finish = choice["finish_reason"]
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self._usage = _usage(usage)
        return out

    def _tool_delta(self, call: dict[str, Any]) -> list[LlmStreamEvent]:
        index = call.get("index", len(self._calls))
        fn = call.get("function") or {}
        pending = self._calls.get(index)
        if pending is None:
            pending = _PendingCall(id=call.get("id") or new_call_id())
            self._calls[index] = pending
        if fn.get("name") and not pending.started:
            pending.name += fn["name"]
        out: list[LlmStreamEvent] = []
        args = fn.get("arguments")
        if isinstance(args, str) and args:
            pending.buffered.append(args)
        if not pending.started and pending.name:
            pending.started = True
            out.append(ToolCallStartChunk(pending.id, pending.name))
        if pending.started and pending.buffered:
            out.append(ToolCallDeltaChunk(pending.id, "".join(pending.buffered)))
            pending.buffered.clear()
        return out

    def finish(self) -> list[LlmStreamEvent]:
        if self._finish is None and not self.done:
            raise ProviderError(f"{self.provider} stream ended before the response was complete")
        unnamed = [c for c in self._calls.values() if not c.started]
        if unnamed:
            raise ProviderError(f"{self.provider} sent a tool call without a name")
        out: list[LlmStreamEvent] = []
        if self._usage is not None:
            out.append(UsageChunk(self._usage))
        reason = _FINISH_REASONS.get(self._finish or "stop", StopReason.END_TURN)
        if self._calls and reason is StopReason.END_TURN:
            reason = StopReason.TOOL_USE
        out.append(StopChunk(reason))
        return out


def _usage(raw: dict[str, Any]) -> TokenUsage:
    prompt_details = raw.get("prompt_tokens_details") or {}
    completion_details = raw.get("completion_tokens_details") or {}
    cached = prompt_details.get("cached_tokens")
    if cached is None:
        cached = raw.get("prompt_cache_hit_tokens")  # DeepSeek
    return TokenUsage(
        prompt_tokens=raw.get("prompt_tokens"),
        completion_tokens=raw.get("completion_tokens"),
        total_tokens=raw.get("total_tokens"),
        cache_read_tokens=cached,
        thinking_tokens=completion_details.get("reasoning_tokens"),
    )
