"""State scopes Shared and Profile (persisted in the profile store) and merge policy Disjoint."""

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.storage import ProfileOwner, ProfileStore
from awaken_contract.contract.tool import (
    Tool,
    ToolCallContext,
    ToolDescriptor,
    ToolExecutionMode,
    ToolOutput,
    ToolResult,
)
from awaken_contract.model import Phase
from awaken_contract.plugin import (
    PhaseContext,
    PhaseHook,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
)
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_contract.state import KeyScope, MergeStrategy, StateCommand, StateKey
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import MockLlmExecutor, ScriptedLlm, text_step, tool_step
from awaken_stores import InMemoryStore, SqliteStore


class TeamTone(StateKey[str, str]):
    KEY = "team.tone"
    SCOPE = KeyScope.SHARED


class Runs(StateKey[int, int]):
    KEY = "agent.runs"
    SCOPE = KeyScope.PROFILE
    MERGE = MergeStrategy.COMMUTATIVE

    @classmethod
    def apply(cls, value: int, update: int) -> int:
        return value + update


class Seen(PhaseHook):
    """At run start: record what the run sees, then write the tone and count the run."""

    def __init__(self, tone: str | None) -> None:
        self.tone = tone
        self.seen: list[tuple[str | None, int | None]] = []
        self.during: Callable[[], Awaitable[None]] | None = None

    async def run(self, ctx: PhaseContext) -> StateCommand:
        self.seen.append((ctx.state(TeamTone), ctx.state(Runs)))
        if self.during is not None:
            await self.during()
        command = StateCommand().update(Runs, 1)
        if self.tone is not None:
            command.update(TeamTone, self.tone)
        return command


class ScopesPlugin(Plugin):
    def __init__(self, tone: str | None = None) -> None:
        self.hook = Seen(tone)

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("scopes")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_key(TeamTone)
        registrar.register_key(Runs)
        registrar.register_phase_hook("scopes", Phase.RUN_START, self.hook)


def runtime_for(plugin: ScopesPlugin, profiles: ProfileStore, store: Any = None) -> Any:
    builder = AgentRuntimeBuilder().with_plugin("scopes", plugin).with_profile_store(profiles)
    for agent in ("a", "b"):
        builder = builder.with_agent_spec(AgentSpec(agent).with_model("m").with_plugin("scopes"))
    builder = builder.with_provider("llm", MockLlmExecutor(["ok"])).with_model(
        "m", ModelSpec(id="m", provider="llm", model="x")
    )
    if store is not None:
        builder = builder.with_thread_run_store(store)
    return builder.build()


async def run(runtime: Any, thread: str, agent: str = "a") -> None:
    request = RunRequest(thread, [Message.user("hi")]).with_agent_id(agent)
    await runtime.run(request, VecEventSink())


async def test_a_shared_key_written_on_thread_a_is_read_on_thread_b() -> None:
    store = InMemoryStore()
    writer = ScopesPlugin(tone="formal")
    await run(runtime_for(writer, store.profiles, store), "thread-a")
    reader = ScopesPlugin()
    await run(runtime_for(reader, store.profiles, store), "thread-b", agent="b")
    assert writer.hook.seen == [(None, None)]
    # Shared: seen by another agent on another thread; Profile: agent b has its own count
    assert reader.hook.seen == [("formal", None)]
    shared = await store.profiles.get(ProfileOwner.system(), "state.shared:team.tone")
    assert shared is not None and shared.value == "formal"


async def test_a_profile_key_persists_per_agent_across_runtimes_on_sqlite(tmp_path: Path) -> None:
    db = tmp_path / "profiles.db"
    for expected in (None, 1, 2):
        async with SqliteStore(db) as store:
            plugin = ScopesPlugin()
            await run(runtime_for(plugin, store.profiles, store), f"t{expected}")
            assert plugin.hook.seen == [(None, expected)]
    async with SqliteStore(db) as store:
        other = ScopesPlugin()
        await run(runtime_for(other, store.profiles), "t-other", agent="b")  # no run store
        assert other.hook.seen == [(None, None)]
        entry = await store.profiles.get(ProfileOwner.agent("a"), "state.profile:agent.runs")
        assert entry is not None and entry.value == 3
        entry = await store.profiles.get(ProfileOwner.agent("b"), "state.profile:agent.runs")
        assert entry is not None and entry.value == 1


async def test_a_run_that_only_reads_a_shared_key_does_not_overwrite_a_newer_value() -> None:
    store = InMemoryStore()
    await store.profiles.set(ProfileOwner.system(), "state.shared:team.tone", "v1")
    reader = ScopesPlugin()

    async def another_thread_writes() -> None:  # while this run is in flight
        await store.profiles.set(ProfileOwner.system(), "state.shared:team.tone", "v2")

    reader.hook.during = another_thread_writes
    runtime = runtime_for(reader, store.profiles)
    await run(runtime, "t1")
    reader.hook.during = None
    await run(runtime, "t2")
    assert reader.hook.seen == [("v1", None), ("v2", 1)]
    entry = await store.profiles.get(ProfileOwner.system(), "state.shared:team.tone")
    assert entry is not None and entry.value == "v2"


# --------------------------------------------------------------------------- Disjoint


class Choice(StateKey[str, str]):
    KEY = "test.choice"
    SCOPE = KeyScope.RUN
    MERGE = MergeStrategy.DISJOINT


class Pick(Tool):
    def __init__(self, seen: list[str | None]) -> None:
        self.seen = seen

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("pick", "pick", "Pick a value")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolOutput:
        self.seen.append(ctx.snapshot.get(Choice) if ctx.snapshot is not None else None)
        return ToolOutput.with_command(
            ToolResult.success("pick", {"picked": args["v"]}),
            StateCommand().update(Choice, args["v"]),
        )


class ChoicePlugin(Plugin):
    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("choice")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_key(Choice)


@pytest.mark.parametrize(
    "mode", [ToolExecutionMode.PARALLEL_STREAMING, ToolExecutionMode.PARALLEL_BATCH_APPROVAL]
)
async def test_disjoint_parallel_writers_do_not_conflict_and_the_later_replaces(
    mode: ToolExecutionMode,
) -> None:
    seen: list[str | None] = []
    calls = [ToolCall("c1", "pick", {"v": "first"}), ToolCall("c2", "pick", {"v": "second"})]
    llm = ScriptedLlm([tool_step(calls), text_step("done")])
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("a").with_model("m").with_plugin("choice"))
        .with_plugin("choice", ChoicePlugin())
        .with_tool("pick", Pick(seen))
        .with_provider("llm", llm)
        .with_model("m", ModelSpec(id="m", provider="llm", model="x"))
        .with_tool_execution_mode(mode)
        .build()
    )
    sink = VecEventSink()
    result = await runtime.run(RunRequest("t", [Message.user("go")]).with_agent_id("a"), sink)
    assert result.response == "done", result.termination
    assert seen == [None, None]  # both ran on the step's snapshot
    snapshots = [e for e in sink.take() if type(e).__name__ == "StateSnapshot"]
    assert snapshots[-1].snapshot.extensions["test.choice"] == "second"
