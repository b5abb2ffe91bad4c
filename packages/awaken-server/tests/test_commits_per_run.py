"""Durable commits per run on SQLite (ADR 0028): a count, not a timing.

The demo agent asked for the weather runs 2 steps (a tool call, then the answer). Its commits,
traced on the store's writer connection: the submission with the run-start checkpoint, the
``tool_started`` record, the tool's ``tool_finished`` with the step checkpoint, and the final
checkpoint with the job's completion — 4, each ``synchronous=FULL``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path

from awaken_contract.contract.mailbox import MailboxJobStatus
from awaken_server.testing import start_server
from awaken_stores.sqlite import SqliteStore, _in_thread

DemoRun = Callable[..., Awaitable[None]]  # the ``measured_demo_run`` fixture (conftest)

_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


class _Commits:
    """Write transactions committed on a connection, with their statements."""

    def __init__(self) -> None:
        self.transactions: list[list[str]] = []
        self._open: list[str] | None = None

    def trace(self, statement: str) -> None:
        head = statement.lstrip()[:8].upper()
        if head.startswith("BEGIN"):
            self._open = []
        elif head.startswith(("COMMIT", "END")):
            if self._open:
                self.transactions.append(self._open)
            self._open = None
        elif head.startswith("ROLLBACK") and not statement.upper().startswith("ROLLBACK TO"):
            self._open = None
        elif head.startswith(_WRITES):
            if self._open is None:
                self.transactions.append([statement])  # an autocommit write
            else:
                self._open.append(statement)

    def of_runs(self) -> list[list[str]]:
        """The transactions that wrote run data (a maintenance purge only deletes)."""
        return [
            t for t in self.transactions if any(s.lstrip().upper().startswith("INSERT") for s in t)
        ]


async def _traced_store(path: Path) -> tuple[SqliteStore, _Commits]:
    store = SqliteStore(path)
    commits = _Commits()
    conn = await store._db._connection()

    def install(c: sqlite3.Connection) -> None:
        c.set_trace_callback(commits.trace)

    await _in_thread(conn, install)
    return store, commits


async def test_two_step_run_commits_four_times(tmp_path: Path, measured_demo_run: DemoRun) -> None:
    store, commits = await _traced_store(tmp_path / "awaken.db")
    server = await start_server(store)

    async def reset() -> None:
        commits.transactions.clear()

    try:
        await measured_demo_run(server, reset)
        transactions = commits.of_runs()
        jobs = await store.mailbox.count_by_status(MailboxJobStatus.ACCEPTED)
    finally:
        await server.close()
        await store.close()
    assert len(transactions) == 4, "\n".join(
        f"{i}: " + " | ".join(s.split("(")[0][:40] for s in t) for i, t in enumerate(transactions)
    )
    assert jobs == 2  # both jobs completed (acked by their final checkpoints)
