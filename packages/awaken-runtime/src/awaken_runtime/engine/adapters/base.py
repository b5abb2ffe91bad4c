"""The provider adapter interface and the helpers every adapter shares."""

from __future__ import annotations

import abc
import uuid
from dataclasses import dataclass, field
from typing import Any

from awaken_contract.codec import encode_json
from awaken_contract.contract.content import (
    AnyContentBlock,
    AudioBlock,
    Base64Source,
    DocumentBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    VideoBlock,
)
from awaken_contract.contract.executor import InferenceRequest
from awaken_contract.contract.inference import LlmStreamEvent
from awaken_contract.registry_spec import (
    DEFAULT_IDLE_TIMEOUT_SECS,
    DEFAULT_TOTAL_TIMEOUT_SECS,
    InferenceOverride,
    ReasoningBudget,
    ReasoningEffort,
)

from awaken_runtime.engine.sse import SseEvent

__all__ = [
    "ProviderAdapter",
    "ProviderEndpoint",
    "StreamParser",
    "block_placeholder",
    "compact_json",
    "new_call_id",
    "overrides_of",
    "reasoning_budget",
]


@dataclass(frozen=True)
class ProviderEndpoint:
    """A resolved provider: which adapter, where, with which credentials and timeouts."""

    provider_id: str
    adapter: ProviderAdapter
    base_url: str
    api_key: str | None = field(default=None, repr=False)
    api_key_env: str | None = None
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    timeout_secs: float = 300.0
    connect_timeout_secs: float = 10.0
    total_timeout_secs: float | None = DEFAULT_TOTAL_TIMEOUT_SECS
    idle_timeout_secs: float | None = DEFAULT_IDLE_TIMEOUT_SECS

    @property
    def secrets(self) -> tuple[str | None, ...]:
        """Values that must never appear in an error message."""
        return (self.api_key, *self.headers.values())


class StreamParser(abc.ABC):
    """Turns one provider's SSE events into ``LlmStreamEvent``s (one parser per response)."""

    done: bool = False
    """True once the provider signalled the end of the message."""

    @abc.abstractmethod
    def feed(self, event: SseEvent) -> list[LlmStreamEvent]:
        """Events for one SSE event (raises an ``InferenceExecutionError`` on error events)."""

    @abc.abstractmethod
    def finish(self) -> list[LlmStreamEvent]:
        """Events after the body ended (usage, stop); raises if the stream was cut short."""


class ProviderAdapter(abc.ABC):
    """One provider HTTP API: request body, URL, auth headers and the stream parser."""

    kind: str
    """Adapter name (``openai``, ``anthropic``, ``gemini``)."""

    @abc.abstractmethod
    def url(self, endpoint: ProviderEndpoint, model: str) -> str:
        """The streaming endpoint URL for ``model``."""

    @abc.abstractmethod
    def auth_headers(self, endpoint: ProviderEndpoint) -> dict[str, str]:
        """Headers carrying the credentials and API version."""

    @abc.abstractmethod
    def build_body(self, request: InferenceRequest, endpoint: ProviderEndpoint) -> dict[str, Any]:
        """The JSON request body."""

    @abc.abstractmethod
    def parser(self, endpoint: ProviderEndpoint) -> StreamParser:
        """A fresh parser for one streamed response."""

    def supports_response_format(self, request: InferenceRequest) -> bool:
        """True when :meth:`build_body` sends ``request.response_format`` natively."""
        return False


def overrides_of(request: InferenceRequest) -> InferenceOverride:
    """The request's overrides (an empty override when there are none)."""
    value = request.overrides
    if value is None:
        return InferenceOverride()
    if isinstance(value, InferenceOverride):
        return value
    return InferenceOverride.model_validate(value)


_EFFORT_BUDGETS = {
    ReasoningEffort.LOW: 1024,
    ReasoningEffort.MEDIUM: 4096,
    ReasoningEffort.HIGH: 16384,
    ReasoningEffort.MAX: 32768,
}


def reasoning_budget(effort: ReasoningEffort | ReasoningBudget | None) -> int | None:
    """Thinking tokens for an effort: ``None`` = not requested, ``0`` = disabled."""
    if effort is None:
        return None
    if isinstance(effort, ReasoningBudget):
        return effort.budget
    if effort is ReasoningEffort.NONE:
        return 0
    return _EFFORT_BUDGETS[effort]


def compact_json(value: Any) -> str:
    """Compact JSON text of ``value``."""
    return encode_json(value).decode()


def new_call_id() -> str:
    """A tool call id for providers that do not send one."""
    return f"call_{uuid.uuid4().hex[:24]}"


def block_placeholder(block: AnyContentBlock) -> str:
    """Text standing in for a block the provider cannot take in this position."""
    if isinstance(block, TextBlock):
        return block.text
    if isinstance(block, ThinkingBlock):
        return ""
    if isinstance(block, ToolUseBlock):
        return f"[tool call {block.name} {compact_json(block.input)}]"
    if isinstance(block, ToolResultBlock):
        return "".join(block_placeholder(b) for b in block.content)
    kind = {ImageBlock: "image", DocumentBlock: "document", AudioBlock: "audio"}.get(
        type(block), "video" if isinstance(block, VideoBlock) else "attachment"
    )
    source = block.source
    where = source.media_type if isinstance(source, Base64Source) else source.url
    return f"[{kind}: {where}]"
