"""PostgreSQL stores on asyncpg: connection pool, table prefix, versioned migrations.

Tables (default prefix ``awaken``): ``awaken_threads``, ``awaken_messages`` (one row per message),
``awaken_message_heads``, ``awaken_runs``, ``awaken_journal``, ``awaken_journal_heads``,
``awaken_profiles``, ``awaken_configs``, ``awaken_mailbox_jobs``, ``awaken_mailbox_generations``
and ``awaken_schema_migrations``. The schema is created on first access (``ensure_schema``).

* ``checkpoint_step`` is a single SQL statement (thread, new messages, message head, run and
  journal writes in data-modifying CTEs), so it is atomic and costs one round trip. The thread
  row is written with an optimistic check against the version this store last saw and the
  message head is checked (and locked) against the one it last saw; on a mismatch it re-reads
  and retries. A fenced step (``expected_last_seq``) runs in an explicit transaction.
* Journal seqs come from the run's ``<prefix>_journal_heads`` row, incremented in the writing
  statement: concurrent appenders serialize on that row, so seqs have no gaps or duplicates.
  Each append notifies ``<prefix>_journal`` (payload: run id) in the same transaction.
* Mailbox transactions lock the mailbox's generation row (``FOR UPDATE``); worker claims use
  ``FOR UPDATE SKIP LOCKED`` so concurrent claimers never queue up behind each other, and
  LISTEN/NOTIFY wakes waiting workers when a job becomes claimable.
* Config changes are announced with ``pg_notify`` in the writing transaction.

Modules by record family: ``db`` (pool), ``schema`` (migrations), ``threads_runs``
(``PostgresStore``), ``run_rows``, ``journal``, ``profile``, ``config``, ``mailbox``.
"""

from __future__ import annotations

from awaken_stores.postgres.config import ConfigSubscription, PostgresConfigStore
from awaken_stores.postgres.journal import PostgresJournalSubscription
from awaken_stores.postgres.mailbox import PostgresMailboxStore
from awaken_stores.postgres.profile import PostgresProfileStore
from awaken_stores.postgres.schema import _migrations as _migrations
from awaken_stores.postgres.threads_runs import PostgresStore

__all__ = [
    "ConfigSubscription",
    "PostgresConfigStore",
    "PostgresJournalSubscription",
    "PostgresMailboxStore",
    "PostgresProfileStore",
    "PostgresStore",
]
