"""Core actions, ToolInterceptPayload and ContextMessage JSON, and the runtime key reducers."""

from __future__ import annotations

import msgspec
import pytest
from awaken_contract.actions import (
    AddContextMessage,
    ClearInferenceOverride,
    ClearToolCallStates,
    ClearToolFilter,
    ContextMessageStoreKey,
    ContextMessageStoreState,
    ExcludeTool,
    ExcludeToolUpdate,
    IncludeOnlyTools,
    IncludeOnlyToolsUpdate,
    InferenceOverrideKey,
    InferenceOverrideState,
    InterceptBlock,
    InterceptSetResult,
    InterceptSuspend,
    MergeInferenceOverride,
    PutToolCallState,
    RemoveContextMessages,
    RunLifecycleKey,
    RunLifecycleUpdate,
    SetInferenceOverride,
    ToolCallStatesKey,
    ToolCallStatesMap,
    ToolFilterKey,
    ToolFilterState,
    ToolInterceptAction,
    ToolInterceptKey,
    ToolInterceptPayload,
    ToolInterceptState,
    UpsertContextMessage,
    content_hash,
)
from awaken_contract.contract.context_message import ContextMessage, ContextMessageTarget
from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.message import Role, Visibility
from awaken_contract.contract.suspension import (
    PendingToolCall,
    SuspendTicket,
    Suspension,
    ToolCallResumeMode,
    ToolCallState,
    ToolCallStatus,
)
from awaken_contract.contract.tool import ToolResult
from awaken_contract.errors import KeyDecode
from awaken_contract.model import Phase
from awaken_contract.registry_spec import InferenceOverride

# --------------------------------------------------------------------------- ToolInterceptPayload


def test_intercept_block_golden_json() -> None:
    payload = ToolInterceptPayload.Block("dangerous operation")
    assert isinstance(payload, InterceptBlock)
    assert msgspec.json.encode(payload.to_json_value()) == (
        b'{"Block":{"reason":"dangerous operation"}}'
    )
    assert ToolInterceptPayload.from_json_value({"Block": {"reason": "x"}}) == InterceptBlock("x")


def test_intercept_suspend_golden_json_round_trip() -> None:
    ticket = SuspendTicket(
        Suspension(id="s1", action="confirm", message="Approve?", parameters={"tool": "rm"}),
        PendingToolCall("c1", "delete_file", {"path": "/tmp/x"}),
        ToolCallResumeMode.REPLAY_TOOL_CALL,
    )
    data = InterceptSuspend(ticket).to_json_value()
    assert data == {
        "Suspend": {
            "suspension": {
                "id": "s1",
                "action": "confirm",
                "message": "Approve?",
                "parameters": {"tool": "rm"},
            },
            "pending": {"id": "c1", "name": "delete_file", "arguments": {"path": "/tmp/x"}},
            "resume_mode": "replay_tool_call",
        }
    }
    parsed = ToolInterceptPayload.from_json_value(data)
    assert isinstance(parsed, InterceptSuspend) and parsed.ticket == ticket


def test_intercept_set_result_golden_json_round_trip() -> None:
    result = ToolResult.success("my_tool", {"answer": 42})
    data = InterceptSetResult(result).to_json_value()
    assert data["SetResult"]["tool_name"] == "my_tool"
    assert data["SetResult"]["status"] == "success"
    assert data["SetResult"]["data"] == {"answer": 42}
    parsed = ToolInterceptPayload.from_json_value(data)
    assert isinstance(parsed, InterceptSetResult)
    assert parsed.result.data == {"answer": 42}


@pytest.mark.parametrize(
    "bad",
    [{"Allow": {}}, {"Block": {}}, {"Block": {"reason": 1}}, [], {"Block": {}, "Suspend": {}}],
)
def test_intercept_decode_errors(bad: object) -> None:
    with pytest.raises(KeyDecode):
        ToolInterceptPayload.from_json_value(bad)


def test_intercept_priority_block_over_suspend_over_set_result() -> None:
    block = InterceptBlock("no")
    suspend = InterceptSuspend(SuspendTicket())
    result = InterceptSetResult(ToolResult.success("t", None))
    assert block.priority > suspend.priority > result.priority
    state = ToolInterceptState()
    for update in (result, suspend, InterceptSuspend(SuspendTicket()), block, result):
        state = ToolInterceptKey.apply(state, update)
    assert state.payload is block
    first = ToolInterceptKey.apply(ToolInterceptState(), InterceptBlock("first"))
    assert ToolInterceptKey.apply(first, InterceptBlock("second")).payload == InterceptBlock(
        "first"
    )
    assert ToolInterceptKey.apply(first, None).payload is None
    encoded = ToolInterceptKey.encode(first)
    assert encoded == {"payload": {"Block": {"reason": "first"}}}
    assert ToolInterceptKey.decode(encoded) == first


def test_tool_intercept_action_encodes_externally_tagged() -> None:
    action = ToolInterceptAction.action(InterceptBlock("why"))
    assert action.phase is Phase.BEFORE_TOOL_EXECUTE
    assert action.key == "runtime.tool_intercept"
    assert action.payload == {"Block": {"reason": "why"}}
    assert ToolInterceptAction.decode_payload(action.payload) == InterceptBlock("why")


def test_core_action_keys_and_phases() -> None:
    specs = (AddContextMessage, SetInferenceOverride, ExcludeTool, IncludeOnlyTools)
    assert [a.KEY for a in specs] == [
        "runtime.add_context_message",
        "runtime.set_inference_override",
        "runtime.exclude_tool",
        "runtime.include_only_tools",
    ]
    assert all(a.PHASE is Phase.BEFORE_INFERENCE for a in specs)
    assert IncludeOnlyTools.action(["a", "b"]).payload == ["a", "b"]
    assert SetInferenceOverride.decode_payload(
        SetInferenceOverride.encode_payload(InferenceOverride(temperature=0.2))
    ) == InferenceOverride(temperature=0.2)


# --------------------------------------------------------------------------- ContextMessage


def test_context_message_golden_json() -> None:
    msg = ContextMessage.system("reminder.x", "Remember the docs.")
    assert msgspec.json.encode(msg) == (
        b'{"key":"reminder.x","role":"system",'
        b'"content":[{"type":"text","text":"Remember the docs."}],'
        b'"visibility":"internal","target":"system","cooldown_turns":0,"persistent":false,'
        b'"consume_after_emit":false,"priority":0}'
    )
    minimal = (
        b'{"key":"k","role":"user","content":[],"visibility":"all","target":"session",'
        b'"cooldown_turns":2}'
    )
    decoded = msgspec.json.decode(minimal, type=ContextMessage)
    assert decoded.persistent is False and decoded.priority == 0
    assert decoded.target is ContextMessageTarget.SESSION
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(b'{"key":"k","role":"user","content":[]}', type=ContextMessage)


def test_context_message_factories() -> None:
    assert ContextMessage.suffix_system("k", "t").target is ContextMessageTarget.SUFFIX_SYSTEM
    session = ContextMessage.session("k", Role.USER, "t")
    assert (session.target, session.visibility) == (
        ContextMessageTarget.SESSION,
        Visibility.INTERNAL,
    )
    conv = ContextMessage.conversation("k", Role.ASSISTANT, "t")
    assert (conv.target, conv.visibility) == (ContextMessageTarget.CONVERSATION, Visibility.ALL)
    assert ContextMessage.system_persistent("k", "t").persistent
    once = ContextMessage.emit_once("k", "t", ContextMessageTarget.CONVERSATION)
    assert once.persistent and once.consume_after_emit and once.visibility is Visibility.INTERNAL
    assert ContextMessage.system("k", "t").with_cooldown(3).cooldown_turns == 3


def test_context_message_ordering_and_store() -> None:
    msgs = [
        ContextMessage.suffix_system("z", "1"),
        ContextMessage.system("b", "2").with_priority(1),
        ContextMessage.system("a", "3").with_priority(1),
        ContextMessage.system("c", "4"),
        ContextMessage.session("s", Role.SYSTEM, "5"),
    ]
    state = ContextMessageStoreState()
    for m in msgs:
        state = ContextMessageStoreKey.apply(state, UpsertContextMessage(m))
    assert [m.key for m in state.sorted_messages()] == ["c", "a", "b", "s", "z"]
    state = ContextMessageStoreKey.apply(
        state, UpsertContextMessage(ContextMessage.system("c", "new"))
    )
    assert state.messages["c"].content[0].text == "new"
    state = ContextMessageStoreKey.apply(state, RemoveContextMessages(["a", "z", "missing"]))
    assert sorted(state.messages) == ["b", "c", "s"]
    assert ContextMessageStoreKey.decode(ContextMessageStoreKey.encode(state)) == state


def test_content_hash_is_stable_and_content_sensitive() -> None:
    a = ContextMessage.system("k", "hello")
    assert content_hash(a) == content_hash(ContextMessage.system("other-key", "hello"))
    assert content_hash(a) != content_hash(ContextMessage.system("k", "hello!"))
    assert content_hash(a) == 14_048_367_185_276_324_339  # blake2b-64, stable across processes


# --------------------------------------------------------------------------- runtime keys


def test_run_lifecycle_transitions() -> None:
    value = RunLifecycleKey.default()
    assert value.status is RunStatus.CREATED
    value = RunLifecycleKey.apply(value, RunLifecycleUpdate.start("r1", at=10))
    assert (value.run_id, value.status, value.step_count) == ("r1", RunStatus.RUNNING, 0)
    value = RunLifecycleKey.apply(value, RunLifecycleUpdate.step_completed_at(at=11))
    value = RunLifecycleKey.apply(value, RunLifecycleUpdate.set_waiting("suspended", at=12))
    assert (value.status, value.status_reason, value.step_count) == (
        RunStatus.WAITING,
        "suspended",
        1,
    )
    value = RunLifecycleKey.apply(value, RunLifecycleUpdate.step_completed_at(at=13))
    assert value.status is RunStatus.WAITING and value.step_count == 2
    value = RunLifecycleKey.apply(value, RunLifecycleUpdate.set_running(at=14))
    assert value.status is RunStatus.RUNNING and value.status_reason is None
    done = RunLifecycleKey.apply(value, RunLifecycleUpdate.done("natural", at=15))
    assert (done.status, done.status_reason, done.updated_at) == (RunStatus.DONE, "natural", 15)
    # Done is terminal: later updates are skipped.
    assert RunLifecycleKey.apply(done, RunLifecycleUpdate.set_running(at=16)) is done
    assert RunLifecycleKey.apply(done, RunLifecycleUpdate.step_completed_at(at=16)) is done


def test_run_lifecycle_json_and_aliases() -> None:
    value = RunLifecycleKey.apply(RunLifecycleKey.default(), RunLifecycleUpdate.start("r1", at=5))
    assert msgspec.json.encode(RunLifecycleKey.encode(value)) == (
        b'{"run_id":"r1","status":"running","updated_at":5,"step_count":0}'
    )
    decoded = RunLifecycleKey.decode(
        {
            "run_id": "r",
            "status": "waiting",
            "pause_reason": "suspended",
            "updated_at": 1,
            "step_count": 2,
        }
    )
    assert decoded.status_reason == "suspended"
    with pytest.raises(KeyDecode):
        RunLifecycleKey.decode({"run_id": "r", "status": "sleeping"})


def _call(call_id: str, status: ToolCallStatus) -> ToolCallState:
    return ToolCallState(call_id=call_id, tool_name="t", arguments={}, status=status, updated_at=1)


def test_tool_call_states_validate_transitions() -> None:
    states = ToolCallStatesMap()
    states = ToolCallStatesKey.apply(states, PutToolCallState(_call("c1", ToolCallStatus.RUNNING)))
    states = ToolCallStatesKey.apply(
        states, PutToolCallState(_call("c1", ToolCallStatus.SUCCEEDED))
    )
    assert states.calls["c1"].status is ToolCallStatus.SUCCEEDED
    # Terminal → running is invalid and skipped.
    same = ToolCallStatesKey.apply(states, PutToolCallState(_call("c1", ToolCallStatus.RUNNING)))
    assert same is states
    states = ToolCallStatesKey.apply(
        states, PutToolCallState(_call("c2", ToolCallStatus.SUSPENDED))
    )
    assert [s.call_id for s in states.with_status(ToolCallStatus.SUSPENDED)] == ["c2"]
    encoded = ToolCallStatesKey.encode(states)
    assert encoded["calls"]["c2"]["status"] == "suspended"
    assert ToolCallStatesKey.decode(encoded) == states
    assert ToolCallStatesKey.apply(states, ClearToolCallStates()).calls == {}


def test_tool_filter_union_then_exclude() -> None:
    state = ToolFilterState()
    state = ToolFilterKey.apply(state, IncludeOnlyToolsUpdate(["a", "b"]))
    state = ToolFilterKey.apply(state, IncludeOnlyToolsUpdate(["c"]))
    state = ToolFilterKey.apply(state, ExcludeToolUpdate("b"))
    assert state.filter_ids(["a", "b", "c", "d"]) == ["a", "c"]
    assert ToolFilterState(excluded=["x"]).filter_ids(["x", "y"]) == ["y"]
    assert ToolFilterKey.encode(state) == {"excluded": ["b"], "include_only": [["a", "b"], ["c"]]}
    assert ToolFilterKey.apply(state, ClearToolFilter()) == ToolFilterState()


def test_inference_override_merge_last_non_null_wins() -> None:
    state = InferenceOverrideState()
    state = InferenceOverrideKey.apply(
        state, MergeInferenceOverride(InferenceOverride(temperature=0.1, max_tokens=10))
    )
    state = InferenceOverrideKey.apply(
        state, MergeInferenceOverride(InferenceOverride(temperature=0.7))
    )
    assert state.overrides is not None
    assert (state.overrides.temperature, state.overrides.max_tokens) == (0.7, 10)
    assert InferenceOverrideKey.decode(InferenceOverrideKey.encode(state)) == state
    assert InferenceOverrideKey.apply(state, ClearInferenceOverride()).overrides is None
