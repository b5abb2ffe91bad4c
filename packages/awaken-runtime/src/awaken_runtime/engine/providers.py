"""Known provider adapters, their defaults, and provider resolution from specs and env vars."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from awaken_contract.errors import ProviderAuthError, ProviderError
from awaken_contract.registry_spec import ProviderSpec

from awaken_runtime.engine.adapters.anthropic import AnthropicAdapter
from awaken_runtime.engine.adapters.base import ProviderAdapter, ProviderEndpoint
from awaken_runtime.engine.adapters.gemini import GeminiAdapter
from awaken_runtime.engine.adapters.openai import OpenAiAdapter

__all__ = [
    "ADAPTER_ALIASES",
    "KNOWN_ADAPTERS",
    "AdapterDefaults",
    "adapter_defaults",
    "infer_adapter",
    "provider_from_env",
    "resolve_endpoint",
]


@dataclass(frozen=True)
class AdapterDefaults:
    """Built-in facts about an adapter kind."""

    kind: str
    adapter: ProviderAdapter
    base_url: str | None
    key_envs: tuple[str, ...]
    key_required: bool
    default_model: str | None = None


KNOWN_ADAPTERS: dict[str, AdapterDefaults] = {
    d.kind: d
    for d in (
        AdapterDefaults(
            "openai",
            OpenAiAdapter("openai", native=True),
            "https://api.openai.com/v1",
            ("OPENAI_API_KEY",),
            True,
            "gpt-4o-mini",
        ),
        AdapterDefaults(
            "anthropic",
            AnthropicAdapter(),
            "https://api.anthropic.com/v1",
            ("ANTHROPIC_API_KEY",),
            True,
            "claude-sonnet-4-20250514",
        ),
        AdapterDefaults(
            "deepseek",
            OpenAiAdapter("deepseek", native=False),
            "https://api.deepseek.com/v1",
            ("DEEPSEEK_API_KEY",),
            True,
            "deepseek-chat",
        ),
        AdapterDefaults(
            "gemini",
            GeminiAdapter(),
            "https://generativelanguage.googleapis.com/v1beta",
            ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
            True,
            "gemini-2.5-flash",
        ),
        AdapterDefaults(
            "ollama",
            OpenAiAdapter("ollama", native=False),
            "http://localhost:11434/v1",
            (),
            False,
        ),
        AdapterDefaults(
            "openrouter",
            OpenAiAdapter("openrouter", native=False),
            "https://openrouter.ai/api/v1",
            ("OPENROUTER_API_KEY",),
            True,
        ),
        AdapterDefaults(
            "groq",
            OpenAiAdapter("groq", native=False),
            "https://api.groq.com/openai/v1",
            ("GROQ_API_KEY",),
            True,
        ),
        AdapterDefaults(
            "xai",
            OpenAiAdapter("xai", native=False),
            "https://api.x.ai/v1",
            ("XAI_API_KEY",),
            True,
        ),
        AdapterDefaults(
            "openai_compatible",
            OpenAiAdapter("openai_compatible", native=False),
            None,
            ("LLM_API_KEY",),
            False,
        ),
    )
}

ADAPTER_ALIASES = {
    "openai-compatible": "openai_compatible",
    "compatible": "openai_compatible",
    "custom": "openai_compatible",
    "vllm": "openai_compatible",
    "lmstudio": "openai_compatible",
    "google": "gemini",
    "claude": "anthropic",
}


def adapter_defaults(adapter: str) -> AdapterDefaults:
    """Defaults for an adapter name (aliases accepted); unknown names raise ``ProviderError``."""
    name = adapter.strip().lower()
    name = ADAPTER_ALIASES.get(name, name)
    found = KNOWN_ADAPTERS.get(name)
    if found is None:
        error = ProviderError(
            f"unknown provider adapter {adapter!r} (known: {', '.join(sorted(KNOWN_ADAPTERS))})"
        )
        error.retryable = False
        raise error
    return found


def infer_adapter(model: str, environ: Mapping[str, str]) -> str:
    """The adapter for a bare model name when no provider is configured (genai's rules).

    ``LLM_BASE_URL`` routes everything to that OpenAI-compatible endpoint.
    """
    if environ.get("LLM_BASE_URL"):
        return "openai_compatible"
    name = model.lower().removeprefix("models/")
    if name.startswith("claude"):
        return "anthropic"
    if name.startswith("gemini") or name.startswith("gemma"):
        return "gemini"
    if name.startswith("deepseek"):
        return "deepseek"
    if name.startswith(("gpt", "o1", "o3", "o4", "chatgpt", "ft:gpt", "codex", "text-")):
        return "openai"
    if name.startswith("grok"):
        return "xai"
    return "ollama"


def _missing_key(provider_id: str, kind: str, variables: tuple[str, ...]) -> ProviderAuthError:
    names = " or ".join(variables) if variables else "api_key"
    return ProviderAuthError(
        f"no API key for provider '{provider_id}' ({kind}): set {names} or the provider's api_key"
    )


def resolve_endpoint(spec: ProviderSpec, environ: Mapping[str, str]) -> ProviderEndpoint:
    """Resolve a ``ProviderSpec`` into an endpoint; fails now when a key or URL is missing."""
    defaults = adapter_defaults(spec.adapter)
    api_key = spec.api_key or None
    if api_key is None and spec.api_key_env:
        api_key = environ.get(spec.api_key_env) or None
        if api_key is None:
            raise _missing_key(spec.id, defaults.kind, (spec.api_key_env,))
    if api_key is None:
        api_key = next((environ[v] for v in defaults.key_envs if environ.get(v)), None)
    if api_key is None and defaults.key_required:
        raise _missing_key(spec.id, defaults.kind, defaults.key_envs)

    base_url = spec.base_url
    if base_url is None and defaults.kind == "openai_compatible":
        base_url = environ.get("LLM_BASE_URL") or None
    if base_url is None and defaults.kind == "ollama" and environ.get("OLLAMA_HOST"):
        host = environ["OLLAMA_HOST"]
        host = host if "://" in host else f"http://{host}"
        base_url = host.rstrip("/") + "/v1"
    base_url = base_url or defaults.base_url
    if not base_url:
        error = ProviderError(
            f"provider '{spec.id}' ({defaults.kind}) needs a base_url (or set LLM_BASE_URL)"
        )
        error.retryable = False
        raise error
    return ProviderEndpoint(
        provider_id=spec.id,
        adapter=defaults.adapter,
        base_url=base_url,
        api_key=api_key,
        api_key_env=spec.api_key_env,
        headers=dict(spec.headers),
        timeout_secs=spec.timeout_secs,
        connect_timeout_secs=spec.connect_timeout_secs,
        total_timeout_secs=spec.total_timeout_secs,
        idle_timeout_secs=spec.idle_timeout_secs,
    )


def provider_from_env(
    environ: Mapping[str, str] | None = None,
) -> tuple[ProviderSpec, str] | None:
    """The first provider configured by environment variables, with its default model.

    Checked in order: ``LLM_BASE_URL`` (+ ``LLM_API_KEY``) for any OpenAI-compatible endpoint,
    ``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``DEEPSEEK_API_KEY``, ``GEMINI_API_KEY`` /
    ``GOOGLE_API_KEY``. ``LLM_MODEL`` overrides the default model. The returned spec names the
    variable holding the key (``api_key_env``) rather than copying the key.
    """
    import os

    env = os.environ if environ is None else environ
    model_override = env.get("LLM_MODEL") or None
    if env.get("LLM_BASE_URL"):
        spec = ProviderSpec(
            id="openai_compatible",
            adapter="openai_compatible",
            base_url=env["LLM_BASE_URL"],
            api_key_env="LLM_API_KEY" if env.get("LLM_API_KEY") else None,
        )
        return spec, model_override or "gpt-4o-mini"
    for kind in ("openai", "anthropic", "deepseek", "gemini"):
        defaults = KNOWN_ADAPTERS[kind]
        variable = next((v for v in defaults.key_envs if env.get(v)), None)
        if variable is not None:
            spec = ProviderSpec(id=kind, adapter=kind, api_key_env=variable)
            return spec, model_override or defaults.default_model or ""
    return None
