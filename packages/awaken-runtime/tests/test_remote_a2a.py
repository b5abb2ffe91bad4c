"""A2aBackend against a scripted A2A v1.0 server on a real loopback socket.

The server answers ``message:send`` by the prompt: ``direct`` → a message, ``ok`` → a task
that completes after two polls, ``fail`` / ``reject`` / ``input`` / ``auth`` → those
states, ``slow`` → a task that never finishes, ``broken`` → HTTP 500.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from awaken_contract.contract.cancellation import CancellationToken
from awaken_contract.contract.event import ActivitySnapshot, AgentEvent
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.message import Message
from awaken_contract.errors import ExecutionFailed, InvalidRemoteEndpointConfig
from awaken_contract.ids import new_id
from awaken_contract.registry_spec import AgentSpec, RemoteEndpoint
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.extensions.delegation import DelegateStatus
from awaken_runtime.remote import A2aBackend, A2aEndpointConfig
from awaken_runtime.testing import wait_until
from awaken_runtime.testing.pytest_plugin import ServeAsgi
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route


class RemoteA2a:
    """State of the scripted server."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, str], Any]] = []
        self.polls: dict[str, int] = {}
        self.kinds: dict[str, str] = {}
        self.cancelled: list[str] = []

    def app(self) -> Starlette:
        async def send(request: Request) -> Response:
            body = await request.json()
            self.requests.append(("POST", request.url.path, dict(request.headers), body))
            prompt = body["message"]["parts"][0]["text"]
            continued = body["message"].get("taskId")
            if continued is not None:
                self.kinds[continued] = f"answered {prompt}"
                return JSONResponse({"task": self.task(continued)})
            if prompt == "broken":
                return Response("nope", status_code=500)
            if prompt == "direct":
                return JSONResponse(
                    {"message": {"messageId": "x", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}}
                )
            task_id = f"task-{len(self.requests)}"
            self.kinds[task_id] = prompt
            return JSONResponse({"task": self.task(task_id)})

        async def get(request: Request) -> Response:
            task_id = request.path_params["task_id"]
            self.requests.append(("GET", request.url.path, dict(request.headers), None))
            self.polls[task_id] = self.polls.get(task_id, 0) + 1
            return JSONResponse(self.task(task_id))

        async def cancel(request: Request) -> Response:
            task_id = request.path_params["task_id"]
            self.cancelled.append(task_id)
            return JSONResponse(self.task(task_id))

        return Starlette(
            routes=[
                Route("/v1/a2a/{tenant}/message:send", send, methods=["POST"]),
                Route("/v1/a2a/{tenant}/tasks/{task_id}:cancel", cancel, methods=["POST"]),
                Route("/v1/a2a/{tenant}/tasks/{task_id}", get, methods=["GET"]),
            ]
        )

    def task(self, task_id: str) -> dict[str, Any]:
        kind = self.kinds[task_id]
        polls = self.polls.get(task_id, 0)
        status: dict[str, Any] = {"state": "TASK_STATE_WORKING"}
        task: dict[str, Any] = {"id": task_id, "contextId": "ctx", "status": status}
        agent = {"messageId": "a", "role": "ROLE_AGENT", "parts": [{"text": f"{kind} says"}]}
        if kind == "ok" and polls >= 2:
            status.update(state="TASK_STATE_COMPLETED", message=agent)
            task["artifacts"] = [
                {"artifactId": "response", "name": "response", "parts": [{"text": "final"}]},
                {"artifactId": "data", "parts": [{"data": {"n": 1}}]},
            ]
        elif kind == "fail":
            status.update(state="TASK_STATE_FAILED", message=agent)
        elif kind == "reject":
            status.update(state="TASK_STATE_REJECTED")
        elif kind == "input":
            status.update(state="TASK_STATE_INPUT_REQUIRED", message=agent)
        elif kind == "auth":
            status.update(state="TASK_STATE_AUTH_REQUIRED")
        elif kind == "ok":
            status.update(state="TASK_STATE_SUBMITTED" if polls == 0 else "TASK_STATE_WORKING")
        elif kind.startswith("answered"):
            status.update(state="TASK_STATE_COMPLETED", message=agent)
        return task


@pytest.fixture
async def remote(serve: ServeAsgi) -> tuple[RemoteA2a, str]:
    state = RemoteA2a()
    return state, f"{await serve(state.app())}/v1/a2a"


def _backend(base: str, **options: Any) -> A2aBackend:
    endpoint = RemoteEndpoint(
        base_url=base,
        target="researcher",
        timeout_ms=options.pop("timeout_ms", 10_000),
        options={"poll_interval_ms": 10, **options},
    ).with_bearer_token("secret")
    return A2aBackend.from_endpoint("remote", endpoint)


async def _run(
    backend: A2aBackend, prompt: str, parent: str | None = None, **kwargs: Any
) -> tuple[Any, list[AgentEvent]]:
    """One delegated call; each call is its own parent run unless ``parent`` is given."""
    sink = VecEventSink()
    result = await backend.execute(
        "remote", [Message.user(prompt)], sink, parent or new_id(), "call-1", **kwargs
    )
    return result, sink.take()


def test_endpoint_validation_and_defaults() -> None:
    config = A2aEndpointConfig.from_endpoint(RemoteEndpoint.a2a("https://h/v1/a2a/", "t"))
    assert config.base_url == "https://h/v1/a2a/t"
    assert (config.poll_interval_ms, config.return_immediately, config.timeout_ms) == (
        2000,
        True,
        300_000,
    )
    assert config.bearer_token is None and config.history_length is None
    bad = [
        {"options": {"poll_interval_ms": "fast"}},
        {"options": {"history_length": -1}},
        {"options": {"return_immediately": "yes"}},
        {"auth": {"type": "basic", "token": "x"}},
        {"auth": {"type": "bearer", "token": ""}},
        {"base_url": "ftp://h"},
    ]
    for update in bad:
        endpoint = RemoteEndpoint.model_validate({"base_url": "https://h/v1/a2a", **update})
        with pytest.raises(ValueError):
            A2aEndpointConfig.from_endpoint(endpoint)


def test_invalid_endpoint_fails_the_build() -> None:
    builder = AgentRuntimeBuilder().with_agent_spec(
        AgentSpec("far").with_endpoint(
            RemoteEndpoint.model_validate(
                {"base_url": "https://h", "options": {"poll_interval_ms": -5}}
            )
        )
    )
    with pytest.raises(Exception) as failure:
        builder.build()
    assert "poll_interval_ms" in str(failure.value)
    runtime = builder.build_unchecked()
    with pytest.raises(InvalidRemoteEndpointConfig):
        runtime.resolver.validate_remote(runtime.registries.agents.get("far"))  # type: ignore[attr-defined]


async def test_completed_task_after_polling(remote: tuple[RemoteA2a, str]) -> None:
    state, base = remote
    result, events = await _run(_backend(base, history_length=5), "ok")
    assert result.status.kind is DelegateStatus.COMPLETED
    assert result.response == "final"
    assert result.run_id == "task-1" and result.steps == 1
    assert [a["id"] for a in result.output.artifacts] == ["response", "data"]
    method, path, headers, body = state.requests[0]
    assert (method, path) == ("POST", "/v1/a2a/researcher/message:send")
    assert headers["authorization"] == "Bearer secret" and headers["a2a-version"] == "1.0"
    assert body["configuration"] == {
        "acceptedOutputModes": ["text/plain", "application/json", "application/octet-stream"],
        "returnImmediately": True,
        "historyLength": 5,
    }
    assert body["message"]["role"] == "ROLE_USER" and body["message"]["parts"] == [{"text": "ok"}]
    assert state.polls["task-1"] == 2
    progress = [e for e in events if isinstance(e, ActivitySnapshot)]
    assert [p.content["state"] for p in progress] == [
        "TASK_STATE_SUBMITTED",
        "TASK_STATE_WORKING",
        "TASK_STATE_COMPLETED",
    ]
    assert progress[-1].activity_type == "a2a-task-progress"
    assert progress[-1].content["schema"] == "a2a-task-progress.v1"


async def test_direct_message_and_failures(remote: tuple[RemoteA2a, str]) -> None:
    _, base = remote
    backend = _backend(base)
    direct, _ = await _run(backend, "direct")
    assert direct.status.kind is DelegateStatus.COMPLETED and direct.response == "hi"
    failed, _ = await _run(backend, "fail")
    assert str(failed.status) == "failed: fail says"
    rejected, _ = await _run(backend, "reject")
    assert str(rejected.status) == "failed: remote agent rejected the task"
    waiting, _ = await _run(backend, "input")
    assert waiting.status.kind is DelegateStatus.WAITING_INPUT
    assert waiting.status.message == "input says"
    auth, _ = await _run(backend, "auth")
    assert str(auth.status) == "waiting_auth: remote agent requires authentication"
    with pytest.raises(ExecutionFailed, match="HTTP 500"):
        await _run(backend, "broken")
    with pytest.raises(ExecutionFailed, match="no user message content"):
        await backend.execute("remote", [Message.assistant("x")], VecEventSink(), None, None)


async def test_timeout_and_cancellation(remote: tuple[RemoteA2a, str]) -> None:
    state, base = remote
    timed_out, _ = await _run(_backend(base, timeout_ms=100), "slow")
    assert timed_out.status.kind is DelegateStatus.TIMEOUT
    token = CancellationToken()
    pending = asyncio.create_task(_run(_backend(base), "slow", cancellation_token=token))
    await wait_until(lambda: len(state.kinds) >= 2, message="the second slow task accepted")
    token.cancel()
    cancelled, _ = await pending
    assert cancelled.status.kind is DelegateStatus.CANCELLED
    assert state.cancelled == [cancelled.run_id]


async def test_transport_error_is_execution_failed() -> None:
    backend = _backend("http://127.0.0.1:9/v1/a2a")
    with pytest.raises(ExecutionFailed, match="failed"):
        await _run(backend, "ok")


async def test_remote_failures_become_tool_errors(remote: tuple[RemoteA2a, str]) -> None:
    from awaken_contract.contract.content import ContentBlock
    from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
    from awaken_contract.contract.inference import StopReason, StreamResult
    from awaken_contract.contract.message import Role, ToolCall
    from awaken_contract.contract.request import RunRequest
    from awaken_contract.registry_spec import ModelSpec

    class Delegating(LlmExecutor):
        async def execute(self, request: InferenceRequest) -> StreamResult:
            last = request.messages[-1]
            if last.role is Role.TOOL:
                return StreamResult(
                    content=[ContentBlock.text(f"saw: {last.text()}")],
                    stop_reason=StopReason.END_TURN,
                )
            return StreamResult(
                content=[],
                tool_calls=[ToolCall("c1", "agent_run_far", {"prompt": last.text()})],
                stop_reason=StopReason.TOOL_USE,
            )

        def name(self) -> str:
            return "delegating"

    _, base = remote
    endpoint = RemoteEndpoint(base_url=base, target="researcher", options={"poll_interval_ms": 10})
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("boss").with_model("m").with_delegate("far"))
        .with_agent_spec(AgentSpec("far").with_endpoint(endpoint))
        .with_provider("p", Delegating())
        .with_model("m", ModelSpec(id="m", provider="p", model="x"))
        .build()
    )
    assert "agent_run_far" in runtime.resolve("boss").tools
    sink = VecEventSink()
    result = await runtime.run(
        RunRequest("t-1", [Message.user("fail")]).with_agent_id("boss"), sink
    )
    assert result.response.startswith("saw: ")
    assert "delegation to far failed: fail says" in result.response
    ok = await runtime.run(RunRequest("t-2", [Message.user("ok")]).with_agent_id("boss"), sink)
    assert '"status":"completed"' in ok.response and '"response":"final"' in ok.response


async def test_an_interrupted_remote_task_is_continued(remote: tuple[RemoteA2a, str]) -> None:
    state, base = remote
    backend = _backend(base)
    first, _ = await _run(backend, "input", "run-1")
    assert first.status.kind is DelegateStatus.WAITING_INPUT
    remembered = backend.remote_task("run-1")
    assert remembered is not None and remembered.last_state == "TASK_STATE_INPUT_REQUIRED"
    second, _ = await _run(backend, "blue", "run-1")
    assert second.status.kind is DelegateStatus.COMPLETED
    assert second.run_id == first.run_id and second.response == "answered blue says"
    sent = state.requests[-1][3]["message"]
    assert (sent["taskId"], sent["contextId"]) == (first.run_id, "ctx")
    third, _ = await _run(backend, "direct", "run-1")
    assert "taskId" not in state.requests[-1][3]["message"]
    assert state.requests[-1][3]["message"]["contextId"] == "ctx"
    assert third.status.kind is DelegateStatus.COMPLETED
    other = await backend.execute("remote", [Message.user("direct")], VecEventSink(), "run-2", None)
    assert "contextId" not in state.requests[-1][3]["message"] and other.response == "hi"
