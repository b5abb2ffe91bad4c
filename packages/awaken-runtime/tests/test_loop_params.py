"""One request shape from the job to the loop: the runtime hands its ``RunRequest`` to the loop
unchanged inside ``AgentLoopParams``; the book's standalone form builds the request."""

from __future__ import annotations

import pytest
from awaken_contract.contract.identity import RunIdentity, RunOrigin
from awaken_contract.contract.message import Message
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.suspension import ToolCallResume
from awaken_contract.contract.tool import ToolDescriptor
from awaken_contract.registry_spec import AgentSpec, InferenceOverride, ModelSpec
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step
from awaken_runtime.loop_runner import AgentLoopParams, LoopStatePlugin, run_agent_loop
from awaken_runtime.phase import PhaseRuntime
from awaken_runtime.runtime import agent_runtime
from awaken_runtime.state import StateStore
from awaken_stores import InMemoryStore


def _identity() -> RunIdentity:
    return RunIdentity(thread_id="t1", run_id="r1", agent_id="a", origin=RunOrigin.USER)


def _params(**extra: object) -> AgentLoopParams:
    store = StateStore()
    store.install_plugin(LoopStatePlugin())
    return AgentLoopParams(
        resolver=None,  # never resolved in these checks
        agent_id="a",
        runtime=PhaseRuntime(store),
        sink=None,
        checkpoint_store=None,
        messages=[],
        run_identity=_identity(),
        **extra,
    )


def test_the_book_form_builds_the_request_from_its_keywords() -> None:
    overrides = InferenceOverride(temperature=0.5)
    tools = [ToolDescriptor("client_tool", "client_tool", "runs in the browser")]
    decisions = [("c1", ToolCallResume.resume(True))]
    params = _params(overrides=overrides, frontend_tools=tools, decisions=decisions)
    assert params.request.thread_id == "t1"
    assert params.request.agent_id == "a"
    assert params.overrides is overrides and params.request.overrides is overrides
    assert params.frontend_tools == tools and params.request.frontend_tools == tools
    assert params.decisions == decisions and params.request.decisions == decisions


def test_a_given_request_is_carried_as_is() -> None:
    request = RunRequest("t1", [Message.user("hi")]).with_overrides(
        InferenceOverride(temperature=0.1)
    )
    params = _params(request=request)
    assert params.request is request
    assert params.overrides is request.overrides
    assert params.frontend_tools is request.frontend_tools
    assert params.decisions is request.decisions


def test_request_fields_cannot_be_given_twice() -> None:
    with pytest.raises(TypeError, match="on the request"):
        _params(request=RunRequest("t1"), overrides=InferenceOverride(temperature=0.1))


async def test_the_runtime_hands_the_loop_the_callers_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[AgentLoopParams] = []

    async def spy(params: AgentLoopParams):
        seen.append(params)
        return await run_agent_loop(params)

    monkeypatch.setattr(agent_runtime, "run_agent_loop", spy)
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("assistant").with_model("m"))
        .with_provider("scripted", ScriptedLlm([text_step("hello")]))
        .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
        .with_thread_run_store(InMemoryStore())
        .build()
    )
    request = RunRequest("t1", [Message.user("hi")]).with_agent_id("assistant")
    result = await runtime.run(request)
    assert result.response == "hello"
    assert [p.request for p in seen] == [request]
    assert seen[0].request is request
