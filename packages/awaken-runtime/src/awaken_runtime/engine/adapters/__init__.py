"""Provider HTTP APIs: request bodies, auth headers and stream parsers."""

from awaken_runtime.engine.adapters.anthropic import AnthropicAdapter
from awaken_runtime.engine.adapters.base import ProviderAdapter, ProviderEndpoint, StreamParser
from awaken_runtime.engine.adapters.gemini import GeminiAdapter
from awaken_runtime.engine.adapters.openai import OpenAiAdapter

__all__ = [
    "AnthropicAdapter",
    "GeminiAdapter",
    "OpenAiAdapter",
    "ProviderAdapter",
    "ProviderEndpoint",
    "StreamParser",
]
