"""Property tests: every wire type survives encode → decode unchanged."""

from __future__ import annotations

from typing import Any

from awaken_contract.codec import decode_json, encode_json
from awaken_contract.contract.content import TextBlock, ThinkingBlock, ToolUseBlock
from awaken_contract.contract.event import (
    InferenceComplete,
    RunFinish,
    RunStart,
    TextDelta,
    ToolCallDone,
    ToolCallReady,
    decode_event,
)
from awaken_contract.contract.identity import RunIdentity, RunOrigin
from awaken_contract.contract.inference import TokenUsage
from awaken_contract.contract.lifecycle import RunStatus, TerminationReason
from awaken_contract.contract.mailbox import MailboxJob, MailboxJobStatus
from awaken_contract.contract.message import Message, Role, ToolCall, Visibility
from awaken_contract.contract.storage import RunRecord
from awaken_contract.contract.tool import ToolResult, ToolStatus
from awaken_contract.state import PersistedState
from hypothesis import given, settings
from hypothesis import strategies as st

json_scalar = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=20)
json_value = st.recursive(
    json_scalar,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
ids = st.text(min_size=1, max_size=12)
small_int = st.integers(0, 2**31 - 1)

blocks = st.one_of(
    st.builds(TextBlock, text=st.text(max_size=30)),
    st.builds(ThinkingBlock, thinking=st.text(max_size=30)),
    st.builds(ToolUseBlock, id=ids, name=ids, input=json_value),
)
messages = st.builds(
    Message,
    role=st.sampled_from(Role),
    content=st.lists(blocks, max_size=3),
    id=st.none() | ids,
    tool_calls=st.none()
    | st.lists(st.builds(ToolCall, ids, ids, json_value), min_size=1, max_size=2),
    tool_call_id=st.none() | ids,
    visibility=st.sampled_from(Visibility),
)
terminations = st.one_of(
    st.just(TerminationReason.natural_end()),
    st.just(TerminationReason.cancelled()),
    st.just(TerminationReason.suspended()),
    st.builds(TerminationReason.stopped, ids, st.none() | st.text(max_size=10)),
    st.builds(TerminationReason.blocked, st.text(max_size=10)),
    st.builds(TerminationReason.error, st.text(max_size=10)),
)
results = st.builds(
    ToolResult,
    tool_name=ids,
    status=st.sampled_from(ToolStatus),
    data=json_value,
    message=st.none() | st.text(max_size=10),
)
identities = st.builds(
    RunIdentity, thread_id=ids, run_id=ids, agent_id=ids, origin=st.sampled_from(RunOrigin)
)
usages = st.builds(
    TokenUsage,
    prompt_tokens=st.none() | small_int,
    completion_tokens=st.none() | small_int,
    total_tokens=st.none() | small_int,
    cache_read_tokens=st.none() | small_int,
)
events = st.one_of(
    st.builds(RunStart, thread_id=ids, run_id=ids, identity=st.none() | identities),
    st.builds(RunFinish, thread_id=ids, run_id=ids, termination=terminations),
    st.builds(TextDelta, delta=st.text(max_size=20)),
    st.builds(ToolCallReady, id=ids, name=ids, arguments=json_value),
    st.builds(
        ToolCallDone,
        id=ids,
        result=results,
        outcome=st.sampled_from(["succeeded", "failed", "suspended"]),
    ),
    st.builds(InferenceComplete, model=ids, duration_ms=small_int, usage=st.none() | usages),
)


@settings(max_examples=150, deadline=None)
@given(messages)
def test_message_round_trip(message: Message) -> None:
    assert decode_json(encode_json(message), Message) == message


@settings(max_examples=150, deadline=None)
@given(events)
def test_event_round_trip(event: Any) -> None:
    assert decode_event(encode_json(event)) == event


@settings(max_examples=100, deadline=None)
@given(terminations)
def test_termination_round_trip(reason: TerminationReason) -> None:
    assert decode_json(encode_json(reason), TerminationReason) == reason


@settings(max_examples=100, deadline=None)
@given(results)
def test_tool_result_round_trip(result: ToolResult) -> None:
    assert decode_json(encode_json(result), ToolResult) == result


# --------------------------------------------------------------------------- storage records

timestamps = st.integers(0, 2**41)
run_records = st.builds(
    RunRecord,
    run_id=ids,
    thread_id=ids,
    agent_id=ids,
    parent_run_id=st.none() | ids,
    status=st.sampled_from(RunStatus),
    termination_reason=st.none() | terminations,
    final_output=st.none() | st.text(max_size=20),
    created_at=timestamps,
    updated_at=timestamps,
    steps=small_int,
    input_tokens=small_int,
    output_tokens=small_int,
    state=st.none()
    | st.builds(
        PersistedState,
        revision=small_int,
        extensions=st.dictionaries(st.text(max_size=8), json_value, max_size=3),
    ),
)
mailbox_jobs = st.builds(
    MailboxJob,
    job_id=ids,
    mailbox_id=ids,
    agent_id=st.text(max_size=8),
    messages=st.lists(messages, max_size=2),
    priority=st.integers(0, 255),
    dedupe_key=st.none() | ids,
    generation=small_int,
    status=st.sampled_from(MailboxJobStatus),
    attempt_count=st.integers(0, 10),
    last_error=st.none() | st.text(max_size=10),
    claim_token=st.none() | ids,
    lease_until=st.none() | timestamps,
    termination=st.none() | terminations,
    created_at=timestamps,
    updated_at=timestamps,
)


@settings(max_examples=100, deadline=None)
@given(run_records)
def test_run_record_round_trip(record: RunRecord) -> None:
    assert decode_json(encode_json(record), RunRecord) == record


@settings(max_examples=100, deadline=None)
@given(mailbox_jobs)
def test_mailbox_job_round_trip(job: MailboxJob) -> None:
    assert decode_json(encode_json(job), MailboxJob) == job
