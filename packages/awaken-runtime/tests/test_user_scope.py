"""Profile state kept per user and per agent+user, from Python (real SQLite file)."""

from pathlib import Path

import pytest
from awaken import Agent
from awaken_contract.contract.message import Message
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.storage import ProfileOwner
from awaken_contract.errors import InvalidId, UserIdRequired
from awaken_contract.key_codec import ProfileOwnerKind
from awaken_contract.model import Phase
from awaken_contract.plugin import PhaseContext, Plugin, PluginDescriptor, PluginRegistrar
from awaken_contract.profile import ProfileAccess, ProfileKey
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_contract.state import KeyScope, MergeStrategy, StateCommand, StateKey
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step
from awaken_stores import SqliteStore


class UserRuns(StateKey[int, int]):
    """Runs per agent and user."""

    KEY = "test.user_runs"
    SCOPE = KeyScope.PROFILE
    PER = ProfileOwnerKind.AGENT_USER
    MERGE = MergeStrategy.COMMUTATIVE

    @classmethod
    def apply(cls, value: int, update: int) -> int:
        return value + update


class Lang(ProfileKey[str]):
    KEY = "test.lang"
    PER = ProfileOwnerKind.USER


class CountRuns(Plugin):
    def __init__(self) -> None:
        self.seen: list[tuple[str | None, int | None]] = []

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("count")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_key(UserRuns)

        async def at_start(ctx: PhaseContext) -> StateCommand:
            self.seen.append((ctx.run_identity.user_id, ctx.state(UserRuns)))
            return StateCommand().update(UserRuns, 1)

        registrar.register_phase_hook("count", Phase.RUN_START, at_start)


def _runtime(store: SqliteStore, plugin: CountRuns, agent: str = "a"):
    return (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec(agent).with_model("m").with_plugin("count"))
        .with_plugin("count", plugin)
        .with_provider("llm", ScriptedLlm([text_step(str(i)) for i in range(6)]))
        .with_model("m", ModelSpec(id="m", provider="llm", model="m-1"))
        .with_thread_run_store(store)
        .with_profile_store(store.profiles)
        .build()
    )


async def test_state_kept_per_agent_and_user(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "u.db")
    plugin = CountRuns()
    runtime = _runtime(store, plugin)
    for thread, user in [("t1", "ann"), ("t2", "ann"), ("t3", "ben"), ("t4", None)]:
        request = RunRequest(thread, [Message.user("hi")]).with_agent_id("a")
        result = await runtime.run(request, user_id=user)
        run = await store.load_run(result.run_id)
        assert run is not None and run.user_id == user
    # ann's second run sees her first; ben starts from nothing; the anonymous run keeps the
    # key for itself only (nothing loaded, nothing stored)
    assert plugin.seen == [("ann", None), ("ann", 1), ("ben", None), (None, None)]
    entry = await store.profiles.get(
        ProfileOwner.agent_user("a", "ann"), "state.profile:test.user_runs"
    )
    assert entry is not None and entry.value == 2
    assert await store.profiles.list(ProfileOwner.agent("a")) == []
    with pytest.raises(InvalidId):
        await runtime.run(RunRequest("t5", [Message.user("hi")], user_id="../etc"))
    await store.close()


async def test_profile_keys_per_user_need_a_user(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "p.db")
    ann = ProfileAccess.for_agent(store.profiles, "a", "ann")
    await ann.set(Lang, "fr")
    assert await ProfileAccess.for_agent(store.profiles, "other", "ann").get(Lang) == "fr"
    assert await ProfileAccess.for_agent(store.profiles, "a", "ben").get(Lang) is None
    with pytest.raises(UserIdRequired, match="user id"):
        await ProfileAccess.for_agent(store.profiles, "a").get(Lang)
    await store.close()


async def test_facade_agent_runs_for_a_user() -> None:
    seen: list[str | None] = []

    class Remember(Plugin):
        def descriptor(self) -> PluginDescriptor:
            return PluginDescriptor("remember")

        def register(self, registrar: PluginRegistrar) -> None:
            async def at_end(ctx: PhaseContext) -> StateCommand:
                profile = ctx.profile
                assert profile is not None
                seen.append(await profile.get(Lang))
                await profile.set(Lang, f"lang of {ctx.run_identity.user_id}")
                return StateCommand()

            registrar.register_phase_hook("remember", Phase.RUN_END, at_end)

    agent = Agent(
        ScriptedLlm([text_step("1"), text_step("2"), text_step("3")]), plugins=[Remember()]
    )
    await agent.run("hi", user_id="ann")
    await agent.run("hi", user_id="ben")
    await agent.run("hi", user_id="ann")
    assert seen == [None, None, "lang of ann"]
