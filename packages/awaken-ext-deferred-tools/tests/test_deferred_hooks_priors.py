"""A.5 hook rules in isolation and A.8 prior maths, including profile-store failures."""

import logging
from typing import Any

import pytest
from awaken_contract.actions import ContextMessageStoreKey, ContextMessageStoreState
from awaken_contract.contract.context_message import ContextMessage
from awaken_contract.contract.storage import ProfileEntry, ProfileOwner, ProfileStore
from awaken_contract.contract.tool import ToolResult
from awaken_contract.model import Phase
from awaken_contract.plugin import PhaseContext
from awaken_contract.registry_spec import AgentSpec
from awaken_contract.state import Snapshot, StateMap
from awaken_ext_deferred_tools import (
    AgentToolPriors,
    DeferralState,
    DeferralStateKey,
    DeferredToolsConfig,
    PromoteBatch,
    RecordCall,
    ToolLoadMode,
    ToolUsage,
    UsageStats,
    UsageStatsKey,
    blend_priors,
    smoothing,
)
from awaken_ext_deferred_tools.hooks import AfterToolExecuteHook, BeforeInferenceHook, RunEndHook

ON = DeferredToolsConfig(enabled=True)


def ctx(values: StateMap | None = None, **changes: Any) -> PhaseContext:
    base = PhaseContext.test_default(Phase.AFTER_TOOL_EXECUTE)
    return base.with_snapshot(Snapshot(1, values or StateMap())).replace(**changes)


def updates(command: Any, key: str) -> list[Any]:
    return [update for _, name, update in command.patch.ops if name == key]


@pytest.mark.parametrize(
    ("data", "promoted"),
    [
        ({"__promote": ["a", "b"]}, [PromoteBatch(["a", "b"])]),
        ({"__promote": []}, []),
        ({"__promote": "a"}, []),
        ({"__promote": ["a", 3]}, []),
        ({"tools": "x"}, []),
        ("not a dict", []),
    ],
)
async def test_toolsearch_result_promotes_only_a_list_of_strings(data: Any, promoted: list) -> None:
    hook = AfterToolExecuteHook(lambda _: ON)
    result = ToolResult.success("ToolSearch", data)
    command = await hook.run(ctx(tool_name="ToolSearch", tool_result=result))
    assert updates(command, UsageStatsKey.KEY) == [RecordCall("ToolSearch")]
    assert updates(command, DeferralStateKey.KEY) == promoted


async def test_other_tools_are_recorded_and_disabled_or_nameless_calls_ignored() -> None:
    result = ToolResult.success("x", {"__promote": ["a"]})
    command = await AfterToolExecuteHook(lambda _: ON).run(ctx(tool_name="x", tool_result=result))
    assert updates(command, UsageStatsKey.KEY) == [RecordCall("x")]
    assert updates(command, DeferralStateKey.KEY) == []
    off = AfterToolExecuteHook(lambda _: DeferredToolsConfig(enabled=False))
    assert (await off.run(ctx(tool_name="x"))).is_empty
    assert (await AfterToolExecuteHook(lambda _: ON).run(ctx())).is_empty


async def test_before_inference_excludes_sorted_deferred_ids_but_never_toolsearch() -> None:
    values = StateMap()
    modes = {"b": ToolLoadMode.DEFERRED, "a": ToolLoadMode.DEFERRED, "c": ToolLoadMode.EAGER}
    values.insert(DeferralStateKey, DeferralState({**modes, "ToolSearch": ToolLoadMode.DEFERRED}))
    command = await BeforeInferenceHook(lambda _: ON).run(ctx(values, phase=Phase.BEFORE_INFERENCE))
    actions = [(a.key, a.payload) for a in command.scheduled_actions]
    assert actions[:2] == [("runtime.exclude_tool", "a"), ("runtime.exclude_tool", "b")]
    key, payload = actions[2]
    assert key == "runtime.add_context_message" and payload["key"] == "deferred_tools.list"
    assert payload["persistent"] is True and payload["target"] == "system"
    assert payload["content"][0]["text"].endswith("ToolSearch to load one before using it:\na, b")
    assert len(actions) == 3


async def test_before_inference_with_nothing_deferred_removes_a_stale_list() -> None:
    values = StateMap()
    values.insert(DeferralStateKey, DeferralState({"a": ToolLoadMode.EAGER}))
    stale = ContextMessage.system_persistent("deferred_tools.list", "old")
    values.insert(ContextMessageStoreKey, ContextMessageStoreState({stale.key: stale}))
    command = await BeforeInferenceHook(lambda _: ON).run(ctx(values))
    assert command.scheduled_actions == []
    [removal] = updates(command, ContextMessageStoreKey.KEY)
    assert removal.keys == ["deferred_tools.list"]


def test_smoothing_sequence() -> None:
    assert [round(smoothing(n), 3) for n in range(11)] == [
        1.0,
        0.5,
        0.333,
        0.25,
        0.2,
        0.167,
        0.143,
        0.125,
        0.111,
        0.1,
        0.1,
    ]


def test_blend_priors_uses_presence_frequency_and_leaves_unused_tools() -> None:
    usage = UsageStats(4, {"a": ToolUsage(2, 5, 0, 3), "new": ToolUsage(1, 1, 2, 2)})
    stored = AgentToolPriors({"a": 0.1, "untouched": 0.7}, session_count=1)
    blended = blend_priors(stored, usage)
    assert blended.session_count == 2
    assert blended.tools["a"] == pytest.approx(0.5 * 0.1 + 0.5 * 0.5)
    assert blended.tools["new"] == pytest.approx(0.25)  # no stored value: prior = s
    assert blended.tools["untouched"] == 0.7


class BrokenStore(ProfileStore):
    def __init__(self, fail_get: bool, fail_set: bool) -> None:
        self.fail_get, self.fail_set = fail_get, fail_set
        self.written: list[Any] = []

    async def get(self, owner: ProfileOwner, key: str) -> ProfileEntry | None:
        if self.fail_get:
            raise OSError("disk gone")
        return ProfileEntry(key, {"tools": {"a": 0.9}, "session_count": 3}, 0)

    async def set(self, owner: ProfileOwner, key: str, value: Any) -> None:
        if self.fail_set:
            raise OSError("read-only")
        self.written.append((owner, key, value))

    async def delete(self, owner: ProfileOwner, key: str) -> None: ...

    async def list(self, owner: ProfileOwner) -> list[ProfileEntry]:
        return []

    async def clear_owner(self, owner: ProfileOwner) -> None: ...


def run_end_ctx(store: ProfileStore | None, turns: int = 2) -> PhaseContext:
    values = StateMap()
    values.insert(UsageStatsKey, UsageStats(turns, {"a": ToolUsage(1, 1, 0, 0)}))
    return ctx(values, phase=Phase.RUN_END, profile_store=store, agent_spec=AgentSpec("ops"))


async def test_run_end_persists_per_agent_and_survives_store_errors(caplog: Any) -> None:
    hook = RunEndHook(lambda _: ON)
    ok = BrokenStore(fail_get=False, fail_set=False)
    await hook.run(run_end_ctx(ok))
    [(owner, key, value)] = ok.written
    assert owner == ProfileOwner.agent("ops") and key == "deferred_tools.agent_priors"
    assert value == {"tools": {"a": pytest.approx(0.75 * 0.9 + 0.25 * 0.5)}, "session_count": 4}
    unreadable = BrokenStore(fail_get=True, fail_set=False)
    with caplog.at_level(logging.WARNING):
        await hook.run(run_end_ctx(unreadable))
    assert unreadable.written[0][2] == {"tools": {"a": 0.5}, "session_count": 1}
    assert "cannot read priors of agent:ops: disk gone" in caplog.text
    with caplog.at_level(logging.WARNING):
        await hook.run(run_end_ctx(BrokenStore(fail_get=False, fail_set=True)))
    assert "cannot write priors of agent:ops: read-only" in caplog.text
    skipped = BrokenStore(fail_get=False, fail_set=False)
    await hook.run(run_end_ctx(skipped, turns=0))
    assert skipped.written == []
    assert (await hook.run(run_end_ctx(None))).is_empty
