"""Versioned PostgreSQL migrations (applied once each, in order, under an advisory lock)."""

from __future__ import annotations


def _migrations(p: str) -> list[tuple[int, list[str]]]:
    return [
        (
            1,
            [
                f"CREATE TABLE IF NOT EXISTS {p}_threads (id TEXT PRIMARY KEY, data JSONB NOT NULL,"
                " activity_ms BIGINT NOT NULL DEFAULT 0,"
                " updated_at TIMESTAMPTZ NOT NULL DEFAULT now())",
                f"CREATE INDEX IF NOT EXISTS idx_{p}_threads_activity ON {p}_threads"
                " (activity_ms DESC, id)",
                f"CREATE TABLE IF NOT EXISTS {p}_messages (thread_id TEXT PRIMARY KEY,"
                " data JSONB NOT NULL, updated_at TIMESTAMPTZ NOT NULL DEFAULT now())",
                f"CREATE TABLE IF NOT EXISTS {p}_runs (run_id TEXT PRIMARY KEY,"
                " thread_id TEXT NOT NULL, agent_id TEXT NOT NULL DEFAULT '',"
                " parent_run_id TEXT, request JSONB, run_input JSONB, run_output JSONB,"
                " status TEXT NOT NULL, termination_reason JSONB, final_output TEXT,"
                " error_payload JSONB, dispatch_id TEXT, session_id TEXT,"
                " transport_request_id TEXT, waiting JSONB, outcome JSONB,"
                " created_at BIGINT NOT NULL, started_at BIGINT, finished_at BIGINT,"
                " updated_at BIGINT NOT NULL, steps INTEGER NOT NULL DEFAULT 0,"
                " input_tokens BIGINT NOT NULL DEFAULT 0, output_tokens BIGINT NOT NULL DEFAULT 0,"
                " state JSONB)",
                f"CREATE INDEX IF NOT EXISTS idx_{p}_runs_thread_created ON {p}_runs"
                " (thread_id, created_at DESC)",
                f"CREATE INDEX IF NOT EXISTS idx_{p}_runs_thread_updated ON {p}_runs"
                " (thread_id, updated_at DESC)",
                f"CREATE TABLE IF NOT EXISTS {p}_profiles (owner TEXT NOT NULL, key TEXT NOT NULL,"
                " data JSONB NOT NULL, updated_at BIGINT NOT NULL, PRIMARY KEY (owner, key))",
                f"CREATE TABLE IF NOT EXISTS {p}_configs (namespace TEXT NOT NULL,"
                " id TEXT NOT NULL, data JSONB NOT NULL,"
                " updated_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (namespace, id))",
                f"CREATE TABLE IF NOT EXISTS {p}_mailbox_jobs (job_id TEXT PRIMARY KEY,"
                " mailbox_id TEXT NOT NULL, status TEXT NOT NULL, priority INTEGER NOT NULL,"
                " created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, lease_until BIGINT,"
                " data JSONB NOT NULL)",
                f"CREATE INDEX IF NOT EXISTS idx_{p}_mailbox_jobs_mailbox ON {p}_mailbox_jobs"
                " (mailbox_id, status)",
                f"CREATE INDEX IF NOT EXISTS idx_{p}_mailbox_jobs_status ON {p}_mailbox_jobs"
                " (status, lease_until)",
                f"CREATE TABLE IF NOT EXISTS {p}_mailbox_generations (mailbox_id TEXT PRIMARY KEY,"
                " generation BIGINT NOT NULL DEFAULT 0)",
            ],
        ),
        # 2: cumulative inference cost of a run (ModelSpec pricing).
        (2, [f"ALTER TABLE {p}_runs ADD COLUMN IF NOT EXISTS cost DOUBLE PRECISION"]),
        # 3: one row per message (append-only checkpoints) with a head per thread (count + write
        # token); run journals. Existing message lists are split into rows.
        (
            3,
            [
                f"CREATE TABLE {p}_messages_v3 (thread_id TEXT NOT NULL, seq INTEGER NOT NULL,"
                " data JSONB NOT NULL, updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),"
                f" CONSTRAINT {p}_messages_v3_pkey PRIMARY KEY (thread_id, seq))",
                f"INSERT INTO {p}_messages_v3 (thread_id, seq, data) SELECT m.thread_id, e.ord,"
                f" e.value FROM {p}_messages m, jsonb_array_elements(m.data) WITH ORDINALITY"
                " AS e(value, ord) WHERE jsonb_typeof(m.data) = 'array'",
                f"CREATE TABLE {p}_message_heads (thread_id TEXT PRIMARY KEY,"
                " count INTEGER NOT NULL, token TEXT NOT NULL)",
                f"INSERT INTO {p}_message_heads SELECT thread_id, jsonb_array_length(data), ''"
                f" FROM {p}_messages WHERE jsonb_typeof(data) = 'array'",
                f"DROP TABLE {p}_messages",
                f"ALTER TABLE {p}_messages_v3 RENAME TO {p}_messages",
                f"CREATE TABLE {p}_journal (run_id TEXT NOT NULL, seq BIGINT NOT NULL,"
                " kind TEXT NOT NULL, created_at BIGINT NOT NULL, data JSONB NOT NULL,"
                " PRIMARY KEY (run_id, seq))",
                f"CREATE TABLE {p}_journal_heads (run_id TEXT PRIMARY KEY,"
                " last_seq BIGINT NOT NULL)",
            ],
        ),
    ]
