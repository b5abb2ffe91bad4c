"""``AgentRuntime`` is the server's ``AgentRuntimeApi``; errors say whether a retry can help."""

import pytest
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.message import Message
from awaken_contract.contract.request import RunRequest
from awaken_contract.errors import (
    AgentNotFound,
    AgentRuntimeError,
    AwakenError,
    InferenceFailed,
    InvalidResume,
    LoopStorageFailed,
    ProviderAuthError,
    RateLimited,
    ResolveAgentNotFound,
    ResolveFailed,
    StorageIoError,
    ThreadAlreadyRunning,
)
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_contract.runtime import AgentRunResult, AgentRuntimeApi
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step


def _runtime() -> AgentRuntimeApi:
    return (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("assistant").with_model("m"))
        .with_provider("scripted", ScriptedLlm([text_step("hello")]))
        .with_model("m", ModelSpec(id="m", provider="scripted", model="scripted-1"))
        .build()
    )


async def test_agent_runtime_serves_the_api() -> None:
    api = _runtime()
    assert sorted(api.agents()) == ["assistant"]
    assert api.can_resolve("assistant")
    assert not api.can_resolve("nobody")
    assert api.active_run_id("t1") is None
    assert not api.cancel("t1")
    assert not api.send_messages("t1", [Message.user("late")])
    assert not await api.cancel_and_wait_by_thread("t1", 0.1)
    result = await api.run(RunRequest("t1", [Message.user("hi")]).with_agent_id("assistant"))
    assert isinstance(result, AgentRunResult)
    assert result.response == "hello" and result.is_success


def test_agent_run_result_keeps_its_runtime_import_path() -> None:
    from awaken_runtime import AgentRunResult as FromRuntime

    assert FromRuntime is AgentRunResult


@pytest.mark.parametrize(
    ("error", "retryable"),
    [
        (AwakenError("x"), False),
        (AgentRuntimeError("x"), True),
        (ThreadAlreadyRunning("t"), False),
        (AgentNotFound("a"), False),
        (ResolveFailed("x"), False),
        (ResolveAgentNotFound("a"), False),
        (StorageIoError("disk"), True),
        (InferenceFailed("x"), True),
        (LoopStorageFailed("x"), True),
        (InvalidResume("x"), False),
        (RateLimited("slow down"), True),
        (ProviderAuthError("401"), False),
    ],
)
def test_errors_say_whether_a_retry_can_help(error: AwakenError, retryable: bool) -> None:
    assert error.retryable is retryable


async def test_a_run_streams_to_the_given_sink() -> None:
    sink = VecEventSink()
    result = await _runtime().run(RunRequest("t2", [Message.user("hi")]), sink)
    assert result.response == "hello"
    assert sink.take()
