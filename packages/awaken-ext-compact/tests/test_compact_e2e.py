"""End to end through ``AgentRuntimeBuilder``: a main agent and a compactor agent, both on
scripted models (the only mocks), a real SQLite file.

The compactor model is gated by an event, so a test decides when a summary is written: a run
that finishes while the gate is closed has provably not waited for it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.inference import StreamResult
from awaken_contract.contract.message import Message, Role
from awaken_contract.contract.request import RunRequest
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_ext_compact import CompactConfig, CompactConfigKey, CompactPlugin

pytest.importorskip("awaken_runtime")
pytest.importorskip("aiosqlite")

from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step
from awaken_stores import SqliteStore


class GatedCompactor(LlmExecutor):
    """The compactor agent's model: waits for ``gate``, then summarises what it was sent."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.entered = asyncio.Event()
        self.requests: list[InferenceRequest] = []

    async def execute(self, request: InferenceRequest) -> StreamResult:
        self.requests.append(request)
        self.entered.set()
        await self.gate.wait()
        return text_step(f"SUMMARY#{len(self.requests)}")

    def name(self) -> str:
        return "gated"


def _spec(**section: Any) -> AgentSpec:
    return (
        AgentSpec("assistant")
        .with_model("m")
        .with_system_prompt("Be brief.")
        .with_plugin("compact")
        .with_config(CompactConfigKey, CompactConfig(compactor="summarizer", **section))
    )


def _runtime(spec: AgentSpec, db: Path, main: LlmExecutor, compactor: GatedCompactor) -> Any:
    store = SqliteStore(str(db))
    plugin = CompactPlugin()
    runtime = (
        AgentRuntimeBuilder()
        .with_provider("main", main)
        .with_provider("compactor", compactor)
        .with_model("m", ModelSpec(id="m", provider="main", model="main-1"))
        .with_model("cm", ModelSpec(id="cm", provider="compactor", model="small-1"))
        .with_agent_spec(spec)
        .with_agent_spec(AgentSpec("summarizer").with_model("cm").with_system_prompt("Summarize."))
        .with_plugin("compact", plugin)
        .with_thread_run_store(store)
        .build()
    )
    plugin.bind_agent_runner(runtime)
    return runtime, store, plugin


async def _say(runtime: Any, text: str, thread: str = "t") -> Any:
    return await runtime.run(RunRequest(thread, [Message.user(text)]).with_agent_id("assistant"))


async def _until(check: Any, what: str) -> None:
    for _ in range(2000):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"gave up waiting for {what}")


def _layout(request: InferenceRequest) -> list[str]:
    return [f"{m.role.value}:{m.text()}" for m in request.messages]


async def test_message_count_trigger_summary_bridge_and_tail(tmp_path: Path) -> None:
    main, compactor = ScriptedLlm([]), GatedCompactor()
    spec = _spec(trigger_messages=6, keep_recent_messages=2)
    runtime, store, plugin = _runtime(spec, tmp_path / "a.db", main, compactor)
    for n in range(1, 4):
        await _say(runtime, f"u{n}")
    assert plugin.jobs.started == 0  # 1, 3 and 5 messages: below the trigger
    await _say(runtime, "u4")  # 7 messages → a summary of the first 5 starts
    assert plugin.jobs.started == 1 and plugin.jobs.running("t")
    # the run finished while the compactor was still blocked: it never waited
    assert len(main.requests[-1].messages) == 8  # system + 7 raw messages
    compactor.gate.set()
    summary = await plugin.jobs.wait("t")
    assert summary is not None and summary.covered == 5
    sent = compactor.requests[0].messages[-1].text()
    assert "[User]: u1" in sent and "[User]: u3" in sent and "u4" not in sent

    await _say(runtime, "u5")
    assert _layout(main.requests[-1]) == [
        "system:Be brief.",
        "system:<conversation-summary>\nSUMMARY#1\n</conversation-summary>",
        "assistant:Done.",  # bridge: not covered by the summary, older than the tail
        "user:u4",
        "assistant:Done.",  # tail
        "user:u5",
    ]
    transcript = await store.load_messages("t")
    assert transcript is not None and len(transcript) == 10
    assert all("SUMMARY" not in m.text() for m in transcript)  # request-only
    await plugin.close()  # no summary outlives the store
    await store.close()


async def test_the_summary_is_thread_state_reused_by_a_fresh_runtime(tmp_path: Path) -> None:
    compactor = GatedCompactor()
    compactor.gate.set()
    spec = _spec(trigger_messages=4, keep_recent_messages=2)
    runtime, store, plugin = _runtime(spec, tmp_path / "b.db", ScriptedLlm([]), compactor)
    for n in range(1, 4):
        await _say(runtime, f"u{n}")
    await plugin.jobs.wait("t")
    await _say(runtime, "u4")  # picks the finished summary up and commits it
    await plugin.close()  # no summary outlives the store
    await store.close()

    main = ScriptedLlm([])
    again, store, fresh = _runtime(spec, tmp_path / "b.db", main, GatedCompactor())
    await _say(again, "u5")
    assert fresh.jobs.latest("t") is None
    assert "SUMMARY#1" in _layout(main.requests[0])[1]
    await fresh.close()  # no summary outlives the store
    await store.close()


async def test_token_trigger_when_the_window_is_known(tmp_path: Path) -> None:
    main, compactor = ScriptedLlm([]), GatedCompactor()
    compactor.gate.set()
    # window 2000 tokens, trigger at 50 %: ~1000 tokens of history (each user turn ~300)
    spec = _spec(context_window_tokens=2000, trigger_ratio=0.5, keep_recent_messages=2)
    runtime, store, plugin = _runtime(spec, tmp_path / "c.db", main, compactor)
    await _say(runtime, "a" * 1200)
    await _say(runtime, "b" * 1200)
    assert plugin.jobs.started == 0  # ~600 tokens
    await _say(runtime, "c" * 1200)
    await _say(runtime, "d" * 1200)  # ~1200 tokens ≥ 1000
    assert plugin.jobs.started == 1
    await plugin.jobs.wait("t")
    # message count alone (8 < 40) would never have triggered
    assert CompactConfig().trigger_messages == 40
    await plugin.close()  # no summary outlives the store
    await store.close()


async def test_a_run_waits_only_when_the_window_would_overflow(tmp_path: Path) -> None:
    main, compactor = ScriptedLlm([]), GatedCompactor()
    spec = _spec(context_window_tokens=1500, trigger_ratio=0.5, keep_recent_messages=2)
    runtime, store, plugin = _runtime(spec, tmp_path / "d.db", main, compactor)
    await _say(runtime, "a" * 1600)
    await _say(runtime, "b" * 1600)  # ~800 tokens ≥ 750: summary starts, the run goes on
    assert plugin.jobs.running("t")
    assert main.requests[-1].messages[1].text().startswith("a")  # no summary yet
    overflowing = asyncio.create_task(_say(runtime, "c" * 2800))  # ~1520 tokens ≥ 1500
    await _until(lambda: plugin.jobs.waiting == 1, "the overflowing run to wait")
    assert len(main.requests) == 2 and not overflowing.done()  # blocked before inference
    compactor.gate.set()
    await overflowing
    assert "SUMMARY#1" in main.requests[-1].messages[1].text()
    await plugin.close()  # no summary outlives the store
    await store.close()


async def test_single_flight_under_concurrent_runs_on_one_thread(tmp_path: Path) -> None:
    main, compactor = ScriptedLlm([]), GatedCompactor()
    spec = _spec(trigger_messages=2, keep_recent_messages=1)
    runtime, store, plugin = _runtime(spec, tmp_path / "e.db", main, compactor)
    await _say(runtime, "u1")
    results = await asyncio.gather(
        *(_say(runtime, f"x{n}") for n in range(4)), return_exceptions=True
    )
    finished = [r for r in results if not isinstance(r, BaseException)]
    assert finished, results
    await _say(runtime, "u9")
    assert plugin.jobs.started == 1 and len(compactor.requests) == 1
    compactor.gate.set()
    await plugin.jobs.wait("t")
    assert len(compactor.requests) == 1
    await plugin.close()  # no summary outlives the store
    await store.close()


async def test_a_failing_compactor_never_breaks_the_run(tmp_path: Path) -> None:
    class Broken(GatedCompactor):
        async def execute(self, request: InferenceRequest) -> StreamResult:
            raise RuntimeError("compactor model down")

    main = ScriptedLlm([])
    spec = _spec(trigger_messages=2, keep_recent_messages=1)
    runtime, store, plugin = _runtime(spec, tmp_path / "f.db", main, Broken())
    await _say(runtime, "u1")
    await _say(runtime, "u2")
    await plugin.jobs.wait("t")
    result = await _say(runtime, "u3")
    assert result.response == "Done." and plugin.jobs.latest("t") is None
    assert [m.role for m in main.requests[-1].messages][:2] == [Role.SYSTEM, Role.USER]
    await plugin.close()  # no summary outlives the store
    await store.close()
