"""The ``awaken eval`` command's work, given a runtime (the ``awaken`` CLI builds it).

``evaluate`` runs a dataset file and writes the table (stdout), progress (stderr), and the
optional JSON / JUnit files; its exit status is 0 when the pass rate reaches the threshold,
1 below it. ``export`` turns stored runs into a dataset file.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path
from typing import TextIO

from awaken_contract.contract.storage import ThreadRunStore

from awaken_runtime.evals.dataset import EvalDataset
from awaken_runtime.evals.from_store import dataset_from_store
from awaken_runtime.evals.progress import StderrProgress
from awaken_runtime.evals.report import render_table, write_json, write_junit
from awaken_runtime.evals.runner import run_eval
from awaken_runtime.runtime import AgentRuntime

__all__ = ["evaluate", "export"]


async def evaluate(
    dataset_path: str | Path,
    runtime: AgentRuntime,
    *,
    agent_id: str | None = None,
    concurrency: int | None = None,
    threshold: float | None = None,
    json_path: str | Path | None = None,
    junit_path: str | Path | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Run the dataset at ``dataset_path``; 0 when it meets its threshold, else 1."""
    out = out or sys.stdout
    dataset = await asyncio.to_thread(EvalDataset.from_file, dataset_path)
    report = await run_eval(
        dataset,
        runtime,
        agent_id=agent_id,
        concurrency=concurrency,
        threshold=threshold,
        progress=StderrProgress(err),
    )
    width = shutil.get_terminal_size((120, 24)).columns
    out.write(render_table(report, width=max(width, 80)) + "\n")
    if json_path is not None:
        write_json(report, json_path)
    if junit_path is not None:
        write_junit(report, junit_path)
    return 0 if report.ok else 1


async def export(
    store: ThreadRunStore,
    thread_id: str,
    output: str | Path,
    *,
    run_id: str | None = None,
    out: TextIO | None = None,
) -> int:
    """Write the dataset of the thread's finished runs (or one run) to ``output``."""
    dataset = await dataset_from_store(store, thread_id, run_id)
    await asyncio.to_thread(Path(output).write_text, dataset.to_yaml(), encoding="utf-8")
    (out or sys.stdout).write(f"wrote {len(dataset.cases)} case(s) to {output}\n")
    return 0
