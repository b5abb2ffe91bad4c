"""Golden tests of the A2A mapping: run/job status → task state, messages ↔ parts, cards,
and the decision a follow-up message carries."""

from __future__ import annotations

import msgspec
import pytest
from awaken_contract.contract.content import (
    AudioBlock,
    Base64Source,
    ContentBlock,
    DocumentBlock,
    ImageBlock,
    TextBlock,
    UrlSource,
)
from awaken_contract.contract.lifecycle import RunStatus, TerminationReason
from awaken_contract.contract.mailbox import MailboxJob, MailboxJobStatus
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.storage import RunRecord, RunWaitingState
from awaken_contract.contract.suspension import ResumeDecisionAction, WaitingReason
from awaken_server.protocols.a2a import TaskState, build_card, job_state, run_state
from awaken_server.protocols.a2a.convert import blocks_from_parts, to_a2a_message
from awaken_server.protocols.a2a.service import decision_of
from awaken_server.protocols.a2a.tasks import TaskRef
from awaken_server.protocols.a2a.wire import A2aMessage, Part


def _run(status: RunStatus, **extra: object) -> RunRecord:
    return RunRecord(
        run_id="r", thread_id="t", agent_id="a", status=status, created_at=1, updated_at=1, **extra
    )


def _waiting(reason: WaitingReason) -> RunRecord:
    return _run(RunStatus.WAITING, waiting=RunWaitingState(reason=reason))


def _done(termination: TerminationReason) -> RunRecord:
    return _run(RunStatus.DONE, termination_reason=termination)


@pytest.mark.parametrize(
    ("run", "state"),
    [
        (_run(RunStatus.CREATED), TaskState.SUBMITTED),
        (_run(RunStatus.RUNNING), TaskState.WORKING),
        (_waiting(WaitingReason.TOOL_PERMISSION), TaskState.AUTH_REQUIRED),
        (_waiting(WaitingReason.BACKGROUND_TASKS), TaskState.WORKING),
        (_waiting(WaitingReason.USER_INPUT), TaskState.INPUT_REQUIRED),
        (_run(RunStatus.WAITING), TaskState.INPUT_REQUIRED),
        (_done(TerminationReason.cancelled()), TaskState.CANCELED),
        (_done(TerminationReason.blocked("no")), TaskState.REJECTED),
        (_done(TerminationReason.error("boom")), TaskState.FAILED),
        (_done(TerminationReason.natural_end()), TaskState.COMPLETED),
        (_done(TerminationReason.stopped("max_rounds_reached")), TaskState.COMPLETED),
    ],
)
def test_run_status_to_task_state(run: RunRecord, state: TaskState) -> None:
    assert run_state(run) is state


def _job(status: MailboxJobStatus, job_id: str = "j") -> MailboxJob:
    job = MailboxJob.new("t", run_id="r", now=5_000)
    job.job_id = job_id
    job.status = status
    return job


def test_job_status_to_task_state() -> None:
    assert job_state(_job(MailboxJobStatus.QUEUED)) is TaskState.SUBMITTED
    assert job_state(_job(MailboxJobStatus.CLAIMED)) is TaskState.WORKING
    assert job_state(_job(MailboxJobStatus.ACCEPTED)) is TaskState.WORKING
    assert job_state(_job(MailboxJobStatus.CANCELLED)) is TaskState.CANCELED
    assert job_state(_job(MailboxJobStatus.SUPERSEDED)) is TaskState.CANCELED
    assert job_state(_job(MailboxJobStatus.DEAD_LETTER)) is TaskState.FAILED


def test_which_of_run_and_job_decides() -> None:
    def ref(run: RunRecord, job: MailboxJob | None) -> TaskState:
        return TaskRef("r", "t", "a", run, job).state()

    created = _run(RunStatus.CREATED)
    assert ref(created, _job(MailboxJobStatus.CLAIMED)) is TaskState.WORKING
    assert ref(created, None) is TaskState.SUBMITTED
    # The job executing a parked run is still claimed: the run record wins.
    parked = _waiting(WaitingReason.TOOL_PERMISSION)
    parked.dispatch_id = "j"
    assert ref(parked, _job(MailboxJobStatus.CLAIMED, "j")) is TaskState.AUTH_REQUIRED
    # A new activation of the parked run (a resume job) is what the task is now.
    assert ref(parked, _job(MailboxJobStatus.QUEUED, "j2")) is TaskState.SUBMITTED
    assert ref(parked, _job(MailboxJobStatus.CANCELLED, "j2")) is TaskState.CANCELED
    finished = _done(TerminationReason.natural_end())
    assert ref(finished, _job(MailboxJobStatus.CANCELLED)) is TaskState.COMPLETED


def test_parts_become_blocks() -> None:
    parts = [
        Part(text="hi"),
        Part(data={"b": 1, "a": [1, 2]}),
        Part(url="https://x.test/cat.PNG"),
        Part(url="https://x.test/report.pdf", filename="Report"),
        Part(url="https://x.test/blob"),
        Part(raw="AAAA", media_type="audio/wav"),
        Part(raw="QUJD"),
    ]
    blocks = blocks_from_parts(parts)
    assert blocks == [
        TextBlock(text="hi"),
        TextBlock(text='{"b":1,"a":[1,2]}'),
        ImageBlock(source=UrlSource(url="https://x.test/cat.PNG")),
        DocumentBlock(source=UrlSource(url="https://x.test/report.pdf"), title="Report"),
        DocumentBlock(source=UrlSource(url="https://x.test/blob")),
        AudioBlock(source=Base64Source(media_type="audio/wav", data="AAAA")),
        DocumentBlock(source=Base64Source(media_type="application/octet-stream", data="QUJD")),
    ]


def test_history_messages_keep_convertible_content_only() -> None:
    user = Message.user_with_content(
        [ContentBlock.text("look"), ContentBlock.image_url("https://x.test/a.jpg")]
    )
    user.id = "m1"
    converted = to_a2a_message(user, "task", "ctx")
    assert converted is not None
    assert msgspec.to_builtins(converted) == {
        "messageId": "m1",
        "role": "ROLE_USER",
        "parts": [{"text": "look"}, {"url": "https://x.test/a.jpg", "mediaType": "image/jpeg"}],
        "taskId": "task",
        "contextId": "ctx",
    }
    calls_only = Message.assistant_with_tool_calls("", [ToolCall("c", "t", {})])
    assert to_a2a_message(calls_only, "task", "ctx") is None
    assert to_a2a_message(Message.tool("c", "result"), "task", "ctx") is None
    assert to_a2a_message(Message.internal_user("secret"), "task", "ctx") is None


def test_tenant_card() -> None:
    card = msgspec.to_builtins(build_card("researcher", "http://h:1", tenant=True))
    assert card["supportedInterfaces"] == [
        {
            "url": "http://h:1/v1/a2a",
            "protocolBinding": "JSONRPC",
            "protocolVersion": "1.0",
            "tenant": "researcher",
        },
        {
            "url": "http://h:1/v1/a2a/researcher",
            "protocolBinding": "HTTP+JSON",
            "protocolVersion": "1.0",
            "tenant": "researcher",
        },
    ]
    assert card["defaultInputModes"] == ["text/plain", "application/json"]
    assert card["defaultOutputModes"] == ["text/plain"]
    assert "securitySchemes" not in card and "securityRequirements" not in card


def test_follow_up_message_decisions() -> None:
    def message(*parts: Part) -> A2aMessage:
        return A2aMessage(message_id="m", role="ROLE_USER", parts=list(parts))

    approve = decision_of(message(Part(data={"approved": True, "remember": True})))
    assert approve.action is ResumeDecisionAction.RESUME
    assert approve.result == {"approved": True, "remember": True}
    reject = decision_of(message(Part(data={"approved": False, "reason": "no"})))
    assert reject.action is ResumeDecisionAction.CANCEL and reject.reason == "no"
    cancel = decision_of(message(Part(data={"action": "cancel"})))
    assert cancel.action is ResumeDecisionAction.CANCEL
    text = decision_of(message(Part(text="blue"), Part(text="please")))
    assert text.action is ResumeDecisionAction.RESUME and text.result == "blue\nplease"


# ---------------------------------------------------------------------- snapshot goldens
async def _snapshot(run: RunRecord, messages: list[Message]) -> dict[str, object]:
    from awaken_server.app import AppState
    from awaken_server.protocols.a2a import TaskService
    from awaken_stores import InMemoryStore

    store = InMemoryStore()
    for index, message in enumerate(messages):
        message.id = f"m{index}"
    await store.checkpoint(run.thread_id, messages, run)
    service = TaskService(AppState.build(None, store))
    ref = await service.find(run.run_id)
    assert ref is not None
    return msgspec.to_builtins(await service.snapshot(ref))  # type: ignore[no-any-return]


def _user_and(*replies: Message) -> list[Message]:
    return [Message.user("question"), *replies]


def _history(*items: tuple[str, str, str]) -> list[dict[str, object]]:
    return [
        {
            "messageId": mid,
            "role": role,
            "parts": [{"text": text}],
            "taskId": "r",
            "contextId": "t",
        }
        for mid, role, text in items
    ]


async def test_snapshot_of_a_text_only_run() -> None:
    task = await _snapshot(
        _done(TerminationReason.natural_end()), _user_and(Message.assistant("A"))
    )
    history = _history(("m0", "ROLE_USER", "question"), ("m1", "ROLE_AGENT", "A"))
    assert task == {
        "id": "r",
        "contextId": "t",
        "status": {"state": "TASK_STATE_COMPLETED", "message": history[1]},
        "artifacts": [{"artifactId": "response", "parts": [{"text": "A"}], "name": "response"}],
        "history": history,
    }


async def test_snapshot_of_tool_call_and_reasoning_runs() -> None:
    thinking = Message.assistant("")
    thinking.content = [ContentBlock.thinking("hmm"), ContentBlock.text("B")]
    messages = _user_and(
        Message.assistant_with_tool_calls("", [ToolCall("c1", "get_weather", {})]),
        Message.tool("c1", '{"forecast":"sunny"}'),
        thinking,
    )
    task = await _snapshot(_done(TerminationReason.natural_end()), messages)
    assert task["history"] == _history(("m0", "ROLE_USER", "question"), ("m3", "ROLE_AGENT", "B"))
    assert task["status"] == {"state": "TASK_STATE_COMPLETED", "message": task["history"][1]}  # type: ignore[index]


async def test_snapshot_of_suspended_and_working_runs() -> None:
    parked = _waiting(WaitingReason.TOOL_PERMISSION)
    task = await _snapshot(parked, _user_and(Message.assistant("May I?")))
    assert task["status"] == {
        "state": "TASK_STATE_AUTH_REQUIRED",
        "message": _history(("m1", "ROLE_AGENT", "May I?"))[0],
    }
    assert "artifacts" not in task
    working = await _snapshot(_run(RunStatus.RUNNING), _user_and())
    assert working["status"] == {"state": "TASK_STATE_WORKING"}


async def test_snapshot_of_an_error_run() -> None:
    task = await _snapshot(_done(TerminationReason.error("provider down")), _user_and())
    assert task["status"] == {
        "state": "TASK_STATE_FAILED",
        "message": {
            "messageId": "r-error",
            "role": "ROLE_AGENT",
            "parts": [{"text": "provider down"}],
            "taskId": "r",
            "contextId": "t",
        },
    }
    assert "artifacts" not in task
