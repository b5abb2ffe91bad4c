"""Hooks read and write the profile store through ``ctx.profile`` (real SQLite file)."""

from pathlib import Path

import msgspec
import pytest
from awaken_contract.contract.message import Message
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.storage import ProfileOwner
from awaken_contract.errors import KeyDecode
from awaken_contract.model import Phase
from awaken_contract.plugin import PhaseContext, Plugin, PluginDescriptor, PluginRegistrar
from awaken_contract.profile import ProfileAccess, ProfileKey
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_contract.state import StateCommand
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step
from awaken_stores import SqliteStore


class Visits(msgspec.Struct):
    count: int = 0
    last_thread: str | None = None


class VisitsKey(ProfileKey[Visits]):
    KEY = "test.visits"


class CountVisits(Plugin):
    """Counts runs per agent in the profile store at RunEnd; records what RunStart saw."""

    def __init__(self) -> None:
        self.seen_at_start: list[int | None] = []

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("visits")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_profile_key(VisitsKey)

        async def at_start(ctx: PhaseContext) -> StateCommand:
            profile = ctx.profile
            assert profile is not None
            stored = await profile.get(VisitsKey)
            self.seen_at_start.append(None if stored is None else stored.count)
            return StateCommand()

        async def at_end(ctx: PhaseContext) -> StateCommand:
            profile = ctx.profile
            assert profile is not None
            stored = await profile.get(VisitsKey) or VisitsKey.default()
            await profile.set(VisitsKey, Visits(stored.count + 1, ctx.run_identity.thread_id))
            return StateCommand()

        registrar.register_phase_hook("visits", Phase.RUN_START, at_start)
        registrar.register_phase_hook("visits", Phase.RUN_END, at_end)


def build(store: SqliteStore, plugin: CountVisits, agent: str = "counter"):
    return (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec(agent).with_model("m").with_plugin("visits"))
        .with_plugin("visits", plugin)
        .with_provider("llm", ScriptedLlm([text_step("a"), text_step("b"), text_step("c")]))
        .with_model("m", ModelSpec(id="m", provider="llm", model="m-1"))
        .with_profile_store(store.profiles)
        .build()
    )


async def test_hooks_persist_profile_values_per_agent_across_runtimes(tmp_path: Path) -> None:
    db = tmp_path / "awaken.db"
    store = SqliteStore(db)
    plugin = CountVisits()
    runtime = build(store, plugin)
    await runtime.run(RunRequest("t-1", [Message.user("hi")]).with_agent_id("counter"))
    await runtime.run(RunRequest("t-2", [Message.user("hi")]).with_agent_id("counter"))
    await store.close()

    reopened = SqliteStore(db)
    plugin2 = CountVisits()
    await build(reopened, plugin2).run(
        RunRequest("t-3", [Message.user("hi")]).with_agent_id("counter")
    )
    assert plugin.seen_at_start == [None, 1]
    assert plugin2.seen_at_start == [2]
    entry = await reopened.profiles.get(ProfileOwner.agent("counter"), "test.visits")
    assert entry is not None and entry.value == {"count": 3, "last_thread": "t-3"}
    # another agent has its own entry
    assert await reopened.profiles.get(ProfileOwner.agent("other"), "test.visits") is None
    await reopened.close()


async def test_profile_is_none_without_a_store() -> None:
    assert PhaseContext.test_default().profile is None


async def test_access_scopes_and_decode_errors(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "p.db")
    agent = ProfileAccess.for_agent(store.profiles, "a")
    system = agent.for_owner(ProfileOwner.system())
    await agent.set(VisitsKey, Visits(5))
    assert await system.get(VisitsKey) is None
    assert (await agent.get(VisitsKey)) == Visits(5)
    await store.profiles.set(ProfileOwner.system(), VisitsKey.KEY, {"count": "many"})
    with pytest.raises(KeyDecode):
        await system.get(VisitsKey)
    await agent.delete(VisitsKey)
    assert await agent.get(VisitsKey) is None
    await store.close()
