"""User-edited configuration: agent, model, provider and MCP server specs.

These are pydantic v2 models: they load from JSON or YAML documents (the loaders live in
``awaken_contract.documents``), give readable validation errors and export JSON Schemas
(``Model.model_json_schema()``).  Field names follow the book
(``AgentSpec.model``, ``InferenceOverride.fallback_models``); the key names of the original's
wire format (``model_id``, ``provider_id``, ``upstream_model``, ``fallback_upstream_models``)
are accepted on input as aliases.
"""

from __future__ import annotations

import enum
import json
import math
from collections.abc import Mapping
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Generic, Self, TypeVar

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    ValidationError,
    field_serializer,
    field_validator,
    model_serializer,
    model_validator,
)

from awaken_contract.documents import (
    ConfigSection,
    Document,
    describe_validation_error,
    parse_config_text,
    parse_document,
    read_config_text,
)
from awaken_contract.errors import KeyDecode, KeyEncode
from awaken_contract.output_schema import DEFAULT_OUTPUT_RETRIES, OutputSchema
from awaken_contract.secrets import Secret, SecretMap

if TYPE_CHECKING:
    from awaken_contract.contract.inference import TokenUsage

__all__ = [
    "DEFAULT_COMPACTION_SYSTEM_PROMPT",
    "DEFAULT_COMPACTION_USER_PROMPT",
    "DEFAULT_IDLE_TIMEOUT_SECS",
    "DEFAULT_TOTAL_TIMEOUT_SECS",
    "MAX_BACKOFF_MS",
    "AgentSpec",
    "AgentSystemConfig",
    "AnyReasoningEffort",
    "CircuitBreakerConfig",
    "CompactionConfig",
    "CompactionConfigKey",
    "ConfigSection",
    "ContextCompactionMode",
    "ContextWindowPolicy",
    "InferenceOverride",
    "LlmRetryPolicy",
    "McpRestartPolicy",
    "McpServerSpec",
    "McpTransport",
    "Modality",
    "ModelBindingSpec",
    "ModelSpec",
    "PluginConfigKey",
    "ProviderSpec",
    "ReasoningBudget",
    "ReasoningEffort",
    "RemoteAuth",
    "RemoteEndpoint",
    "RetryConfigKey",
    "load_config_file",
    "parse_config_text",
    "parse_document",
    "read_config_text",
]

C = TypeVar("C")

_STRICT = ConfigDict(extra="forbid", populate_by_name=True, validate_assignment=True)

MAX_BACKOFF_MS = 8000
"""Upper bound of the retry backoff delay (milliseconds)."""


# ---------------------------------------------------------------------------
# Reasoning effort
# ---------------------------------------------------------------------------


class ReasoningBudget(BaseModel):
    """Explicit reasoning token budget: ``{"budget": 4096}``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    budget: int = Field(ge=0)


class ReasoningEffort(enum.StrEnum):
    """Reasoning effort level; see ``ReasoningEffort.budget(n)`` for a token budget."""

    NONE = "none"
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    MAX = "max"

    @classmethod
    def budget(cls, tokens: int) -> ReasoningBudget:
        """An explicit token budget (the book's ``ReasoningEffort::Budget(n)``)."""
        return ReasoningBudget(budget=tokens)


def _coerce_reasoning(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return {"budget": value}
    if isinstance(value, str) and not isinstance(value, ReasoningEffort):
        return value.strip().lower()
    if isinstance(value, dict) and set(value) == {"Budget"}:
        return {"budget": value["Budget"]}
    return value


AnyReasoningEffort = Annotated[
    ReasoningEffort | ReasoningBudget, BeforeValidator(_coerce_reasoning)
]
"""A reasoning effort level or an explicit budget (``"high"`` or ``{"budget": 4096}``)."""


# ---------------------------------------------------------------------------
# Inference override
# ---------------------------------------------------------------------------


class InferenceOverride(BaseModel):
    """Per-inference parameter overrides; merged field-wise, last non-null value wins."""

    model_config = _STRICT

    model: str | None = Field(
        default=None, validation_alias=AliasChoices("model", "upstream_model")
    )
    fallback_models: list[str] | None = Field(
        default=None, validation_alias=AliasChoices("fallback_models", "fallback_upstream_models")
    )
    temperature: float | None = None
    max_tokens: int | None = Field(default=None, ge=0)
    top_p: float | None = None
    reasoning_effort: AnyReasoningEffort | None = None

    @property
    def upstream_model(self) -> str | None:
        """The spec's name for ``model`` (a provider model name)."""
        return self.model

    @property
    def fallback_upstream_models(self) -> list[str] | None:
        """The spec's name for ``fallback_models``."""
        return self.fallback_models

    def is_empty(self) -> bool:
        """True when every field is null."""
        return all(getattr(self, name) is None for name in type(self).model_fields)

    def merge(self, other: InferenceOverride) -> InferenceOverride:
        """Take ``other``'s non-null fields over this one's (in place); returns ``self``."""
        for name in type(self).model_fields:
            value = getattr(other, name)
            if value is not None:
                setattr(self, name, value)
        return self

    def merged(self, other: InferenceOverride) -> InferenceOverride:
        """A new override equal to ``self`` merged with ``other``."""
        return self.model_copy(deep=True).merge(other)


# ---------------------------------------------------------------------------
# Context window, compaction, retry, circuit breaker
# ---------------------------------------------------------------------------


class ContextCompactionMode(enum.StrEnum):
    """How LLM compaction chooses the part of the history it summarizes."""

    KEEP_RECENT_RAW_SUFFIX = "keep_recent_raw_suffix"
    COMPACT_TO_SAFE_FRONTIER = "compact_to_safe_frontier"


class ContextWindowPolicy(BaseModel):
    """Context window budget, truncation and auto-compaction settings."""

    model_config = _STRICT

    max_context_tokens: int = Field(default=200_000, ge=1)
    max_output_tokens: int = Field(default=16_384, ge=0)
    min_recent_messages: int = Field(default=10, ge=0)
    enable_prompt_cache: bool = True
    autocompact_threshold: int | None = Field(default=None, ge=0)
    compaction_mode: ContextCompactionMode = ContextCompactionMode.KEEP_RECENT_RAW_SUFFIX
    compaction_raw_suffix_messages: int = Field(default=2, ge=0)

    @model_serializer(mode="wrap")
    def _omit_nulls(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("autocompact_threshold") is None:
            data.pop("autocompact_threshold", None)
        return data


DEFAULT_COMPACTION_SYSTEM_PROMPT = (
    "You are a conversation summarizer. Summarize the conversation so far so that it can replace "
    "the original messages. Preserve every fact, decision, constraint, tool call result and open "
    "action item that later turns may rely on. Be concise and do not invent anything."
)
DEFAULT_COMPACTION_USER_PROMPT = (
    "Summarize the following conversation, keeping facts, decisions, tool results and pending "
    "action items:\n\n{messages}"
)


class CompactionConfig(BaseModel):
    """LLM compaction settings (agent section ``compaction``)."""

    model_config = _STRICT

    summarizer_system_prompt: str = DEFAULT_COMPACTION_SYSTEM_PROMPT
    summarizer_user_prompt: str = DEFAULT_COMPACTION_USER_PROMPT
    summary_max_tokens: int | None = Field(default=None, ge=1)
    summary_model: str | None = None
    min_savings_ratio: float = Field(default=0.3, ge=0.0, le=1.0)

    @field_validator("summarizer_user_prompt")
    @classmethod
    def _needs_placeholder(cls, value: str) -> str:
        if "{messages}" not in value:
            raise ValueError("summarizer_user_prompt must contain the {messages} placeholder")
        return value

    def render_user_prompt(self, messages: str) -> str:
        """The user prompt with ``{messages}`` replaced by the rendered transcript."""
        return self.summarizer_user_prompt.replace("{messages}", messages)


class LlmRetryPolicy(BaseModel):
    """Retry and fallback-model policy for inference (agent section ``retry``)."""

    model_config = _STRICT

    max_retries: int = Field(default=2, ge=0)
    fallback_models: list[str] = Field(
        default_factory=list,
        validation_alias=AliasChoices("fallback_models", "fallback_upstream_models"),
    )
    backoff_base_ms: int = Field(default=500, ge=0)

    @property
    def fallback_upstream_models(self) -> list[str]:
        """The spec's name for ``fallback_models``."""
        return self.fallback_models

    def is_enabled(self) -> bool:
        """Whether a retrying wrapper is needed (retries or fallbacks configured)."""
        return self.max_retries > 0 or bool(self.fallback_models)

    def backoff_ms(self, attempt: int) -> int:
        """Delay after failed attempt ``attempt`` (0-based): base * 2**attempt, capped at 8000."""
        if self.backoff_base_ms <= 0:
            return 0
        return int(min(self.backoff_base_ms * (2 ** min(max(attempt, 0), 16)), MAX_BACKOFF_MS))


class CircuitBreakerConfig(BaseModel):
    """Per-model circuit breaker thresholds."""

    model_config = _STRICT

    failure_threshold: int = Field(default=5, ge=1)
    cooldown: timedelta = timedelta(seconds=30)
    half_open_max: int = Field(default=1, ge=1)


# ---------------------------------------------------------------------------
# Typed plugin config sections
# ---------------------------------------------------------------------------


class PluginConfigKey(Generic[C]):
    """Binds an agent-spec section name (``KEY``) to its config type (``CONFIG``).

    Subclass with ``KEY = "retry"`` and ``CONFIG = LlmRetryPolicy``; ``CONFIG`` is usually a
    pydantic model (any type pydantic can validate and that builds with no arguments works).
    """

    KEY: ClassVar[str]
    CONFIG: type[C]

    @classmethod
    def default(cls) -> C:
        """The config used when the section is absent."""
        return cls.CONFIG()

    @classmethod
    def decode(cls, raw: Any) -> C:
        """Validate a section value (raises ``KeyDecode``)."""
        try:
            return TypeAdapter(cls.CONFIG).validate_python(raw)
        except ValidationError as exc:
            raise KeyDecode(cls.KEY, describe_validation_error(exc)) from exc

    @classmethod
    def encode(cls, value: C) -> Any:
        """Serialize a config value to JSON-compatible data (raises ``KeyEncode``)."""
        try:
            if not isinstance(value, cls.CONFIG):
                value = TypeAdapter(cls.CONFIG).validate_python(value)
            return TypeAdapter(cls.CONFIG).dump_python(value, mode="json")
        except (ValidationError, ValueError, TypeError) as exc:
            raise KeyEncode(cls.KEY, str(exc)) from exc

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """JSON Schema of the section."""
        return TypeAdapter(cls.CONFIG).json_schema()


class RetryConfigKey(PluginConfigKey[LlmRetryPolicy]):
    """Section ``retry`` → ``LlmRetryPolicy``."""

    KEY = "retry"
    CONFIG = LlmRetryPolicy


class CompactionConfigKey(PluginConfigKey[CompactionConfig]):
    """Section ``compaction`` → ``CompactionConfig``."""

    KEY = "compaction"
    CONFIG = CompactionConfig


# ---------------------------------------------------------------------------
# Remote endpoint
# ---------------------------------------------------------------------------


class RemoteAuth(BaseModel):
    """Authentication for a remote backend: ``{"type": "bearer", "token": "..."}``."""

    model_config = ConfigDict(extra="allow")

    type: str

    @classmethod
    def bearer(cls, token: str) -> RemoteAuth:
        """Bearer-token authentication."""
        return cls(type="bearer", token=token)

    @property
    def params(self) -> dict[str, Any]:
        """Backend-specific parameters (everything except ``type``)."""
        return dict(self.model_extra or {})

    def __repr__(self) -> str:
        return f"RemoteAuth(type={self.type!r}, params=<redacted>)"


_LEGACY_ENDPOINT_KEYS = ("bearer_token", "agent_id", "poll_interval_ms")


class RemoteEndpoint(Document):
    """Where a remote (delegated) agent lives, e.g. an A2A endpoint."""

    model_config = _STRICT

    backend: str = "a2a"
    base_url: str
    auth: RemoteAuth | None = None
    target: str | None = None
    timeout_ms: int = Field(default=300_000, ge=1)
    options: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _legacy_keys(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        legacy = [k for k in _LEGACY_ENDPOINT_KEYS if k in data]
        if not legacy:
            return data
        modern = [k for k in ("backend", "auth", "target") if k in data]
        if data.get("options"):
            modern.append("options")
        if modern:
            raise ValueError(
                f"legacy endpoint keys {legacy} cannot be mixed with {modern}; "
                "use backend/auth/target/options only"
            )
        out = {k: v for k, v in data.items() if k not in _LEGACY_ENDPOINT_KEYS}
        out.pop("options", None)
        out["backend"] = "a2a"
        if data.get("bearer_token") is not None:
            out["auth"] = {"type": "bearer", "token": data["bearer_token"]}
        if data.get("agent_id") is not None:
            out["target"] = data["agent_id"]
        if data.get("poll_interval_ms") is not None:
            out["options"] = {"poll_interval_ms": data["poll_interval_ms"]}
        return out

    @field_validator("backend")
    @classmethod
    def _backend_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("backend must not be empty")
        return value.strip()

    @field_validator("base_url")
    @classmethod
    def _base_url_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("base_url must not be empty")
        return value.strip()

    @classmethod
    def a2a(cls, base_url: str, target: str | None = None) -> RemoteEndpoint:
        """An A2A endpoint."""
        return cls(backend="a2a", base_url=base_url, target=target)

    def with_bearer_token(self, token: str) -> RemoteEndpoint:
        """A copy authenticated with a bearer token."""
        return self.model_copy(update={"auth": RemoteAuth.bearer(token)})

    @model_serializer(mode="wrap")
    def _omit_empty(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for key in ("auth", "target"):
            if data.get(key) is None:
                data.pop(key, None)
        if not data.get("options"):
            data.pop("options", None)
        return data


# ---------------------------------------------------------------------------
# Agent spec
# ---------------------------------------------------------------------------


def _json_compatible(value: Any, key: str) -> Any:
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError) as exc:
        raise KeyEncode(key, str(exc)) from exc


class AgentSpec(Document):
    """A serializable agent definition (the book's ``AgentSpec``).

    ``AgentSpec("assistant")`` builds one in code; ``AgentSpec.from_file(path)`` loads one.
    ``model`` names an entry of the model registry (input key ``model_id`` is accepted too).
    Builder methods (``with_*``) return a new spec and leave the original unchanged.
    """

    model_config = _STRICT

    id: str = Field(min_length=1)
    model: str = Field(default="", validation_alias=AliasChoices("model", "model_id"))
    system_prompt: str = ""
    max_rounds: int = Field(default=16, ge=0)
    max_continuation_retries: int = Field(default=2, ge=0)
    context_policy: ContextWindowPolicy | None = None
    reasoning_effort: AnyReasoningEffort | None = None
    plugin_ids: list[str] = Field(default_factory=list)
    active_hook_filter: set[str] = Field(
        default_factory=set,
        validation_alias=AliasChoices("active_hook_filter", "active_plugins"),
    )
    allowed_tools: list[str] | None = None
    excluded_tools: list[str] | None = None
    endpoint: RemoteEndpoint | None = None
    delegates: list[str] = Field(default_factory=list)
    sections: dict[str, Any] = Field(default_factory=dict)
    registry: str | None = None
    output_schema: OutputSchema | None = None

    if TYPE_CHECKING:

        def __init__(self, id: str | None = None, /, **data: Any) -> None: ...

    else:

        def __init__(self, id: str | None = None, /, **data: Any) -> None:
            if id is not None:
                if "id" in data:
                    raise TypeError("AgentSpec() got the id both positionally and by keyword")
                data["id"] = id
            super().__init__(**data)

    @model_validator(mode="before")
    @classmethod
    def _one_model_key(cls, data: Any) -> Any:
        if isinstance(data, dict) and "model" in data and "model_id" in data:
            if data["model"] != data["model_id"]:
                raise ValueError("both 'model' and 'model_id' given with different values")
            data = {k: v for k, v in data.items() if k != "model_id"}
        return data

    @field_serializer("active_hook_filter")
    def _sorted_filter(self, value: set[str]) -> list[str]:
        return sorted(value)

    @model_serializer(mode="wrap")
    def _omit_empty(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for key in ("context_policy", "reasoning_effort", "endpoint", "registry", "output_schema"):
            if data.get(key) is None:
                data.pop(key, None)
        for key in ("active_hook_filter", "delegates", "sections"):
            if not data.get(key):
                data.pop(key, None)
        return data

    # -- compatibility ---------------------------------------------------

    @property
    def model_id(self) -> str:
        """The spec's name for ``model`` (a model registry id)."""
        return self.model

    def is_remote(self) -> bool:
        """True when the agent runs behind a remote ``endpoint``."""
        return self.endpoint is not None

    # -- builder ---------------------------------------------------------

    def _with(self, **changes: Any) -> AgentSpec:
        spec = self.model_copy(deep=True)
        for name, value in changes.items():
            setattr(spec, name, value)
        return spec

    def with_model(self, model: str) -> AgentSpec:
        """Set the model registry id."""
        return self._with(model=model)

    def with_model_id(self, model_id: str) -> AgentSpec:
        """Alias of ``with_model``."""
        return self._with(model=model_id)

    def with_system_prompt(self, prompt: str) -> AgentSpec:
        """Set the system prompt."""
        return self._with(system_prompt=prompt)

    def with_max_rounds(self, rounds: int) -> AgentSpec:
        """Set the maximum number of inference rounds."""
        return self._with(max_rounds=rounds)

    def with_max_continuation_retries(self, retries: int) -> AgentSpec:
        """Set how often a truncated answer is continued."""
        return self._with(max_continuation_retries=retries)

    def with_context_policy(self, policy: ContextWindowPolicy) -> AgentSpec:
        """Set the context window policy."""
        return self._with(context_policy=policy)

    def with_reasoning_effort(self, effort: ReasoningEffort | ReasoningBudget | str) -> AgentSpec:
        """Set the reasoning effort."""
        return self._with(reasoning_effort=effort)

    def with_hook_filter(self, plugin_id: str) -> AgentSpec:
        """Add a plugin id to the active hook filter (empty filter = all plugins active)."""
        return self._with(active_hook_filter={*self.active_hook_filter, plugin_id})

    def with_plugin(self, plugin_id: str) -> AgentSpec:
        """Append a plugin id to ``plugin_ids`` (no duplicates)."""
        if plugin_id in self.plugin_ids:
            return self._with()
        return self._with(plugin_ids=[*self.plugin_ids, plugin_id])

    def with_allowed_tools(self, tools: list[str] | tuple[str, ...] | None) -> AgentSpec:
        """Restrict the agent to these tool ids (``None`` = all tools)."""
        return self._with(allowed_tools=None if tools is None else list(tools))

    def with_excluded_tools(self, tools: list[str] | tuple[str, ...] | None) -> AgentSpec:
        """Hide these tool ids from the agent."""
        return self._with(excluded_tools=None if tools is None else list(tools))

    def with_delegate(self, agent_id: str) -> AgentSpec:
        """Append a delegate agent id."""
        return self._with(delegates=[*self.delegates, agent_id])

    def with_endpoint(self, endpoint: RemoteEndpoint) -> AgentSpec:
        """Make this a remote agent reachable through ``endpoint``."""
        return self._with(endpoint=endpoint)

    def with_registry(self, registry: str) -> AgentSpec:
        """Record the registry this spec was sourced from."""
        return self._with(registry=registry)

    def with_output_schema(
        self,
        schema: type[BaseModel] | Mapping[str, Any] | OutputSchema,
        *,
        name: str | None = None,
        strict: bool | None = None,
        max_retries: int = DEFAULT_OUTPUT_RETRIES,
    ) -> AgentSpec:
        """Ask for the final answer in this shape (a pydantic model class or a JSON Schema);
        the run returns it validated as ``result.output``."""
        output = OutputSchema.of(schema, name=name, strict=strict, max_retries=max_retries)
        return self._with(output_schema=output)

    def with_section(self, key: str, value: Any) -> AgentSpec:
        """Set a raw (JSON) config section."""
        return self._with(sections={**self.sections, key: _json_compatible(value, key)})

    def with_config(self, key: type[PluginConfigKey[C]], value: C) -> AgentSpec:
        """Set a typed config section (raises ``KeyEncode``)."""
        return self._with(sections={**self.sections, key.KEY: key.encode(value)})

    # -- typed sections --------------------------------------------------

    def config(self, key: type[PluginConfigKey[C]]) -> C:
        """The typed section ``key.KEY``: its default when absent, ``KeyDecode`` if invalid."""
        if key.KEY not in self.sections:
            return key.default()
        return key.decode(self.sections[key.KEY])

    def set_config(self, key: type[PluginConfigKey[C]], value: C) -> None:
        """Store a typed section in place (raises ``KeyEncode``)."""
        self.sections = {**self.sections, key.KEY: key.encode(value)}

    def section(self, key: str) -> Any | None:
        """The raw section value, or ``None``."""
        return self.sections.get(key)


# ---------------------------------------------------------------------------
# Models and providers
# ---------------------------------------------------------------------------


class Modality(enum.StrEnum):
    """An input/output modality of a model."""

    TEXT = "text"
    IMAGE = "image"
    AUDIO = "audio"
    VIDEO = "video"
    DOCUMENT = "document"


def _is_iso_date(value: str) -> bool:
    """``YYYY-MM`` or ``YYYY-MM-DD`` naming a real month/day."""
    parts = value.split("-")
    if len(parts) not in (2, 3) or len(parts[0]) != 4 or any(len(p) != 2 for p in parts[1:]):
        return False
    try:
        date.fromisoformat(value if len(parts) == 3 else f"{value}-01")
    except ValueError:
        return False
    return True


class ModelSpec(Document):
    """A model registry entry: stable id → provider + upstream model name, capabilities, pricing.

    Prices are in currency units (usually USD) per million tokens.
    """

    model_config = _STRICT

    id: str = Field(min_length=1)
    provider: str = Field(min_length=1, validation_alias=AliasChoices("provider", "provider_id"))
    model: str = Field(min_length=1, validation_alias=AliasChoices("model", "upstream_model"))
    context_window: int | None = Field(default=None, ge=1)
    max_output_tokens: int | None = Field(default=None, ge=1)
    input_modalities: list[Modality] = Field(default_factory=list)
    output_modalities: list[Modality] = Field(default_factory=list)
    knowledge_cutoff: str | None = None
    input_price_per_mtok: float | None = Field(default=None, ge=0)
    output_price_per_mtok: float | None = Field(default=None, ge=0)
    cache_read_price_per_mtok: float | None = Field(default=None, ge=0)
    cache_write_price_per_mtok: float | None = Field(default=None, ge=0)

    @field_validator("knowledge_cutoff")
    @classmethod
    def _iso_cutoff(cls, value: str | None) -> str | None:
        if value is not None and not _is_iso_date(value):
            raise ValueError(f"knowledge_cutoff must be a date (YYYY-MM or YYYY-MM-DD): {value!r}")
        return value

    @model_validator(mode="after")
    def _output_fits_window(self) -> Self:
        window, output = self.context_window, self.max_output_tokens
        if window is not None and output is not None and output > window:
            raise ValueError(f"max_output_tokens ({output}) exceeds the context_window ({window})")
        return self

    @property
    def provider_id(self) -> str:
        """The spec's name for ``provider``."""
        return self.provider

    @property
    def upstream_model(self) -> str:
        """The spec's name for ``model`` (the provider's model name)."""
        return self.model

    def has_pricing(self) -> bool:
        """True when input and output prices are known."""
        return self.input_price_per_mtok is not None and self.output_price_per_mtok is not None

    def supports_input(self, modality: Modality | str) -> bool:
        """Whether the model accepts ``modality`` (unknown capabilities: only text)."""
        modalities = self.input_modalities or [Modality.TEXT]
        return Modality(modality) in modalities

    def cost(self, usage: TokenUsage | None) -> float | None:
        """Cost of one call, or ``None`` when prices or usage are unknown.

        ``usage.prompt_tokens`` counts every input token including cache reads and writes;
        cached tokens are billed at the cache prices (input price when those are unset).
        """
        in_price, out_price = self.input_price_per_mtok, self.output_price_per_mtok
        if usage is None or in_price is None or out_price is None:
            return None
        if usage.prompt_tokens is None and usage.completion_tokens is None:
            return None
        prompt = usage.prompt_tokens or 0
        completion = usage.completion_tokens or 0
        cache_read = usage.cache_read_tokens or 0
        cache_write = usage.cache_creation_tokens or 0
        uncached = max(prompt - cache_read - cache_write, 0)
        read_price = self.cache_read_price_per_mtok
        write_price = self.cache_write_price_per_mtok
        total = (
            uncached * in_price
            + cache_read * (in_price if read_price is None else read_price)
            + cache_write * (in_price if write_price is None else write_price)
            + completion * out_price
        ) / 1_000_000
        return total if math.isfinite(total) else None

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for key in list(data):
            if data[key] is None or (key.endswith("_modalities") and not data[key]):
                del data[key]
        return data


ModelBindingSpec = ModelSpec
"""The original's name for ``ModelSpec`` (keys ``provider_id`` / ``upstream_model``)."""


#: Defaults of ``ProviderSpec.total_timeout_secs`` / ``idle_timeout_secs``.
DEFAULT_TOTAL_TIMEOUT_SECS = 1800.0
DEFAULT_IDLE_TIMEOUT_SECS = 300.0


class ProviderSpec(Document):
    """How to reach an LLM provider: adapter kind, credentials, endpoint and timeouts."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True, validate_assignment=True)

    id: str = Field(min_length=1)
    adapter: str = Field(min_length=1)
    api_key: Secret | None = Field(default=None, repr=False)
    api_key_env: str | None = None
    base_url: str | None = None
    headers: SecretMap = Field(default_factory=dict, repr=False)
    timeout_secs: float = Field(default=300, gt=0)
    connect_timeout_secs: float = Field(default=10, gt=0)
    total_timeout_secs: float | None = Field(default=DEFAULT_TOTAL_TIMEOUT_SECS, gt=0)
    """Longest one inference may take from request to last event (``None``: no limit)."""
    idle_timeout_secs: float | None = Field(default=DEFAULT_IDLE_TIMEOUT_SECS, gt=0)
    """Longest wait for the next stream event; keep-alive bytes do not count (``None``: off)."""

    @field_validator("adapter")
    @classmethod
    def _normalize_adapter(cls, value: str) -> str:
        return value.strip().lower()

    def resolve_api_key(self, environ: dict[str, str] | None = None) -> str | None:
        """``api_key``, else the value of the ``api_key_env`` variable, else ``None``."""
        if self.api_key:
            return self.api_key
        if self.api_key_env:
            import os

            env = os.environ if environ is None else environ
            value = env.get(self.api_key_env)
            return value or None
        return None

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for key in ("api_key", "api_key_env", "base_url"):
            if data.get(key) is None:
                data.pop(key, None)
        if not data.get("headers"):
            data.pop("headers", None)
        return data


# ---------------------------------------------------------------------------
# MCP servers
# ---------------------------------------------------------------------------


class McpTransport(enum.StrEnum):
    """Transport of an MCP server connection (``sse`` is the legacy HTTP+SSE transport)."""

    STDIO = "stdio"
    HTTP = "http"
    SSE = "sse"


class McpRestartPolicy(BaseModel):
    """Reconnect policy of an MCP server."""

    model_config = _STRICT

    enabled: bool = False
    max_attempts: int | None = Field(default=None, ge=0)
    delay_ms: int = Field(default=1000, ge=0)
    backoff_multiplier: float = Field(default=2.0, ge=1.0)
    max_delay_ms: int = Field(default=30_000, ge=0)


class McpServerSpec(Document):
    """One MCP server: a managed entry (namespace ``mcp-servers``) and what the MCP extension
    connects to.

    ``stdio`` spawns ``command args…`` (``env`` is added to the inherited environment, ``cwd``
    is the working directory); ``http`` (Streamable HTTP) and ``sse`` (legacy HTTP+SSE) connect
    to ``url`` sending ``headers`` with every request. ``timeout_secs`` bounds every request
    (clamped to ≥ 1). ``restart_policy`` drives automatic reconnects after the server dies.
    ``name`` is accepted for ``id`` (the extension's spelling).
    """

    model_config = _STRICT

    id: str = Field(min_length=1, validation_alias=AliasChoices("id", "name"))
    transport: McpTransport
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    url: str | None = None
    config: dict[str, Any] = Field(default_factory=dict)
    timeout_secs: int = 30
    env: SecretMap = Field(default_factory=dict)
    cwd: str | None = None
    headers: SecretMap = Field(default_factory=dict)
    restart_policy: McpRestartPolicy = Field(default_factory=McpRestartPolicy)

    @field_validator("id", mode="before")
    @classmethod
    def _id_not_blank(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            raise ValueError("server name must be non-empty (id must not be blank)")
        return value.strip() if isinstance(value, str) else value

    @field_validator("timeout_secs")
    @classmethod
    def _clamp_timeout(cls, value: int) -> int:
        return max(value, 1)

    @model_validator(mode="after")
    def _transport_fields(self) -> Self:
        if self.transport is McpTransport.STDIO:
            if not (self.command or "").strip():
                raise ValueError("stdio transport requires a non-blank 'command'")
            self.__dict__["command"] = (self.command or "").strip()
        else:
            url = (self.url or "").strip()
            if not url:
                raise ValueError(f"{self.transport.value} transport requires a non-blank 'url'")
            if not url.startswith(("http://", "https://")):
                raise ValueError(f"url must start with http:// or https://, got {url!r}")
            self.__dict__["url"] = url
        return self

    # ------------------------------------------------------------------ constructors
    @classmethod
    def stdio(cls, id: str, command: str, args: list[str] | None = None, **options: Any) -> Self:
        """A server started as a subprocess speaking newline-delimited JSON-RPC on stdio."""
        return cls(
            id=id, transport=McpTransport.STDIO, command=command, args=list(args or []), **options
        )

    @classmethod
    def http(cls, id: str, url: str, **options: Any) -> Self:
        """A Streamable HTTP server."""
        return cls(id=id, transport=McpTransport.HTTP, url=url, **options)

    @classmethod
    def sse(cls, id: str, url: str, **options: Any) -> Self:
        """A legacy HTTP+SSE server (``url`` is the SSE endpoint)."""
        return cls(id=id, transport=McpTransport.SSE, url=url, **options)

    # ------------------------------------------------------------------ helpers
    @property
    def name(self) -> str:
        """The server name (= ``id``): the middle part of its tools' ids."""
        return self.id

    def with_env(self, key: str, value: str) -> Self:
        """Add an environment variable (stdio)."""
        return self.model_copy(update={"env": {**self.env, key: value}})

    def with_cwd(self, cwd: str | Path) -> Self:
        """Set the working directory (stdio)."""
        return self.model_copy(update={"cwd": str(cwd)})

    def with_header(self, key: str, value: str) -> Self:
        """Add an HTTP header (http / sse)."""
        return self.model_copy(update={"headers": {**self.headers, key: value}})

    def with_timeout(self, seconds: int) -> Self:
        """Set the per-request timeout (clamped to ≥ 1 s)."""
        return self.model_copy(update={"timeout_secs": max(seconds, 1)})

    def with_restart_policy(self, policy: McpRestartPolicy) -> Self:
        """Set the automatic reconnect policy."""
        return self.model_copy(update={"restart_policy": policy})

    def reconnect_delay(self, attempt: int) -> float:
        """Seconds to wait before reconnect ``attempt`` (0-based):
        ``delay_ms * backoff_multiplier**attempt`` capped at ``max_delay_ms``."""
        policy = self.restart_policy
        delay_ms = policy.delay_ms * policy.backoff_multiplier ** max(attempt, 0)
        return min(delay_ms, float(policy.max_delay_ms)) / 1000.0

    @property
    def max_reconnect_attempts(self) -> int:
        """Attempts before the server is marked permanently failed (default 5)."""
        attempts = self.restart_policy.max_attempts
        return 5 if attempts is None else attempts

    @model_serializer(mode="wrap")
    def _omit_empty(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for key in ("command", "url", "cwd"):
            if data.get(key) is None:
                data.pop(key, None)
        for key in ("args", "config", "env", "headers"):
            if not data.get(key):
                data.pop(key, None)
        return data


# ---------------------------------------------------------------------------
# Whole-system config file
# ---------------------------------------------------------------------------


class AgentSystemConfig(Document):
    """A configuration file with providers, models, agents and MCP servers."""

    model_config = _STRICT

    providers: list[ProviderSpec] = Field(default_factory=list)
    models: list[ModelSpec] = Field(default_factory=list)
    agents: list[AgentSpec] = Field(default_factory=list)
    mcp_servers: list[McpServerSpec] = Field(
        default_factory=list, validation_alias=AliasChoices("mcp_servers", "mcp-servers")
    )

    @model_validator(mode="after")
    def _unique_ids(self) -> Self:
        for label, items in (
            ("provider", self.providers),
            ("model", self.models),
            ("agent", self.agents),
            ("mcp server", self.mcp_servers),
        ):
            seen: set[str] = set()
            for item in items:
                if item.id in seen:
                    raise ValueError(f"duplicate {label} id: {item.id}")
                seen.add(item.id)
        return self

    def agent(self, agent_id: str) -> AgentSpec | None:
        """The agent with ``agent_id``, or ``None``."""
        return next((a for a in self.agents if a.id == agent_id), None)

    def model_spec(self, model_id: str) -> ModelSpec | None:
        """The model entry with ``model_id``, or ``None``."""
        return next((m for m in self.models if m.id == model_id), None)

    def provider(self, provider_id: str) -> ProviderSpec | None:
        """The provider with ``provider_id``, or ``None``."""
        return next((p for p in self.providers if p.id == provider_id), None)


def load_config_file(path: str | Path) -> AgentSystemConfig:
    """Load an ``AgentSystemConfig`` from a ``.json``, ``.yaml`` or ``.yml`` file.

    Raises ``ConfigLoadError`` for unreadable files, unknown extensions, syntax errors and
    validation errors (the message names the file and the offending field).
    """
    return AgentSystemConfig.from_file(path)
