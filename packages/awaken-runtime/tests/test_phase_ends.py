"""Every phase a plugin observes has an end: a failed inference still runs AfterInference (with
the error), and a parked run runs RunEnd with termination ``suspended`` (RunStart again when it
resumes in place)."""

import asyncio
from typing import Any

from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.inference import StreamResult
from awaken_contract.contract.lifecycle import TerminationKind
from awaken_contract.contract.message import Message, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.suspension import ToolCallResume, ToolCallResumeMode
from awaken_contract.errors import InferenceFailed, ProviderError
from awaken_contract.model import Phase
from awaken_contract.plugin import PhaseContext, Plugin, PluginDescriptor, PluginRegistrar
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_contract.state import StateCommand
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step

from .test_hitl_resume import ApprovalGate, Deploy, wait_for_suspension


class PhaseRecorder(Plugin):
    """Records (phase, context) of every phase it hooks."""

    def __init__(self) -> None:
        self.seen: list[tuple[Phase, PhaseContext]] = []

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("recorder")

    def register(self, registrar: PluginRegistrar) -> None:
        for phase in (Phase.RUN_START, Phase.AFTER_INFERENCE, Phase.RUN_END):
            registrar.register_phase_hook("recorder", phase, self._hook)
        registrar.register_tool_gate_hook(
            "recorder", ApprovalGate(ToolCallResumeMode.REPLAY_TOOL_CALL)
        )

    async def _hook(self, ctx: PhaseContext) -> StateCommand:
        self.seen.append((ctx.phase, ctx))
        return StateCommand()

    def phases(self) -> list[Phase]:
        return [phase for phase, _ in self.seen]


class Unreachable(LlmExecutor):
    async def execute(self, request: InferenceRequest) -> StreamResult:
        raise ProviderError("upstream unreachable")

    def name(self) -> str:
        return "unreachable"


def build(llm: LlmExecutor, recorder: PhaseRecorder) -> Any:
    return (
        AgentRuntimeBuilder()
        .with_agent_spec(AgentSpec("a").with_model("m").with_plugin("recorder"))
        .with_plugin("recorder", recorder)
        .with_tool("deploy", Deploy())
        .with_provider("llm", llm)
        .with_model("m", ModelSpec(id="m", provider="llm", model="m-1"))
        .build()
    )


async def test_failed_inference_runs_after_inference_with_the_error() -> None:
    recorder = PhaseRecorder()
    result = await build(Unreachable(), recorder).run(
        RunRequest("t1", [Message.user("hi")]).with_agent_id("a")
    )
    assert result.termination.type is TerminationKind.ERROR
    assert recorder.phases() == [Phase.RUN_START, Phase.AFTER_INFERENCE, Phase.RUN_END]
    after = recorder.seen[1][1]
    assert after.llm_response is None
    assert isinstance(after.inference_error, InferenceFailed)
    assert isinstance(after.inference_error.__cause__, ProviderError)
    assert (after.inference_model, after.inference_provider) == ("m-1", "llm")
    assert after.inference_duration_ms is not None and after.inference_duration_ms >= 0
    end = recorder.seen[2][1]
    assert end.termination is not None and end.termination.type is TerminationKind.ERROR


async def test_successful_inference_carries_model_and_provider() -> None:
    recorder = PhaseRecorder()
    await build(ScriptedLlm([text_step("ok")]), recorder).run(
        RunRequest("t1", [Message.user("hi")]).with_agent_id("a")
    )
    after = recorder.seen[1][1]
    assert after.inference_error is None and after.llm_response is not None
    assert (after.inference_model, after.inference_provider) == ("m-1", "llm")
    assert recorder.seen[-1][1].termination.type is TerminationKind.NATURAL_END  # type: ignore[union-attr]


async def test_parked_run_ends_suspended_without_waiting() -> None:
    recorder = PhaseRecorder()
    llm = ScriptedLlm([tool_step([ToolCall("c1", "deploy", {})])])
    result = await build(llm, recorder).run(
        RunRequest("t1", [Message.user("deploy")]).with_agent_id("a"),
        wait_for_decisions=False,
    )
    assert result.termination.type is TerminationKind.SUSPENDED
    assert recorder.phases() == [Phase.RUN_START, Phase.AFTER_INFERENCE, Phase.RUN_END]
    end = recorder.seen[-1][1]
    assert end.termination is not None and end.termination.type is TerminationKind.SUSPENDED


async def test_in_place_resume_restarts_with_run_start() -> None:
    recorder = PhaseRecorder()
    llm = ScriptedLlm([tool_step([ToolCall("c1", "deploy", {})]), text_step("Deployed.")])
    runtime = build(llm, recorder)
    sink = VecEventSink()
    task = asyncio.ensure_future(
        runtime.run(RunRequest("t1", [Message.user("deploy")]).with_agent_id("a"), sink)
    )
    await wait_for_suspension(sink)
    assert runtime.send_decision("t1", "c1", ToolCallResume.resume(True))
    result = await asyncio.wait_for(task, 10)
    assert result.termination.type is TerminationKind.NATURAL_END
    assert recorder.phases() == [
        Phase.RUN_START,
        Phase.AFTER_INFERENCE,
        Phase.RUN_END,  # parked
        Phase.RUN_START,  # resumed in place
        Phase.AFTER_INFERENCE,
        Phase.RUN_END,
    ]
    kinds = [ctx.termination.type for p, ctx in recorder.seen if p is Phase.RUN_END]  # type: ignore[union-attr]
    assert kinds == [TerminationKind.SUSPENDED, TerminationKind.NATURAL_END]
