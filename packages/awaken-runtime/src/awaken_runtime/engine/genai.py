"""``GenaiExecutor``: the LLM executor that talks to real providers over HTTP streaming."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator, Mapping

import httpx
import msgspec
from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.inference import LlmStreamEvent, StreamResult
from awaken_contract.errors import InferenceExecutionError
from awaken_contract.registry_spec import ProviderSpec

from awaken_runtime.engine.adapters.base import ProviderEndpoint
from awaken_runtime.engine.collect import collect_stream
from awaken_runtime.engine.deadline import InferenceDeadline
from awaken_runtime.engine.errors import classify_http_error, classify_transport_error, redact
from awaken_runtime.engine.providers import infer_adapter, provider_from_env, resolve_endpoint
from awaken_runtime.engine.sse import iter_sse

__all__ = ["GenaiExecutor"]

logger = logging.getLogger("awaken.engine")


class GenaiExecutor(LlmExecutor):
    """Streams inferences from OpenAI-compatible, Anthropic and Gemini APIs via httpx.

    ``GenaiExecutor(spec)`` talks to one configured provider; credentials are resolved (and a
    missing key reported, naming the variable) when it is constructed.
    ``GenaiExecutor()`` picks the provider per model name like the book's genai client
    (``claude-*`` → Anthropic, ``gemini-*`` → Gemini, ``gpt-*`` → OpenAI, ``deepseek-*`` →
    DeepSeek, anything else → Ollama; ``LLM_BASE_URL`` routes all models to one
    OpenAI-compatible server) with keys from the environment; call ``check_model`` to validate
    a model's credentials up front. ``"anthropic::claude-…"`` names the adapter explicitly.
    """

    def __init__(
        self,
        provider: ProviderSpec | None = None,
        *,
        environ: Mapping[str, str] | None = None,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        self._environ: Mapping[str, str] = os.environ if environ is None else environ
        self._spec = provider
        self._endpoint = resolve_endpoint(provider, self._environ) if provider else None
        self._client = client
        self._owns_client = client is None
        self._client_loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def from_spec(
        cls, spec: ProviderSpec, *, environ: Mapping[str, str] | None = None
    ) -> GenaiExecutor:
        """An executor for one configured provider."""
        return cls(spec, environ=environ)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> GenaiExecutor:
        """An executor for the first provider configured by environment variables (see
        ``provider_from_env``); auto-selection by model name when none is configured."""
        found = provider_from_env(environ)
        return cls(found[0] if found else None, environ=environ)

    @property
    def provider(self) -> ProviderSpec | None:
        """The configured provider spec, if any."""
        return self._spec

    def name(self) -> str:
        if self._endpoint is not None:
            return f"genai:{self._endpoint.provider_id}"
        return "genai"

    # ------------------------------------------------------------------ resolution

    def endpoint_for(self, model: str) -> tuple[ProviderEndpoint, str]:
        """The endpoint serving ``model`` and the model name to send upstream."""
        if self._endpoint is not None:
            return self._endpoint, model
        kind, sep, bare = model.partition("::")
        if not sep:
            kind, bare = infer_adapter(model, self._environ), model
        spec = ProviderSpec(id=kind, adapter=kind)
        return resolve_endpoint(spec, self._environ), bare

    def check_model(self, model: str) -> None:
        """Raise now (``ProviderAuthError`` naming the variable) if ``model`` cannot be served."""
        self.endpoint_for(model)

    # ------------------------------------------------------------------ HTTP

    def _http(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        if self._client is not None and (not self._owns_client or self._client_loop is loop):
            return self._client
        self._client = httpx.AsyncClient()
        self._client_loop = loop
        return self._client

    async def aclose(self) -> None:
        """Close the HTTP client this executor created."""
        if self._client is not None and self._owns_client:
            await self._client.aclose()
            self._client = None

    def supports_response_format(self, request: InferenceRequest) -> bool:
        endpoint, _ = self.endpoint_for(request.upstream_model)
        return endpoint.adapter.supports_response_format(request)

    async def execute(self, request: InferenceRequest) -> StreamResult:
        """Run one inference and collect the streamed result."""
        return await collect_stream(self.stream(request))

    async def stream(self, request: InferenceRequest) -> AsyncIterator[LlmStreamEvent]:
        """Stream one inference; events are yielded as the provider's bytes arrive.

        Closing the iterator (or cancelling the consuming task) closes the HTTP stream.
        """
        endpoint, model = self.endpoint_for(request.upstream_model)
        adapter = endpoint.adapter
        if model != request.upstream_model:
            request = _with_model(request, model)
        body = adapter.build_body(request, endpoint)
        headers = {
            "content-type": "application/json",
            "accept": "text/event-stream",
            **adapter.auth_headers(endpoint),
            **endpoint.headers,
        }
        timeout = httpx.Timeout(endpoint.timeout_secs, connect=endpoint.connect_timeout_secs)
        provider = endpoint.provider_id
        secrets = endpoint.secrets
        parser = adapter.parser(endpoint)
        deadline = InferenceDeadline(
            provider, endpoint.total_timeout_secs, endpoint.idle_timeout_secs
        )
        logger.debug("inference %s model=%s", provider, model)
        try:
            async with contextlib.AsyncExitStack() as stack:
                url = adapter.url(endpoint, model)
                opening = self._http().stream(
                    "POST", url, json=body, headers=headers, timeout=timeout
                )
                response = await deadline.wait(stack.enter_async_context(opening))
                if response.status_code >= 400:
                    raw = await deadline.wait(response.aread())
                    raise classify_http_error(
                        response.status_code, raw, response.headers, provider, secrets
                    )
                stream = aiter(iter_sse(response.aiter_lines(), provider))
                while not parser.done:
                    try:
                        sse = await deadline.next(stream)
                    except StopAsyncIteration:
                        break
                    for event in parser.feed(sse):
                        deadline.progress()
                        yield event
                for event in parser.finish():
                    yield event
        except httpx.HTTPError as exc:
            raise classify_transport_error(exc, provider, secrets) from None
        except InferenceExecutionError as exc:
            _scrub(exc, secrets)
            raise


def _with_model(request: InferenceRequest, model: str) -> InferenceRequest:
    return msgspec.structs.replace(request, upstream_model=model)


def _scrub(exc: InferenceExecutionError, secrets: tuple[str | None, ...]) -> None:
    """Remove secrets from an error raised while parsing (it may quote provider text)."""
    clean = redact(str(exc), secrets)
    if clean != str(exc):
        exc.args = (clean,)
        exc.message = redact(exc.message, secrets)
