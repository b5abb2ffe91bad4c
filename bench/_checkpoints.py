"""The S3 step checkpoints of one S1 run, shared by ``s3_persistence`` and ``s3_history``.

The runtime's persistence pattern: after every step ``ThreadRunStore.checkpoint`` gets the
thread's whole message list so far and the updated ``RunRecord`` — 4 checkpoints per run (user
prompt, assistant tool call, tool result, final answer).
"""

from __future__ import annotations

from awaken_contract.contract.lifecycle import RunStatus, TerminationReason
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.storage import RunRecord, ThreadRunStore
from awaken_contract.ids import new_id, now_secs

PROMPT = "What is the weather in Tokyo?"
ANSWER = "Sunny in Tokyo."
STEPS = 4


async def s1_checkpoints(store: ThreadRunStore, thread_id: str, prior: list[Message]) -> str:
    """Persist one S1 run on ``thread_id`` after the ``prior`` messages; the final answer."""
    run_id, now = new_id(), now_secs()
    record = RunRecord(
        run_id=run_id,
        thread_id=thread_id,
        agent_id="assistant",
        status=RunStatus.RUNNING,
        created_at=now,
        started_at=now,
        updated_at=now,
    )
    messages = [*prior, Message.user(PROMPT)]
    await store.checkpoint(thread_id, messages, record)
    call = Message.assistant_with_tool_calls("", [ToolCall("c1", "get_weather", {"city": "Tokyo"})])
    call.mark_produced_by(run_id, 0)
    messages.append(call)
    record.steps, record.input_tokens, record.output_tokens = 1, 50, 10
    await store.checkpoint(thread_id, messages, record)
    result = Message.tool("c1", '{"forecast": "sunny in Tokyo"}')
    result.mark_produced_by(run_id, 0)
    messages.append(result)
    await store.checkpoint(thread_id, messages, record)
    final = Message.assistant(ANSWER)
    final.mark_produced_by(run_id, 1)
    messages.append(final)
    record.steps, record.input_tokens, record.output_tokens = 2, 100, 20
    record.status = RunStatus.DONE
    record.termination_reason = TerminationReason.natural_end()
    record.final_output = ANSWER
    record.finished_at = record.updated_at = now_secs()
    await store.checkpoint(thread_id, messages, record)
    return ANSWER
