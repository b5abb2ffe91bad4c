"""What the loop's lean paths rely on: a sink that drops events gets none (and the run is the
same), runs share the resolver's cached agent while ``resolve`` still hands out copies, and
plugin lifecycle callbacks run only where a plugin overrides them; with a store, such a sink
still gets nothing while the run journal records every event."""

from __future__ import annotations

from typing import Any

from awaken_contract.contract.content import ContentBlock
from awaken_contract.contract.event import AgentEvent
from awaken_contract.contract.event_sink import EventSink, VecEventSink
from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.inference import StopReason, StreamResult
from awaken_contract.contract.journal import EventRecord
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.tool import ToolResult, tool
from awaken_contract.errors import ProviderError
from awaken_contract.plugin import Plugin, PluginDescriptor, PluginRegistrar
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_contract.state import MutationBatch, StateStoreHandle
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step
from awaken_runtime.plugins import ExecutionEnv
from awaken_runtime.replay.normalise import EventNormaliser
from awaken_stores import InMemoryStore


@tool
async def echo(text: str) -> ToolResult:
    """Echo the text."""
    return ToolResult.success("echo", text)


class DroppingSink(EventSink):
    """Says it drops events, but records any it is sent (and any seq skip)."""

    wants_events = False
    wants_state_snapshots = False

    def __init__(self) -> None:
        self.sent: list[AgentEvent] = []
        self.skipped = 0

    async def emit(self, event: AgentEvent) -> None:
        self.sent.append(event)

    def skip_seq(self, count: int = 1) -> None:
        self.skipped += count


def _runtime(steps: int = 1, store: InMemoryStore | None = None) -> Any:
    script = []
    for i in range(steps):
        script += [tool_step([ToolCall(f"c{i}", "echo", {"text": "hi"})]), text_step("Done.")]
    builder = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("a").with_model("m"))
        .with_tool("echo", echo)
        .with_provider("scripted", ScriptedLlm(script))
        .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
    )
    return (builder if store is None else builder.with_thread_run_store(store)).build()


async def test_a_sink_that_drops_events_is_sent_none_and_the_run_is_the_same() -> None:
    dropping, recording = DroppingSink(), VecEventSink()
    dropped = await _runtime().run(RunRequest("t1", [Message.user("hi")]), dropping)
    recorded = await _runtime().run(RunRequest("t2", [Message.user("hi")]), recording)
    assert dropping.sent == []
    assert len(recording.events) > 10  # the same run, observed
    assert (dropped.response, dropped.steps, dropped.termination, dropped.usage) == (
        recorded.response,
        recorded.steps,
        recorded.termination,
        recorded.usage,
    )


async def test_runs_share_the_cached_agent_and_resolve_still_copies() -> None:
    runtime = _runtime(steps=2)
    shared = runtime.resolver.resolve_for_run("a")
    assert runtime.resolver.resolve_for_run("a") is shared
    copy = runtime.resolve("a")
    assert copy is not shared and copy.tools is not shared.tools
    copy.tools.clear()  # a caller may change its copy …
    await runtime.run(RunRequest("t1", [Message.user("hi")]))
    # … and the shared agent a run reads is untouched (runs only read it)
    assert list(shared.tools) == ["echo"]
    result = await runtime.run(RunRequest("t2", [Message.user("hi")]))
    assert result.response == "Done." and result.steps == 2


class Lifecycle(Plugin):
    """Overrides the activation callbacks (and records them)."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("lifecycle")

    def register(self, registrar: PluginRegistrar) -> None:
        pass

    def on_activate(self, agent_spec: AgentSpec, patch: MutationBatch) -> None:
        self.calls.append(f"activate:{agent_spec.id}")

    def bind_runtime_context(self, store: StateStoreHandle, owner_inbox: object | None) -> None:
        self.calls.append("bind")


class Quiet(Plugin):
    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("quiet")

    def register(self, registrar: PluginRegistrar) -> None:
        pass


def test_only_plugins_overriding_a_lifecycle_callback_are_listed_for_it() -> None:
    lifecycle, quiet = Lifecycle(), Quiet()
    env = ExecutionEnv.from_plugins([quiet, lifecycle])
    assert env.plugins_overriding("on_activate") == [lifecycle]
    assert env.plugins_overriding("bind_runtime_context") == [lifecycle]
    assert env.plugins_overriding("on_deactivate") == []


async def test_an_overriding_plugin_is_still_bound_and_activated_every_run() -> None:
    plugin = Lifecycle()
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("a").with_model("m").with_plugin("lifecycle"))
        .with_plugin("lifecycle", plugin)
        .with_provider("scripted", ScriptedLlm([text_step("one"), text_step("two")]))
        .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
        .build()
    )
    await runtime.run(RunRequest("t1", [Message.user("hi")]))
    await runtime.run(RunRequest("t2", [Message.user("hi")]))
    assert plugin.calls == ["bind", "activate:a", "bind", "activate:a"]


class CollectingModel(LlmExecutor):
    """A non-streaming executor: two text blocks, reasoning and a call with tuple arguments,
    then a final answer."""

    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def execute(self, request: InferenceRequest) -> StreamResult:
        if request.messages[-1].tool_call_id is not None:
            self.seen.append(request.messages[-1].text())
            return StreamResult(
                content=[ContentBlock.text("Done.")], stop_reason=StopReason.END_TURN
            )
        return StreamResult(
            content=[
                ContentBlock.text("Let me "),
                ContentBlock.thinking("hmm"),
                ContentBlock.text("look."),
            ],
            tool_calls=[ToolCall("c1", "count", {"xs": (1, 2)})],
            stop_reason=StopReason.TOOL_USE,
        )

    def name(self) -> str:
        return "collecting"


received: list[Any] = []


@tool
async def count(xs: list[int]) -> ToolResult:
    """Count the items."""
    received.append(xs)
    return ToolResult.success("count", len(xs))


async def test_a_quiet_run_takes_a_collected_result_as_the_streamed_path_does() -> None:
    histories = []
    for sink in (DroppingSink(), VecEventSink()):
        store = InMemoryStore()
        runtime = (
            AgentRuntimeBuilder()
            .with_agent_spec(AgentSpec("a").with_model("m"))
            .with_tool("count", count)
            .with_provider("p", CollectingModel())
            .with_model("m", ModelSpec(id="m", provider="p", model="p-1"))
            .with_thread_run_store(store)
            .build()
        )
        result = await runtime.run(RunRequest("t", [Message.user("hi")]), sink)
        assert result.response == "Done."
        messages = await store.load_messages("t") or []
        histories.append([(m.role, m.content, m.tool_calls) for m in messages])
    assert received == [[1, 2], [1, 2]]  # the arguments went through JSON on both paths
    assert histories[0] == histories[1]
    assistant = histories[0][1]
    assert assistant[1] == [ContentBlock.text("Let me look.")]  # one text block, no reasoning
    assert assistant[2] == [ToolCall("c1", "count", {"xs": [1, 2]})]


class Recording(VecEventSink):
    """Wants every event but the state snapshots (as the dropping sink's run builds none)."""

    wants_state_snapshots = False


async def _journal(store: InMemoryStore, run_id: str) -> list[Any]:
    normaliser = EventNormaliser()
    return [
        (e.seq, e.kind, normaliser.normalise(e.record.event))
        if isinstance(e.record, EventRecord)
        else (e.seq, e.kind, None)
        for e in await store.read(run_id)
    ]


async def test_a_dropping_sink_gets_nothing_and_the_journal_records_every_event() -> None:
    dropping, recording = DroppingSink(), Recording()
    dropped_store, recorded_store = InMemoryStore(), InMemoryStore()
    request = RunRequest("t", [Message.user("hi")]).with_run_id("run-1")
    dropped = await _runtime(store=dropped_store).run(request, dropping)
    request = RunRequest("t", [Message.user("hi")]).with_run_id("run-1")
    recorded = await _runtime(store=recorded_store).run(request, recording)
    assert dropping.sent == [] and dropping.skipped == 0
    # The journals are the same run, entry for entry (ids and clock readings normalised) …
    journal = await _journal(dropped_store, dropped.run_id)
    assert journal == await _journal(recorded_store, recorded.run_id)
    # … and hold every event the sink that wants them was sent, in order.
    normaliser = EventNormaliser()
    assert [e for _, _, e in journal if e is not None] == [
        normaliser.normalise(e) for e in recording.events
    ]
    assert (dropped.response, dropped.steps, dropped.termination) == (
        recorded.response,
        recorded.steps,
        recorded.termination,
    )


class _FailsFirst(LlmExecutor):
    """Fails its first call with a retryable provider error, then answers (collected)."""

    def __init__(self) -> None:
        self.calls = 0

    async def execute(self, request: InferenceRequest) -> StreamResult:
        self.calls += 1
        if self.calls == 1:
            raise ProviderError("overloaded")
        return StreamResult(content=[ContentBlock.text("fine")], stop_reason=StopReason.END_TURN)

    def name(self) -> str:
        return "flaky"


async def test_a_model_call_awaited_in_place_still_retries_by_the_agents_policy() -> None:
    # A sink that drops events and a collected executor: the loop awaits the retry wrapper's
    # first attempt itself (ADR 0034); its failure still goes through the retry policy.
    flaky, failing = _FailsFirst(), _FailsFirst()
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(
            AgentSpec("a")
            .with_model("m")
            .with_section("retry", {"max_retries": 1, "backoff_base_ms": 0})
        )
        .with_agent_spec(AgentSpec("off").with_model("n").with_section("retry", {"max_retries": 0}))
        .with_provider("flaky", flaky)
        .with_provider("failing", failing)
        .with_model("m", ModelSpec(id="m", provider="flaky", model="flaky-1"))
        .with_model("n", ModelSpec(id="n", provider="failing", model="flaky-1"))
        .build()
    )
    result = await runtime.run(RunRequest("t-retry", [Message.user("hi")]).with_agent_id("a"))
    assert result.response == "fine" and flaky.calls == 2
    off = await runtime.run(RunRequest("t-off", [Message.user("hi")]).with_agent_id("off"))
    assert off.termination.type.value == "error" and failing.calls == 1
