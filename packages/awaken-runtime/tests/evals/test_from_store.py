"""Cases from stored runs in a real SQLite file: export, then replay the dataset."""

from __future__ import annotations

from pathlib import Path

import pytest
from awaken_contract.contract.message import Message
from awaken_contract.contract.request import RunRequest
from awaken_runtime.evals import (
    EvalDataset,
    RunNotExportable,
    dataset_from_store,
    render_table,
    run_eval,
)
from awaken_stores import SqliteStore

from .conftest import RuntimeFactory


async def test_runs_become_cases_that_pass_on_replay(
    make_runtime: RuntimeFactory, tmp_path: Path
) -> None:
    store = SqliteStore(str(tmp_path / "runs.db"))
    try:
        runtime = make_runtime(store=store)
        for prompt in ("hello", "weather in Oslo"):
            request = RunRequest("t1", [Message.user(prompt)]).with_agent_id("assistant")
            await runtime.run(request)
        dataset = await dataset_from_store(store, "t1")
        first, second = dataset.cases
        assert dataset.agent == "assistant"
        assert [m.content for m in first.messages()] != []
        assert first.expected.output == "You said: hello" and first.expected.tool_calls is None
        assert [(m.role, m.content) for m in second.input] == [  # type: ignore[union-attr]
            ("user", "hello"),
            ("assistant", "You said: hello"),
            ("user", "weather in Oslo"),
        ]
        assert second.expected.tool_calls is not None
        assert second.expected.tool_calls[0].name == "get_weather"
        assert second.expected.tool_calls[0].arguments == {"city": "Oslo"}
        assert second.expected.output is not None and "sunny" in second.expected.output
        assert [s.type for s in second.effective_scorers()] == [
            "exact",
            "tool_calls",
            "termination",
        ]
        again = EvalDataset.from_yaml(dataset.to_yaml())
        report = await run_eval(again, make_runtime())
        assert report.ok, render_table(report)
        with pytest.raises(RunNotExportable, match="thread not found"):
            await dataset_from_store(store, "nope")
        with pytest.raises(RunNotExportable, match="run not found"):
            await dataset_from_store(store, "t1", "no-such-run")
    finally:
        await store.close()
