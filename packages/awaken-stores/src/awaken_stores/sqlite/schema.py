"""Versioned SQLite migrations, recorded in ``awaken_schema_migrations``."""

from __future__ import annotations

import sqlite3

from awaken_contract.ids import now_ms

# Each migration is applied once, in order, inside one transaction; the applied versions are
# recorded in ``awaken_schema_migrations``.
MIGRATIONS: list[tuple[int, list[str]]] = [
    (
        1,
        [
            "CREATE TABLE awaken_threads (id TEXT PRIMARY KEY, data TEXT NOT NULL,"
            " activity_ms INTEGER NOT NULL)",
            "CREATE INDEX idx_awaken_threads_activity ON awaken_threads (activity_ms DESC, id)",
            "CREATE TABLE awaken_messages (thread_id TEXT PRIMARY KEY, data TEXT NOT NULL)",
            "CREATE TABLE awaken_runs (run_id TEXT PRIMARY KEY, thread_id TEXT NOT NULL,"
            " status TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,"
            " data TEXT NOT NULL)",
            "CREATE INDEX idx_awaken_runs_thread_updated ON awaken_runs (thread_id, updated_at)",
            "CREATE INDEX idx_awaken_runs_created ON awaken_runs (created_at)",
            "CREATE TABLE awaken_profiles (owner TEXT NOT NULL, key TEXT NOT NULL,"
            " data TEXT NOT NULL, PRIMARY KEY (owner, key))",
            "CREATE TABLE awaken_configs (namespace TEXT NOT NULL, id TEXT NOT NULL,"
            " data TEXT NOT NULL, PRIMARY KEY (namespace, id))",
            "CREATE TABLE awaken_mailbox_jobs (job_id TEXT PRIMARY KEY,"
            " mailbox_id TEXT NOT NULL, status TEXT NOT NULL, priority INTEGER NOT NULL,"
            " created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, lease_until INTEGER,"
            " data TEXT NOT NULL)",
            "CREATE INDEX idx_awaken_mailbox_jobs_mailbox ON awaken_mailbox_jobs"
            " (mailbox_id, status)",
            "CREATE INDEX idx_awaken_mailbox_jobs_status ON awaken_mailbox_jobs"
            " (status, updated_at)",
            "CREATE TABLE awaken_mailbox_generations (mailbox_id TEXT PRIMARY KEY,"
            " generation INTEGER NOT NULL)",
        ],
    ),
    # 2: the message log becomes one row per message (append-only checkpoints) with a head per
    # thread (count + write token); run journals. Existing message lists are split into rows.
    (
        2,
        [
            "CREATE TABLE awaken_messages_v2 (thread_id TEXT NOT NULL, seq INTEGER NOT NULL,"
            " data TEXT NOT NULL, PRIMARY KEY (thread_id, seq)) WITHOUT ROWID",
            "INSERT INTO awaken_messages_v2 (thread_id, seq, data)"
            " SELECT m.thread_id, j.key + 1, j.value FROM awaken_messages m, json_each(m.data) j",
            "CREATE TABLE awaken_message_heads (thread_id TEXT PRIMARY KEY,"
            " count INTEGER NOT NULL, token TEXT NOT NULL) WITHOUT ROWID",
            "INSERT INTO awaken_message_heads SELECT thread_id, json_array_length(data), ''"
            " FROM awaken_messages",
            "DROP TABLE awaken_messages",
            "ALTER TABLE awaken_messages_v2 RENAME TO awaken_messages",
            "CREATE TABLE awaken_journal (run_id TEXT NOT NULL, seq INTEGER NOT NULL,"
            " kind TEXT NOT NULL, created_at INTEGER NOT NULL, data TEXT NOT NULL,"
            " PRIMARY KEY (run_id, seq)) WITHOUT ROWID",
        ],
    ),
    # 3: a thread's latest run is the first entry of an index in ``latest_run``'s order (it
    # sorted every run of the thread in a temporary b-tree before).
    (
        3,
        [
            "CREATE INDEX idx_awaken_runs_thread_latest ON awaken_runs"
            " (thread_id, updated_at DESC, run_id DESC)",
            "DROP INDEX idx_awaken_runs_thread_updated",
        ],
    ),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]


def _migrate(conn: sqlite3.Connection) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS awaken_schema_migrations"
            " (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)"
        )
        row = conn.execute("SELECT MAX(version) FROM awaken_schema_migrations").fetchone()
        current = row[0] or 0
        for version, statements in MIGRATIONS:
            if version > current:
                for statement in statements:
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO awaken_schema_migrations VALUES (?, ?)", (version, now_ms())
                )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
