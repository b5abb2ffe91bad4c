"""Write transactions per run on PostgreSQL (ADR 0028): a count, not a timing.

As on SQLite (``test_commits_per_run``), the demo agent's 2-step run commits 4 times: the
submission with the run-start checkpoint, ``tool_started``, ``tool_finished`` with the step
checkpoint, and the final checkpoint with the job's completion. Counted by the database itself:
a row trigger on every store table records the id of each transaction that changed a row.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import asyncpg
import pytest
from awaken_contract.testing.postgres import fresh_database
from awaken_server.testing import start_server
from awaken_stores import PostgresStore

DemoRun = Callable[..., Awaitable[None]]  # the ``measured_demo_run`` fixture (conftest)

pytestmark = pytest.mark.postgres

_TABLES = (
    "threads",
    "messages",
    "message_heads",
    "runs",
    "journal",
    "journal_heads",
    "mailbox_jobs",
    "mailbox_generations",
)


async def _count_writing_transactions(conn: asyncpg.Connection, prefix: str) -> None:
    await conn.execute(
        f"CREATE TABLE {prefix}_txlog (txid BIGINT PRIMARY KEY);"
        f" CREATE FUNCTION {prefix}_log_tx() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
        f" INSERT INTO {prefix}_txlog VALUES (txid_current()) ON CONFLICT DO NOTHING;"
        " RETURN NULL; END $$;"
    )
    for table in _TABLES:
        await conn.execute(
            f"CREATE TRIGGER {prefix}_{table}_tx AFTER INSERT OR UPDATE OR DELETE"
            f" ON {prefix}_{table} FOR EACH ROW EXECUTE FUNCTION {prefix}_log_tx()"
        )


async def test_two_step_run_commits_four_times(
    postgres_dsn: str, measured_demo_run: DemoRun
) -> None:
    dsn = await fresh_database(postgres_dsn, "awaken_commits_per_run")
    store = PostgresStore(dsn)
    await store.ensure_schema()
    conn = await asyncpg.connect(dsn)

    async def reset() -> None:
        await conn.execute("DELETE FROM awaken_txlog")

    try:
        await _count_writing_transactions(conn, "awaken")
        server = await start_server(store)
        try:
            await measured_demo_run(server, reset)
            transactions = await conn.fetchval("SELECT COUNT(*) FROM awaken_txlog")
        finally:
            await server.close()  # (closes the store too)
    finally:
        await conn.close()
    assert transactions == 4
