"""``Agent``: the short path — a model, tools and instructions in one object.

```python
from awaken import Agent, tool
from awaken.testing import ScriptedLlm, text_step

agent = Agent(ScriptedLlm([text_step("Hi!")]), instructions="Be brief.")
assert agent.run_sync("Hello").response == "Hi!"
```

A thin layer over :class:`~awaken_runtime.builder.AgentRuntimeBuilder`: one agent spec, one
model, the tools (plain typed functions become tools through ``@tool``), the plugins and a
thread store (in memory unless given). ``agent.runtime`` is the built runtime for everything
the short path does not cover.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from awaken_contract.contract.event import AgentEvent
from awaken_contract.contract.executor import LlmExecutor
from awaken_contract.contract.inference import TokenUsage
from awaken_contract.contract.lifecycle import TerminationKind, TerminationReason
from awaken_contract.contract.message import Message
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.storage import ProfileStore, ThreadRunStore
from awaken_contract.contract.tool import Tool, tool
from awaken_contract.errors import AgentRuntimeError, BuildError
from awaken_contract.ids import new_id
from awaken_contract.output_schema import DEFAULT_OUTPUT_RETRIES
from awaken_contract.plugin import Plugin
from awaken_contract.registry_spec import AgentSpec, ModelSpec, ProviderSpec
from awaken_runtime.builder import AgentRuntimeBuilder
from awaken_runtime.engine import GenaiExecutor, adapter_defaults, provider_from_env
from awaken_runtime.runtime import AgentRuntime
from awaken_stores import InMemoryStore
from pydantic import BaseModel

__all__ = ["Agent", "AgentResult", "Prompt"]

MODEL_ID = "model"
"""The id of the agent's one model entry."""

CUSTOM_PROVIDER_ID = "executor"
"""The provider id under which an ``LlmExecutor`` passed as ``model`` is registered."""

Prompt = str | Message | Sequence[Message]
"""What ``run`` accepts: text (a user message), one message or a list of messages."""


@dataclass(frozen=True, slots=True)
class AgentResult:
    """The outcome of one run: the final text, the step count, why it ended and the thread's
    messages after the run (the prompt, tool calls and results, the answer)."""

    response: str
    steps: int
    termination: TerminationReason
    messages: list[Message]
    run_id: str
    thread_id: str
    usage: TokenUsage | None = None
    output: Any = None
    """The validated structured output when the agent has an ``output_type``: an instance of
    the pydantic model, or the decoded JSON for a JSON Schema; ``None`` otherwise."""

    @property
    def is_success(self) -> bool:
        """True when the run ended naturally."""
        return self.termination.type is TerminationKind.NATURAL_END


def _executor_for(model: str, environ: Mapping[str, str] | None) -> tuple[str, LlmExecutor, str]:
    """``(provider id, executor, model name)`` for ``"provider:model"`` or a bare model name
    (served by the first provider configured in the environment)."""
    provider, sep, name = model.strip().partition(":")
    if sep:
        defaults = adapter_defaults(provider)  # ProviderError naming the known adapters
        spec = ProviderSpec(id=defaults.kind, adapter=defaults.kind)
        name = name.strip() or defaults.default_model or ""
    else:
        found = provider_from_env(environ)
        if found is None:
            raise BuildError(
                f"no provider for model {model!r}: write 'provider:model' (e.g. "
                "'openai:gpt-4o-mini') or set a provider key such as OPENAI_API_KEY"
            )
        spec, name = found[0], provider
    if not name:
        raise BuildError(f"model {model!r} names no model")
    return spec.id, GenaiExecutor.from_spec(spec, environ=environ), name


def _as_tool(item: Tool | Callable[..., Any]) -> Tool:
    if isinstance(item, Tool):
        return item
    if callable(item):
        built: Tool = tool(item)
        return built
    raise BuildError(f"tools must be Tool instances or typed functions, got {item!r}")


def _messages(prompt: Prompt) -> list[Message]:
    if isinstance(prompt, str):
        return [Message.user(prompt)]
    if isinstance(prompt, Message):
        return [prompt]
    return list(prompt)


class Agent:
    """One agent: ``Agent(model, tools=[fn, ...], instructions=..., plugins=[...])``.

    ``model`` is an :class:`LlmExecutor` (e.g. ``ScriptedLlm`` in tests) or a string:
    ``"openai:gpt-4o-mini"`` (any known adapter) or a bare model name served by the first
    provider configured in the environment (``provider_from_env``). Configuration errors raise
    at construction (``BuildError``, ``ProviderError`` for an unknown adapter or a missing key).
    ``output_type`` (a pydantic model class or a JSON Schema) asks for a structured answer:
    ``result.output`` is then the validated model instance (or JSON); an answer still invalid
    after ``output_retries`` retries ends the run with termination ``error``.
    """

    def __init__(
        self,
        model: LlmExecutor | str,
        *,
        tools: Sequence[Tool | Callable[..., Any]] = (),
        instructions: str = "",
        plugins: Sequence[Plugin] = (),
        name: str = "agent",
        max_rounds: int | None = None,
        store: ThreadRunStore | None = None,
        environ: Mapping[str, str] | None = None,
        output_type: type[BaseModel] | Mapping[str, Any] | None = None,
        output_retries: int = DEFAULT_OUTPUT_RETRIES,
        profile_store: ProfileStore | None = None,
    ) -> None:
        if isinstance(model, LlmExecutor):
            provider_id, executor, model_name = CUSTOM_PROVIDER_ID, model, model.name()
        elif isinstance(model, str) and model.strip():
            provider_id, executor, model_name = _executor_for(model, environ)
        else:
            raise BuildError(
                f"model must be an LlmExecutor or a 'provider:model' string: {model!r}"
            )
        self.name = name
        if store is None:
            memory = InMemoryStore()
            store, profile_store = memory, profile_store or memory.profiles
        self.store: ThreadRunStore = store
        spec = AgentSpec(name).with_model(MODEL_ID)
        if instructions:
            spec = spec.with_system_prompt(instructions)
        if max_rounds is not None:
            spec = spec.with_max_rounds(max_rounds)
        if output_type is not None:
            spec = spec.with_output_schema(output_type, max_retries=output_retries)
        builder = AgentRuntimeBuilder()
        for item in tools:
            built = _as_tool(item)
            builder.with_tool(built.descriptor().id, built)
        for plugin in plugins:
            spec = spec.with_plugin(plugin.plugin_id).with_hook_filter(plugin.plugin_id)
            builder.with_plugin(plugin.plugin_id, plugin)
        model_spec = ModelSpec(id=MODEL_ID, provider=provider_id, model=model_name)
        builder = (
            builder.with_agent_spec(spec)
            .with_provider(provider_id, executor)
            .with_model(MODEL_ID, model_spec)
            .with_thread_run_store(self.store)
        )
        if profile_store is not None:
            builder = builder.with_profile_store(profile_store)
        self.runtime: AgentRuntime = builder.build()

    def _request(self, prompt: Prompt, thread_id: str | None, user_id: str | None) -> RunRequest:
        request = RunRequest(thread_id or new_id(), _messages(prompt), user_id=user_id)
        return request.with_agent_id(self.name)

    async def run(
        self, prompt: Prompt, *, thread_id: str | None = None, user_id: str | None = None
    ) -> AgentResult:
        """Run to the end on ``thread_id`` (default: a new thread); pass a result's
        ``thread_id`` to continue its conversation. ``user_id``: the user the run acts for
        (Profile state kept per user is theirs)."""
        request = self._request(prompt, thread_id, user_id)
        result = await self.runtime.run(request)
        messages = await self.store.load_messages(result.thread_id) or []
        return AgentResult(
            response=result.response,
            steps=result.steps,
            termination=result.termination,
            messages=messages,
            run_id=result.run_id,
            thread_id=result.thread_id,
            usage=result.usage,
            output=result.output,
        )

    def run_sync(
        self, prompt: Prompt, *, thread_id: str | None = None, user_id: str | None = None
    ) -> AgentResult:
        """:meth:`run` from synchronous code (``AgentRuntimeError`` inside an event loop)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.run(prompt, thread_id=thread_id, user_id=user_id))
        raise AgentRuntimeError("run_sync() called from a running event loop: await run()")

    async def stream(
        self, prompt: Prompt, *, thread_id: str | None = None, user_id: str | None = None
    ) -> AsyncIterator[AgentEvent]:
        """The run's events as they happen (``RunStart`` … ``RunFinish``); leaving the loop
        early cancels the run."""
        async for event in self.runtime.stream(self._request(prompt, thread_id, user_id)):
            yield event
