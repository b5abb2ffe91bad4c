"""Anthropic Messages API (streaming, tool use, extended thinking, prompt caching)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from awaken_contract.contract.content import (
    AnyContentBlock,
    Base64Source,
    DocumentBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
)
from awaken_contract.contract.executor import InferenceRequest
from awaken_contract.contract.inference import (
    ContentBlockStopChunk,
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
from awaken_contract.errors import InferenceExecutionError, ProviderError, RateLimited

from awaken_runtime.engine.adapters.base import (
    ProviderAdapter,
    ProviderEndpoint,
    StreamParser,
    block_placeholder,
    overrides_of,
    reasoning_budget,
)
from awaken_runtime.engine.errors import classify_message
from awaken_runtime.engine.sse import SseEvent

__all__ = ["ANTHROPIC_VERSION", "AnthropicAdapter", "AnthropicStreamParser"]

ANTHROPIC_VERSION = "2023-06-01"
_MIN_THINKING_BUDGET = 1024
_EPHEMERAL = {"type": "ephemeral"}

_STOP_REASONS = {
    "end_turn": StopReason.END_TURN,
    "max_tokens": StopReason.MAX_TOKENS,
    "tool_use": StopReason.TOOL_USE,
    "stop_sequence": StopReason.STOP_SEQUENCE,
    "pause_turn": StopReason.END_TURN,
    "refusal": StopReason.END_TURN,
}


def _media(block: ImageBlock | DocumentBlock) -> dict[str, Any]:
    src = block.source
    kind = "image" if isinstance(block, ImageBlock) else "document"
    if isinstance(src, Base64Source):
        source: dict[str, Any] = {
            "type": "base64",
            "media_type": src.media_type,
            "data": src.data,
        }
    else:
        source = {"type": "url", "url": src.url}
    return {"type": kind, "source": source}


def _blocks(content: list[AnyContentBlock]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, TextBlock):
            if block.text:
                out.append({"type": "text", "text": block.text})
        elif isinstance(block, ImageBlock | DocumentBlock):
            out.append(_media(block))
        elif isinstance(block, ThinkingBlock):
            continue  # thinking is not replayed: the stream gives no signature to send back
        else:
            text = block_placeholder(block)
            if text:
                out.append({"type": "text", "text": text})
    return out


def _turn(msg: Message) -> tuple[str, list[dict[str, Any]]]:
    if msg.role is Role.TOOL:
        result: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": msg.tool_call_id or "",
            "content": _blocks(msg.content) or [{"type": "text", "text": ""}],
        }
        return "user", [result]
    if msg.role is Role.ASSISTANT:
        blocks = _blocks(msg.content)
        for call in msg.tool_calls or []:
            blocks.append(
                {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
            )
        return "assistant", blocks
    # user messages, and system messages that are not at the start (context reminders)
    return "user", _blocks(msg.content)


def _in_tool_loop(messages: list[Message]) -> bool:
    """True when the current assistant turn (after the last user message) called tools."""
    for msg in reversed(messages):
        if msg.role is Role.USER:
            return False
        if msg.role is Role.ASSISTANT and msg.tool_calls:
            return True
    return False


@dataclass
class AnthropicAdapter(ProviderAdapter):
    """Messages API over SSE; ``default_max_tokens`` is sent when no override sets it."""

    kind: str = "anthropic"
    default_max_tokens: int = 8192

    def url(self, endpoint: ProviderEndpoint, model: str) -> str:
        return endpoint.base_url.rstrip("/") + "/messages"

    def auth_headers(self, endpoint: ProviderEndpoint) -> dict[str, str]:
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if endpoint.api_key:
            headers["x-api-key"] = endpoint.api_key
        return headers

    def build_body(self, request: InferenceRequest, endpoint: ProviderEndpoint) -> dict[str, Any]:
        cache = request.enable_prompt_cache
        system_text = [b.text for b in request.system if isinstance(b, TextBlock) and b.text]
        messages = list(request.messages)
        while messages and messages[0].role is Role.SYSTEM:
            system_text.extend(
                b.text for b in messages.pop(0).content if isinstance(b, TextBlock) and b.text
            )

        turns: list[dict[str, Any]] = []
        for msg in messages:
            role, blocks = _turn(msg)
            if not blocks:
                continue
            if turns and turns[-1]["role"] == role:
                turns[-1]["content"].extend(blocks)
            else:
                turns.append({"role": role, "content": blocks})

        ov = overrides_of(request)
        budget = reasoning_budget(ov.reasoning_effort)
        if budget and _in_tool_loop(messages):
            # Thinking inside a tool-use loop requires replaying the signed thinking block of
            # the current assistant turn; streams carry no signature, so this continuation
            # runs without extended thinking (a valid request instead of a 400).
            budget = None
        max_tokens = ov.max_tokens if ov.max_tokens is not None else self.default_max_tokens
        body: dict[str, Any] = {"model": request.upstream_model}
        if system_text:
            system: list[dict[str, Any]] = [{"type": "text", "text": t} for t in system_text]
            if cache:
                system[-1]["cache_control"] = _EPHEMERAL
            body["system"] = system
        body["messages"] = turns
        if request.tools:
            tools: list[dict[str, Any]] = [
                {"name": t.id, "description": t.description, "input_schema": t.parameters}
                for t in request.tools
            ]
            if cache:
                tools[-1]["cache_control"] = _EPHEMERAL
            body["tools"] = tools
        if cache and turns:
            turns[-1]["content"][-1]["cache_control"] = _EPHEMERAL
        if budget:
            budget = max(budget, _MIN_THINKING_BUDGET)
            body["thinking"] = {"type": "enabled", "budget_tokens": budget}
            max_tokens = max(max_tokens, budget + _MIN_THINKING_BUDGET)
        elif ov.temperature is not None:
            # extended thinking only accepts the default sampling parameters, and recent
            # models reject temperature and top_p together: temperature wins
            body["temperature"] = ov.temperature
        elif ov.top_p is not None:
            body["top_p"] = ov.top_p
        body["max_tokens"] = max_tokens
        body["stream"] = True
        if request.response_format is not None:
            body["output_config"] = {
                "format": {"type": "json_schema", "schema": request.response_format.schema}
            }
        return body

    def supports_response_format(self, request: InferenceRequest) -> bool:
        """Structured outputs: ``output_config.format`` (JSON Schema), with or without tools."""
        return True

    def parser(self, endpoint: ProviderEndpoint) -> StreamParser:
        return AnthropicStreamParser(endpoint.provider_id)


class AnthropicStreamParser(StreamParser):
    """Parses ``message_start`` … ``message_stop`` events."""

    def __init__(self, provider: str) -> None:
        self.provider = provider
        self.done = False
        self._tool_ids: dict[int, str] = {}
        self._usage: dict[str, int] = {}
        self._stop: str | None = None
        self._started = False

    def feed(self, event: SseEvent) -> list[LlmStreamEvent]:
        data = event.json(self.provider)
        if not isinstance(data, dict):
            raise ProviderError(f"malformed stream line from {self.provider}: {event.data[:500]}")
        kind = data.get("type", event.event)
        if kind == "error":
            raise self._stream_error(data.get("error") or {})
        if kind == "message_start":
            self._started = True
            self._add_usage((data.get("message") or {}).get("usage") or {})
            return []
        if kind == "content_block_start":
            block = data.get("content_block") or {}
            if block.get("type") == "tool_use":
                self._tool_ids[data.get("index", 0)] = block["id"]
                return [ToolCallStartChunk(block["id"], block["name"])]
            if block.get("type") == "text" and block.get("text"):
                return [TextDeltaChunk(block["text"])]
            return []
        if kind == "content_block_delta":
            return self._delta(data.get("index", 0), data.get("delta") or {})
        if kind == "content_block_stop":
            return [ContentBlockStopChunk()]
        if kind == "message_delta":
            self._stop = (data.get("delta") or {}).get("stop_reason") or self._stop
            self._add_usage(data.get("usage") or {})
            return []
        if kind == "message_stop":
            self.done = True
        return []

    def _delta(self, index: int, delta: dict[str, Any]) -> list[LlmStreamEvent]:
        kind = delta.get("type")
        if kind == "text_delta" and delta.get("text"):
            return [TextDeltaChunk(delta["text"])]
        if kind == "thinking_delta" and delta.get("thinking"):
            return [ReasoningDeltaChunk(delta["thinking"])]
        if kind == "input_json_delta" and delta.get("partial_json"):
            call_id = self._tool_ids.get(index)
            if call_id is None:
                raise ProviderError(f"{self.provider} sent tool input for unknown block {index}")
            return [ToolCallDeltaChunk(call_id, delta["partial_json"])]
        return []

    def _add_usage(self, usage: dict[str, Any]) -> None:
        for key, value in usage.items():
            if isinstance(value, int):
                self._usage[key] = value  # message_delta reports cumulative counts

    def _stream_error(self, error: dict[str, Any]) -> InferenceExecutionError:
        kind = error.get("type", "error")
        message = f"{self.provider} stream error: {error.get('message', 'unknown')} ({kind})"
        if kind == "rate_limit_error":
            return RateLimited(message)
        if kind in ("overloaded_error", "api_error"):
            return ProviderError(message)
        return classify_message(message)

    def finish(self) -> list[LlmStreamEvent]:
        if not self.done:
            raise ProviderError(f"{self.provider} stream ended before the response was complete")
        out: list[LlmStreamEvent] = []
        if self._usage:
            read = self._usage.get("cache_read_input_tokens")
            created = self._usage.get("cache_creation_input_tokens")
            prompt = self._usage.get("input_tokens", 0) + (read or 0) + (created or 0)
            completion = self._usage.get("output_tokens", 0)
            out.append(
                UsageChunk(
                    TokenUsage(
                        prompt_tokens=prompt,
                        completion_tokens=completion,
                        total_tokens=prompt + completion,
                        cache_read_tokens=read,
                        cache_creation_tokens=created,
                    )
                )
            )
        reason = _STOP_REASONS.get(self._stop or "end_turn", StopReason.END_TURN)
        if reason is StopReason.END_TURN and self._tool_ids:
            reason = StopReason.TOOL_USE
        out.append(StopChunk(reason))
        return out
