"""Deterministic replay: re-run a finished run's loop against its journal, compare the events.

``report = await replay_run(runtime, store, run_id)`` → ``report.identical`` or
``report.divergence`` (the first difference: seq, expected vs actual, a field diff). No model
is called, no tool executes and nothing is written. See docs/durability.md, "Replay".
"""

from awaken_runtime.replay.batch import replay_finished_runs
from awaken_runtime.replay.errors import (
    JournalUnavailable,
    ReplayError,
    RunNotFinished,
    UnknownRun,
)
from awaken_runtime.replay.normalise import ID_FIELDS, VOLATILE_FIELDS, EventNormaliser
from awaken_runtime.replay.report import Divergence, ReplayReport, ReplayStatus
from awaken_runtime.replay.run import replay_run

__all__ = [
    "ID_FIELDS",
    "VOLATILE_FIELDS",
    "Divergence",
    "EventNormaliser",
    "JournalUnavailable",
    "ReplayError",
    "ReplayReport",
    "ReplayStatus",
    "RunNotFinished",
    "UnknownRun",
    "replay_finished_runs",
    "replay_run",
]
