"""A2A v1.0 end to end with the official ``a2a-sdk`` client against a live Awaken server.

Real servers on loopback ports (SQLite files, mailbox, uvicorn); the only mock is the
scripted model. The client fetches the public card, sends blocking and non-blocking
messages, polls, streams, cancels a running task, answers a tool approval and a question
— over the JSON-RPC binding with the client's default settings, and over HTTP+JSON; a local
agent delegates to the second server through ``A2aBackend``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from a2a.client import ClientConfig, ClientFactory, create_client
from a2a.client.card_resolver import A2ACardResolver
from a2a.types import a2a_pb2 as pb
from awaken_contract.actions import RunLifecycleKey, RunLifecycleUpdate
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.inference import StreamResult
from awaken_contract.contract.lifecycle import TerminationKind
from awaken_contract.contract.message import Message, Role, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.suspension import (
    ToolCallResume,
)
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.ids import new_id
from awaken_contract.model import Phase
from awaken_contract.plugin import PhaseContext, Plugin, PluginDescriptor, PluginRegistrar
from awaken_contract.registry_spec import AgentSpec, ModelSpec, RemoteEndpoint
from awaken_contract.state import StateCommand
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.state.remote_tasks import DelegateRemoteTasksKey
from awaken_runtime.testing import text_step, tool_step, wait_until
from awaken_server.app import AppState, ServerConfig, create_app
from awaken_server.protocols.a2a import a2a_routes
from awaken_stores import SqliteStore

from tests.e2e.conftest import DeployTool

EXTENDED_TOKEN = "card-secret"


class SlowTool(Tool):
    """Blocks until cancelled (so a task stays WORKING)."""

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("slow", "Slow", "Takes forever")

    async def execute(self, args: dict[str, Any], ctx: ToolCallContext) -> ToolResult:
        await asyncio.Event().wait()
        return ToolResult.success("slow", {})


class LookupTool(Tool):
    """Finds two candidates (the model then has to ask the user which one)."""

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("lookup", "Lookup", "Look a name up")

    async def execute(self, args: dict[str, Any], ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success("lookup", {"candidates": ["Paris, France", "Paris, Texas"]})


class AskUserPlugin(Plugin):
    """Parks the run waiting for user input (no tool ticket) after an ambiguous lookup."""

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("ask-user")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_phase_hook("ask-user", Phase.STEP_END, self._after_step)

    @staticmethod
    async def _after_step(ctx: PhaseContext) -> StateCommand:
        command = StateCommand()
        last = ctx.messages[-1] if ctx.messages else None
        if last is not None and last.role is Role.TOOL and "candidates" in last.text():
            command.update(RunLifecycleKey, RunLifecycleUpdate.set_waiting("input_required"))
        return command


class Scripted(LlmExecutor):
    """Echoes the user; ``slow``/``deploy``/``lookup`` call those tools; delegates when a
    delegate tool exists."""

    async def execute(self, request: InferenceRequest) -> StreamResult:
        last = request.messages[-1]
        offered = {t.id for t in request.tools}
        if last.role is Role.TOOL:
            return _text(f"Done: {last.text()}")
        asked = last.text()
        delegate = next((t for t in sorted(offered) if t.startswith("agent_run_")), None)
        if delegate is not None:
            return _call(delegate, {"prompt": f"research {asked}"})
        for tool in ("slow", "deploy", "lookup"):
            if tool in asked:
                return _call(tool, {})
        return _text(f"Echo: {asked}")

    def name(self) -> str:
        return "scripted"


def _text(text: str) -> StreamResult:
    return text_step(text)


def _call(name: str, args: dict[str, Any]) -> StreamResult:
    return tool_step([ToolCall(f"call_{new_id()}", name, args)])


def _a2a_app(
    agents: list[AgentSpec], deploy: DeployTool | None = None
) -> Callable[[SqliteStore], Any]:
    """An app factory: the given agents, the slow/deploy/lookup tools, the ``ask-user``
    plugin and the A2A routes."""

    def make_app(store: SqliteStore) -> Any:
        runtime = (
            AgentRuntimeBuilder()
            .with_agent_specs(agents)
            .with_tool("slow", SlowTool())
            .with_tool("deploy", deploy or DeployTool())
            .with_tool("lookup", LookupTool())
            .with_plugin("ask-user", AskUserPlugin())
            .with_provider("scripted", Scripted())
            .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
            .with_thread_run_store(store)
            .build()
        )
        config = ServerConfig(a2a_extended_card_bearer_token=EXTENDED_TOKEN)
        state = AppState.build(runtime, store, config=config)
        return create_app(state, extra_routes=a2a_routes())

    return make_app


def _agent(agent_id: str) -> AgentSpec:
    return AgentSpec(agent_id).with_model("m").with_system_prompt("Be brief.").with_max_rounds(4)


@pytest.fixture(scope="module")
def remote(tmp_path_factory: pytest.TempPathFactory, serve_app: Any) -> Any:
    db = tmp_path_factory.mktemp("a2a-remote") / "a.db"
    return serve_app(db, _a2a_app([_agent("researcher")]))


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory, serve_app: Any, remote: Any) -> Any:
    endpoint = RemoteEndpoint.a2a(f"{remote.base_url}/v1/a2a", target="researcher").model_copy(
        update={"options": {"poll_interval_ms": 50}, "timeout_ms": 30_000}
    )
    agents = [
        _agent("default"),
        _agent("orchestrator").with_delegate("remote_researcher"),
        AgentSpec("remote_researcher").with_endpoint(endpoint),
    ]
    return serve_app(tmp_path_factory.mktemp("a2a-local") / "b.db", _a2a_app(agents))


async def _client(base_url: str, *, streaming: bool = False, binding: str = "HTTP+JSON") -> Any:
    async with httpx.AsyncClient() as http:
        card = await A2ACardResolver(http, base_url).get_agent_card()
    config = ClientConfig(streaming=streaming, supported_protocol_bindings=[binding])
    return ClientFactory(config).create(card), card


async def _default_client(base_url: str) -> Any:
    """The SDK's default client: JSON-RPC binding, streaming preferred."""
    return await create_client(base_url)


def _user(text: str, **ids: str) -> pb.Message:
    return pb.Message(message_id=new_id(), role=pb.ROLE_USER, parts=[pb.Part(text=text)], **ids)


async def _send(client: Any, message: pb.Message, *, immediately: bool = False) -> pb.Task:
    request = pb.SendMessageRequest(
        message=message,
        configuration=pb.SendMessageConfiguration(return_immediately=immediately),
    )
    responses = [r async for r in client.send_message(request)]
    assert len(responses) == 1 and responses[0].HasField("task")
    task: pb.Task = responses[0].task
    return task


async def _poll(client: Any, task_id: str, *, until: set[int]) -> pb.Task:
    async def reached() -> pb.Task | None:
        task: pb.Task = await client.get_task(pb.GetTaskRequest(id=task_id))
        return task if task.status.state in until else None

    task: pb.Task = await wait_until(reached, message=f"task {task_id} in states {until}")
    return task


async def test_card_is_fetched_and_parsed(local: Any) -> None:
    client, card = await _client(local.base_url)
    assert card.name == "default"
    bindings = [(i.protocol_binding, i.url, i.protocol_version) for i in card.supported_interfaces]
    assert bindings == [
        ("JSONRPC", f"{local.base_url}/v1/a2a", "1.0"),
        ("HTTP+JSON", f"{local.base_url}/v1/a2a", "1.0"),
    ]
    assert card.capabilities.streaming and card.capabilities.push_notifications
    assert card.capabilities.extended_agent_card
    assert [s.id for s in card.skills] == ["default"]
    await client.close()


async def test_blocking_send_completes_with_artifact(local: Any) -> None:
    client, _ = await _client(local.base_url)
    task = await _send(client, _user("hello"))
    assert task.status.state == pb.TASK_STATE_COMPLETED
    assert task.status.message.role == pb.ROLE_AGENT
    assert task.status.message.parts[0].text == "Echo: hello"
    assert [a.artifact_id for a in task.artifacts] == ["response"]
    assert [m.role for m in task.history] == [pb.ROLE_USER, pb.ROLE_AGENT]
    await client.close()


async def test_non_blocking_send_then_poll(local: Any) -> None:
    client, _ = await _client(local.base_url)
    context = new_id()
    task = await _send(client, _user("first", context_id=context), immediately=True)
    assert task.context_id == context
    assert task.status.state in (pb.TASK_STATE_SUBMITTED, pb.TASK_STATE_WORKING)
    done = await _poll(client, task.id, until={pb.TASK_STATE_COMPLETED})
    assert done.status.message.parts[0].text == "Echo: first"
    # A second task in the same context only carries its own messages.
    second = await _send(client, _user("second", context_id=context))
    assert second.id != task.id and second.context_id == context
    assert [p.text for m in second.history for p in m.parts] == ["second", "Echo: second"]
    listed = await client.list_tasks(pb.ListTasksRequest(context_id=context))
    assert {t.id for t in listed.tasks} == {task.id, second.id}
    await client.close()


async def test_streaming_send_reports_status_updates(local: Any) -> None:
    client, _ = await _client(local.base_url, streaming=True)
    request = pb.SendMessageRequest(message=_user("streamed"))
    frames = [r async for r in client.send_message(request)]
    assert frames[0].HasField("task")
    states = [f.status_update.status.state for f in frames if f.HasField("status_update")]
    assert states[-1] == pb.TASK_STATE_COMPLETED
    artifacts = [f.artifact_update for f in frames if f.HasField("artifact_update")]
    assert artifacts and artifacts[-1].artifact.parts[0].text == "Echo: streamed"
    await client.close()


@pytest.mark.parametrize("binding", ["HTTP+JSON", "JSONRPC"])
async def test_cancel_a_running_task_while_subscribed(local: Any, binding: str) -> None:
    client, _ = await _client(local.base_url, binding=binding)
    watcher, _ = await _client(local.base_url, streaming=True, binding=binding)
    task = await _send(client, _user("please be slow"), immediately=True)
    await _poll(client, task.id, until={pb.TASK_STATE_WORKING})

    subscribed = asyncio.Event()

    async def watch() -> list[pb.StreamResponse]:
        frames = []
        async for frame in watcher.subscribe(pb.SubscribeToTaskRequest(id=task.id)):
            frames.append(frame)
            subscribed.set()
        return frames

    subscription = asyncio.create_task(watch())
    await asyncio.wait_for(subscribed.wait(), 30)
    cancelled = await client.cancel_task(pb.CancelTaskRequest(id=task.id))
    assert cancelled.status.state == pb.TASK_STATE_CANCELED
    again = await client.get_task(pb.GetTaskRequest(id=task.id))
    assert again.status.state == pb.TASK_STATE_CANCELED
    frames = await asyncio.wait_for(subscription, 30)
    assert frames[0].task.id == task.id
    last = frames[-1]
    final = (
        last.status_update.status.state
        if last.HasField("status_update")
        else last.task.status.state
    )
    assert final == pb.TASK_STATE_CANCELED
    await client.close()
    await watcher.close()


async def test_unknown_task_is_task_not_found(local: Any) -> None:
    from a2a.utils.errors import TaskNotFoundError

    client, _ = await _client(local.base_url)
    with pytest.raises(TaskNotFoundError):
        await client.get_task(pb.GetTaskRequest(id="no-such-task"))
    await client.close()


async def test_local_agent_delegates_to_remote_server(local: Any, remote: Any) -> None:
    async with httpx.AsyncClient(base_url=local.base_url, timeout=60) as http:
        body = {
            "message": {
                "messageId": new_id(),
                "role": "ROLE_USER",
                "parts": [{"text": "quantum"}],
            }
        }
        response = await http.post("/v1/a2a/orchestrator/message:send", json=body)
    assert response.status_code == 200, response.text
    task = response.json()["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    final = task["status"]["message"]["parts"][0]["text"]
    assert final.startswith("Done: ") and "Echo: research quantum" in final
    # The remote server ran the delegated task as its own A2A task.
    async with httpx.AsyncClient(base_url=remote.base_url) as http:
        listed = (await http.get("/v1/a2a/tasks", params={"status": "completed"})).json()
    texts = [t["status"]["message"]["parts"][0]["text"] for t in listed["tasks"]]
    assert "Echo: research quantum" in texts


# ---------------------------------------------------------------------- JSON-RPC, default client
@pytest.fixture(scope="module")
def rpc(tmp_path_factory: pytest.TempPathFactory, serve_app: Any) -> Any:
    """A server whose default agent may park for user input (the ``ask-user`` plugin)."""
    agents = [_agent("assistant").with_plugin("ask-user")]
    return serve_app(tmp_path_factory.mktemp("a2a-rpc") / "r.db", _a2a_app(agents))


def _final_state(frames: list[pb.StreamResponse]) -> int:
    """The state of the last task or status frame of a stream."""
    for frame in reversed(frames):
        if frame.HasField("status_update"):
            return int(frame.status_update.status.state)
        if frame.HasField("task"):
            return int(frame.task.status.state)
    raise AssertionError(f"no task or status frame in {frames}")


async def test_default_client_negotiates_jsonrpc_and_streams(rpc: Any) -> None:
    client = await _default_client(rpc.base_url)
    frames = [f async for f in client.send_message(pb.SendMessageRequest(message=_user("hi")))]
    assert frames[0].HasField("task")
    assert _final_state(frames) == pb.TASK_STATE_COMPLETED
    artifacts = [f.artifact_update for f in frames if f.HasField("artifact_update")]
    assert artifacts[-1].artifact.parts[0].text == "Echo: hi"
    task = await client.get_task(pb.GetTaskRequest(id=frames[0].task.id, history_length=1))
    assert task.status.state == pb.TASK_STATE_COMPLETED
    assert [p.text for m in task.history for p in m.parts] == ["Echo: hi"]
    await client.close()


async def test_jsonrpc_blocking_send_list_and_errors(rpc: Any) -> None:
    from a2a.utils.errors import InvalidParamsError, TaskNotCancelableError, TaskNotFoundError

    client = await create_client(rpc.base_url, ClientConfig(streaming=False))
    context = new_id()
    [response] = [
        r
        async for r in client.send_message(
            pb.SendMessageRequest(message=_user("one", context_id=context))
        )
    ]
    task = response.task
    assert task.status.state == pb.TASK_STATE_COMPLETED and task.context_id == context
    assert task.status.message.parts[0].text == "Echo: one"
    listed = await client.list_tasks(pb.ListTasksRequest(context_id=context))
    assert [t.id for t in listed.tasks] == [task.id] and listed.total_size == 1
    with pytest.raises(TaskNotFoundError):
        await client.get_task(pb.GetTaskRequest(id="no-such-task"))
    with pytest.raises(TaskNotCancelableError):
        await client.cancel_task(pb.CancelTaskRequest(id=task.id))
    with pytest.raises(InvalidParamsError):
        bad = pb.Message(message_id=new_id(), role=pb.ROLE_AGENT, parts=[pb.Part(text="x")])
        [r async for r in client.send_message(pb.SendMessageRequest(message=bad))]
    await client.close()


async def test_jsonrpc_tool_approval_continues_the_task(rpc: Any) -> None:
    client = await _default_client(rpc.base_url)
    frames = [f async for f in client.send_message(pb.SendMessageRequest(message=_user("deploy")))]
    task_id, context_id = frames[0].task.id, frames[0].task.context_id
    assert _final_state(frames) == pb.TASK_STATE_AUTH_REQUIRED
    approval = pb.Message(
        message_id=new_id(),
        role=pb.ROLE_USER,
        task_id=task_id,
        context_id=context_id,
        parts=[pb.Part(data=_struct({"approved": True}))],
    )
    frames = [f async for f in client.send_message(pb.SendMessageRequest(message=approval))]
    assert _final_state(frames) == pb.TASK_STATE_COMPLETED
    done = await client.get_task(pb.GetTaskRequest(id=task_id))
    assert done.status.message.parts[0].text == 'Done: {"deployed":true}'
    await client.close()


async def test_input_required_without_tickets_continues_the_same_run(rpc: Any) -> None:
    client = await _default_client(rpc.base_url)
    frames = [f async for f in client.send_message(pb.SendMessageRequest(message=_user("lookup")))]
    task_id, context_id = frames[0].task.id, frames[0].task.context_id
    assert _final_state(frames) == pb.TASK_STATE_INPUT_REQUIRED
    answer = _user("the one in France", task_id=task_id, context_id=context_id)
    frames = [f async for f in client.send_message(pb.SendMessageRequest(message=answer))]
    assert _final_state(frames) == pb.TASK_STATE_COMPLETED
    done = await client.get_task(pb.GetTaskRequest(id=task_id))
    assert done.id == task_id
    assert done.status.message.parts[0].text == "Echo: the one in France"
    texts = [p.text for m in done.history for p in m.parts]
    assert texts[0] == "lookup" and texts[-2:] == ["the one in France", "Echo: the one in France"]
    # One run: the answer continued the parked task instead of starting a new one.
    listed = await client.list_tasks(pb.ListTasksRequest(context_id=context_id))
    assert [t.id for t in listed.tasks] == [task_id]
    await client.close()


def _struct(value: dict[str, Any]) -> Any:
    from google.protobuf import struct_pb2

    data = struct_pb2.Value()
    data.struct_value.update(value)
    return data


# ---------------------------------------------------------------------- a resumed parent
def _parent_runtime(store: SqliteStore, remote_url: str) -> Any:
    endpoint = RemoteEndpoint.a2a(f"{remote_url}/v1/a2a", target="researcher").model_copy(
        update={"options": {"poll_interval_ms": 50}, "timeout_ms": 30_000}
    )
    return (
        AgentRuntimeBuilder()
        .with_agent_specs(
            [
                _agent("orchestrator").with_delegate("remote_researcher"),
                AgentSpec("remote_researcher").with_endpoint(endpoint),
            ]
        )
        .with_provider("scripted", Scripted())
        .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
        .with_thread_run_store(store)
        .build()
    )


@contextlib.asynccontextmanager
async def _opened(db: Path) -> AsyncIterator[SqliteStore]:
    """A SQLite store on ``db``, closed however the block ends (its thread would keep the
    test process alive)."""
    store = SqliteStore(db)
    try:
        yield store
    finally:
        await store.close()


async def _remote_tasks(base_url: str) -> list[dict[str, Any]]:
    async with httpx.AsyncClient(base_url=base_url) as http:
        listed = (await http.get("/v1/a2a/researcher/tasks")).json()
    tasks: list[dict[str, Any]] = listed.get("tasks", [])
    return tasks


async def test_a_resumed_parent_continues_the_remote_sub_task(
    tmp_path: Path, serve_app: Any
) -> None:
    deploy = DeployTool()
    remote = serve_app(tmp_path / "remote.db", _a2a_app([_agent("researcher")], deploy))
    db = tmp_path / "parent.db"

    # The parent delegates; the remote sub-task waits for an approval; the parent parks.
    async with _opened(db) as store:
        first = await _parent_runtime(store, remote.base_url).run(
            RunRequest("parent-thread", [Message.user("deploy")]).with_agent_id("orchestrator"),
            VecEventSink(),
            wait_for_decisions=False,
        )
        record = await store.load_run(first.run_id)
    assert first.termination.type is TerminationKind.SUSPENDED
    assert record is not None and record.waiting is not None and record.state is not None
    [ticket] = record.waiting.tickets
    persisted = record.state.extensions.get(DelegateRemoteTasksKey.KEY, {})
    [waiting] = await _remote_tasks(remote.base_url)
    assert waiting["status"]["state"] == "TASK_STATE_AUTH_REQUIRED"
    assert persisted["remote_researcher"]["task_id"] == waiting["id"]
    assert deploy.deployed == 0

    # A fresh runtime on the same store resumes the parent with a decision.
    async with _opened(db) as store:
        resumed = await _parent_runtime(store, remote.base_url).run(
            RunRequest("parent-thread", [])
            .with_agent_id("orchestrator")
            .with_decision(ticket.tool_call_id, ToolCallResume.resume({"approved": True})),
            VecEventSink(),
        )
    assert resumed.run_id == first.run_id
    assert resumed.termination.type is TerminationKind.NATURAL_END
    assert 'Done: {\\"deployed\\":true}' in resumed.response
    # The same remote task continued (no second task) and the remote tool ran once.
    [done] = await _remote_tasks(remote.base_url)
    assert done["id"] == waiting["id"] and done["status"]["state"] == "TASK_STATE_COMPLETED"
    assert deploy.deployed == 1
