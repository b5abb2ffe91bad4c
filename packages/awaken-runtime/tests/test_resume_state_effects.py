"""Crash-resumed runs keep their tools' state effects and replay identical.

A process killed (SIGKILL) right after a tool finished — its result journaled, the step not yet
checkpointed — resumes in a new process with the recorded result *and* the state command the
tool returned re-applied; the tool never runs again. Killed during an (idempotent) tool or
during an inference, the run resumes as durability.md describes. Every crash-resumed run then
replays identical, the same state included.

When nothing between the step's last tool and its checkpoint can suspend (here: the after-tool
hook declares ``waits=False``), the tool's ``tool_finished`` commits with the step checkpoint
(ADR 0028): killed right after that commit, the tool never runs again; killed inside that
window, before the commit, the call counts as interrupted mid-call (this idempotent tool runs
again with the same call id, as it would if killed while running)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

_SCRIPT = textwrap.dedent(
    """
    import asyncio, json, os, signal, sys
    from pathlib import Path

    from awaken_contract.contract.event_sink import VecEventSink
    from awaken_contract.contract.executor import LlmExecutor, stream_events_of
    from awaken_contract.contract.inference import TextDeltaChunk
    from awaken_contract.contract.message import Message, ToolCall
    from awaken_contract.contract.request import RunRequest
    from awaken_contract.contract.tool import Tool, ToolDescriptor, ToolOutput, ToolResult
    from awaken_contract.model import Phase
    from awaken_contract.plugin import PhaseHook, Plugin, PluginDescriptor
    from awaken_contract.registry_spec import AgentSpec, ModelSpec
    from awaken_contract.state import (
        KeyScope, MergeStrategy, StateCommand, StateKey, StateKeyOptions,
    )
    from awaken_runtime import AgentRuntimeBuilder
    from awaken_runtime.engine import text_step, tool_step
    from awaken_runtime.replay import replay_run
    from awaken_stores import SqliteStore

    DB, MARKER, MODE, KILL = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    # the kill points inside and right after the merged tool_finished + step checkpoint commit
    MERGED = KILL in ("in_merged_window", "after_merged_commit")


    def kill(point):
        if MODE == "crash" and KILL == point:
            os.kill(os.getpid(), signal.SIGKILL)


    class Model(LlmExecutor):
        def __init__(self, steps):
            self.steps = steps

        async def execute(self, request):
            raise AssertionError("streamed only")

        async def stream(self, request):
            if len(self.steps) == 1 and MERGED and MODE == "crash":
                # the second inference: the step-1 checkpoint committed (with tool_finished)
                assert 'tool_finished' in journal_kinds(), "tool_finished must be committed"
                kill("after_merged_commit")
            if MODE == "crash" and KILL == "during_inference":
                yield TextDeltaChunk("Let me ")
                kill("during_inference")
            for event in stream_events_of(self.steps.pop(0)):
                yield event


    class Visits(StateKey[int, int]):
        KEY = "test.visits"
        MERGE = MergeStrategy.COMMUTATIVE
        # Run-scoped: the resumed attempt restores it from its run's last checkpoint
        SCOPE = KeyScope.RUN

        @classmethod
        def apply(cls, value, update):
            return value + update


    class Book(Tool):
        def descriptor(self):
            return ToolDescriptor("book", "Book", "Book a table").with_idempotent()

        async def execute(self, args, ctx):
            with MARKER.open("a") as out:  # the side effect, visible across processes
                out.write(ctx.call_id + "\\n")
            kill("during_tool")
            return ToolOutput.with_command(
                ToolResult.success("book", {"booked": True}), StateCommand().update(Visits, 3)
            )


    async def die(ctx):  # after the tool finished: its result is journaled, the step is not
        kill("after_tool")
        if MODE == "crash" and KILL == "in_merged_window":  # not committed: rides the step
            assert 'tool_finished' not in journal_kinds()
        kill("in_merged_window")
        return StateCommand()


    def journal_kinds():
        import sqlite3
        with sqlite3.connect(DB) as conn:
            return [r[0] for r in conn.execute("SELECT kind FROM awaken_journal")]


    class Crash(Plugin):
        def descriptor(self):
            return PluginDescriptor("crash")

        def register(self, registrar):
            registrar.register_key(Visits, StateKeyOptions())
            hook = PhaseHook.of(die, waits=not MERGED)  # never suspends: the merge applies
            registrar.register_phase_hook("crash", Phase.AFTER_TOOL_EXECUTE, hook)


    async def main():
        store = SqliteStore(DB)
        runtime = (
            AgentRuntimeBuilder()
            .with_agent_spec(AgentSpec("a").with_model("m").with_plugin("crash"))
            .with_plugin("crash", Crash())
            .with_tool("book", Book())
            .with_provider("llm", Model(
                [tool_step([ToolCall("b1", "book", {})]), text_step("Booked.")]
                if MODE == "crash" or KILL == "during_inference" else [text_step("Booked.")]
            ))
            .with_model("m", ModelSpec(id="m", provider="llm", model="m-1"))
            .with_thread_run_store(store)
            .build()
        )
        if MODE == "crash":
            request = RunRequest("t", [Message.user("book")]).with_run_id("r1")
        else:
            request = RunRequest("t", []).with_continue_run_id("r1")
        result = await runtime.run(request.with_agent_id("a"), VecEventSink())
        record = await store.load_run("r1")
        replay = (await replay_run(runtime, store, "r1")).describe()
        print(json.dumps({
            "response": result.response,
            "status": record.status.value,
            "state": record.state.extensions.get("test.visits"),
            "replay": replay,
        }))
        await store.close()


    asyncio.run(main())
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
@pytest.mark.parametrize(
    ("kill", "executions"),
    [
        ("after_tool", ["b1"]),  # finished and journaled: never runs again
        ("during_tool", ["b1", "b1"]),  # idempotent: runs again with the same call id
        ("during_inference", ["b1"]),  # nothing recorded: inferred again, the tool runs once
        ("after_merged_commit", ["b1"]),  # tool_finished committed with the step: never again
        ("in_merged_window", ["b1", "b1"]),  # before that commit: interrupted (idempotent: again)
    ],
)
def test_a_crash_resumed_run_keeps_its_tool_state_and_replays(
    tmp_path: Path, kill: str, executions: list[str]
) -> None:
    script = tmp_path / "run.py"
    script.write_text(_SCRIPT)
    db, marker = tmp_path / "r.db", tmp_path / "booked.txt"

    def run(mode: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(script), str(db), str(marker), mode, kill],
            capture_output=True,
            text=True,
            timeout=120,
        )

    crashed = run("crash")
    assert crashed.returncode == -9, crashed.stderr

    resumed = run("resume")
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)
    assert report["response"] == "Booked."
    assert report["status"] == "done"
    assert marker.read_text().split() == executions
    assert report["state"] == 3  # the tool's state command applied exactly once
    # the crash-resumed run replays identical (both attempts, the recorded state effects)
    assert report["replay"] == "identical"
