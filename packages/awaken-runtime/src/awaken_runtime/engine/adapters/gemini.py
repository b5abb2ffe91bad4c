"""Google Gemini ``streamGenerateContent`` (SSE)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import msgspec
from awaken_contract.contract.content import (
    AnyContentBlock,
    AudioBlock,
    Base64Source,
    DocumentBlock,
    ImageBlock,
    TextBlock,
    VideoBlock,
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

from awaken_runtime.engine.adapters.base import (
    ProviderAdapter,
    ProviderEndpoint,
    StreamParser,
    block_placeholder,
    compact_json,
    new_call_id,
    overrides_of,
    reasoning_budget,
)
from awaken_runtime.engine.errors import classify_message, provider_message
from awaken_runtime.engine.sse import SseEvent

__all__ = ["SKIP_THOUGHT_SIGNATURE", "GeminiAdapter", "GeminiStreamParser", "gemini_schema"]

SKIP_THOUGHT_SIGNATURE = "skip_thought_signature_validator"

# Keys of the OpenAPI schema subset Gemini accepts for function parameters.
_SCHEMA_KEYS = frozenset(
    {
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "maxItems",
        "minItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "anyOf",
        "propertyOrdering",
        "default",
        "items",
        "minimum",
        "maximum",
    }
)

_FINISH = {
    "STOP": StopReason.END_TURN,
    "MAX_TOKENS": StopReason.MAX_TOKENS,
}


def gemini_schema(schema: Any) -> Any:
    """A JSON Schema reduced to the subset Gemini accepts (``$schema``, ``additionalProperties``
    and other unsupported keys dropped; ``type: [x, "null"]`` becomes ``nullable``)."""
    if isinstance(schema, list):
        return [gemini_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key not in _SCHEMA_KEYS:
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: gemini_schema(sub) for name, sub in value.items()}
        elif key == "type" and isinstance(value, list):
            kinds = [t for t in value if t != "null"]
            out["type"] = kinds[0] if kinds else "string"
            if "null" in value:
                out["nullable"] = True
        elif key in ("items", "anyOf"):
            out[key] = gemini_schema(value)
        else:
            out[key] = value
    return out


def _part(block: AnyContentBlock) -> dict[str, Any] | None:
    if isinstance(block, TextBlock):
        return {"text": block.text} if block.text else None
    if isinstance(block, ImageBlock | DocumentBlock | AudioBlock | VideoBlock):
        src = block.source
        if isinstance(src, Base64Source):
            return {"inlineData": {"mimeType": src.media_type, "data": src.data}}
        return {"fileData": {"fileUri": src.url}}
    text = block_placeholder(block)
    return {"text": text} if text else None


def _tool_response(text: str) -> dict[str, Any]:
    try:
        value = msgspec.json.decode(text)
    except msgspec.DecodeError:
        value = text
    return value if isinstance(value, dict) else {"result": value}


@dataclass
class GeminiAdapter(ProviderAdapter):
    """Gemini API (``generativelanguage.googleapis.com``)."""

    kind: str = "gemini"

    def url(self, endpoint: ProviderEndpoint, model: str) -> str:
        name = model if model.startswith("models/") else f"models/{model}"
        return f"{endpoint.base_url.rstrip('/')}/{quote(name)}:streamGenerateContent?alt=sse"

    def auth_headers(self, endpoint: ProviderEndpoint) -> dict[str, str]:
        return {"x-goog-api-key": endpoint.api_key} if endpoint.api_key else {}

    def build_body(self, request: InferenceRequest, endpoint: ProviderEndpoint) -> dict[str, Any]:
        system = [text_of(request.system)] if request.system else []
        messages = list(request.messages)
        while messages and messages[0].role is Role.SYSTEM:
            system.append(text_of(messages.pop(0).content))
        call_names: dict[str, str] = {}
        contents: list[dict[str, Any]] = []
        for msg in messages:
            role, parts = self._turn(msg, call_names)
            if not parts:
                continue
            if contents and contents[-1]["role"] == role:
                contents[-1]["parts"].extend(parts)
            else:
                contents.append({"role": role, "parts": parts})

        body: dict[str, Any] = {"contents": contents}
        system = [s for s in system if s]
        if system:
            body["systemInstruction"] = {"parts": [{"text": s} for s in system]}
        if request.tools:
            body["tools"] = [
                {
                    "functionDeclarations": [
                        {
                            "name": t.id,
                            "description": t.description,
                            "parameters": gemini_schema(t.parameters),
                        }
                        for t in request.tools
                    ]
                }
            ]
        ov = overrides_of(request)
        config: dict[str, Any] = {}
        if ov.temperature is not None:
            config["temperature"] = ov.temperature
        if ov.top_p is not None:
            config["topP"] = ov.top_p
        if ov.max_tokens is not None:
            config["maxOutputTokens"] = ov.max_tokens
        budget = reasoning_budget(ov.reasoning_effort)
        if budget is not None:
            config["thinkingConfig"] = {"thinkingBudget": budget, "includeThoughts": budget > 0}
        if request.response_format is not None and not request.tools:
            config["responseMimeType"] = "application/json"
            config["responseSchema"] = gemini_schema(request.response_format.schema)
        if config:
            body["generationConfig"] = config
        return body

    def supports_response_format(self, request: InferenceRequest) -> bool:
        """``responseMimeType`` + ``responseSchema``, only without tools (JSON mode and
        function calling do not combine on every Gemini model)."""
        return not request.tools

    @staticmethod
    def _turn(msg: Message, call_names: dict[str, str]) -> tuple[str, list[dict[str, Any]]]:
        if msg.role is Role.ASSISTANT:
            parts = [p for p in (_part(b) for b in msg.content) if p]
            for call in msg.tool_calls or []:
                call_names[call.id] = call.name
                parts.append(
                    {
                        "functionCall": {"name": call.name, "args": call.arguments},
                        # Gemini 3 rejects replayed calls without the model's signature; the
                        # stream's signatures are not kept, so use Google's documented bypass
                        "thoughtSignature": SKIP_THOUGHT_SIGNATURE,
                    }
                )
            return "model", parts
        if msg.role is Role.TOOL:
            call_id = msg.tool_call_id or ""
            text = "".join(block_placeholder(b) for b in msg.content)
            response = {
                "functionResponse": {
                    "name": call_names.get(call_id, call_id),
                    "response": _tool_response(text),
                }
            }
            return "user", [response]
        return "user", [p for p in (_part(b) for b in msg.content) if p]

    def parser(self, endpoint: ProviderEndpoint) -> StreamParser:
        return GeminiStreamParser(endpoint.provider_id)


class GeminiStreamParser(StreamParser):
    """Each SSE event is a ``GenerateContentResponse``; function calls arrive whole."""

    def __init__(self, provider: str) -> None:
        self.provider = provider
        self.done = False
        self._finish: str | None = None
        self._calls = 0
        self._usage: TokenUsage | None = None

    def feed(self, event: SseEvent) -> list[LlmStreamEvent]:
        data = event.json(self.provider)
        if isinstance(data, list) and len(data) == 1:
            data = data[0]
        if not isinstance(data, dict):
            raise ProviderError(f"malformed stream line from {self.provider}: {event.data[:500]}")
        if "error" in data:
            raise classify_message(
                f"{self.provider} stream error: {provider_message(event.data.encode())}"
            )
        out: list[LlmStreamEvent] = []
        candidates = data.get("candidates") or []
        if candidates:
            candidate = candidates[0]
            for part in (candidate.get("content") or {}).get("parts") or []:
                out.extend(self._part(part))
            if candidate.get("finishReason"):
                self._finish = candidate["finishReason"]
        usage = data.get("usageMetadata")
        if isinstance(usage, dict):
            thoughts = usage.get("thoughtsTokenCount")
            candidates_tokens = usage.get("candidatesTokenCount")
            completion = None
            if candidates_tokens is not None or thoughts is not None:
                completion = (candidates_tokens or 0) + (thoughts or 0)
            self._usage = TokenUsage(
                prompt_tokens=usage.get("promptTokenCount"),
                completion_tokens=completion,
                total_tokens=usage.get("totalTokenCount"),
                cache_read_tokens=usage.get("cachedContentTokenCount"),
                thinking_tokens=thoughts,
            )
        return out

    def _part(self, part: dict[str, Any]) -> list[LlmStreamEvent]:
        call = part.get("functionCall")
        if isinstance(call, dict):
            self._calls += 1
            call_id = call.get("id") or new_call_id()
            return [
                ToolCallStartChunk(call_id, call["name"]),
                ToolCallDeltaChunk(call_id, compact_json(call.get("args") or {})),
            ]
        text = part.get("text")
        if isinstance(text, str) and text:
            return [ReasoningDeltaChunk(text) if part.get("thought") else TextDeltaChunk(text)]
        return []

    def finish(self) -> list[LlmStreamEvent]:
        if self._finish is None:
            raise ProviderError(f"{self.provider} stream ended before the response was complete")
        self.done = True
        out: list[LlmStreamEvent] = []
        if self._usage is not None:
            out.append(UsageChunk(self._usage))
        reason = _FINISH.get(self._finish, StopReason.END_TURN)
        if self._calls and reason is StopReason.END_TURN:
            reason = StopReason.TOOL_USE
        out.append(StopChunk(reason))
        return out
