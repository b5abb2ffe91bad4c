"""File stores: JSON files under one directory, atomic writes, a rollback journal for checkpoints.

Layout (directories are created on first write; constructing the store creates nothing)::

    <base>/threads/<thread_id>.json        Thread
    <base>/messages/<thread_id>.json       [Message]
    <base>/heads/<thread_id>.json          MessageHead of the stored message list
    <base>/runs/<run_id>.json              RunRecord
    <base>/journal/<run_id>.jsonl          JournalEntry per line (seq = line number)
    <base>/profiles/<owner>/<key>.json     ProfileEntry (owner ``system``, ``agent_<name>``,
                                           ``user@<id>`` or ``agent@<name>@user@<id>``)
    <base>/config/<namespace>/<id>.json    config document
    <base>/mailbox/state.json              mailbox generations and jobs
    <base>/.checkpoint_pending             checkpoint journal (only during/after a crash)

Every write goes to a temp file in the target's directory, is fsynced and renamed over the
target, or is a *splice*: bytes appended in place at an offset (new messages replace the closing
``]`` of the message array; journal lines are appended). A checkpoint stages its files, records a
rollback journal (with the old size and tail of every spliced file), swaps and splices, and
deletes the journal; a crash in between is rolled back by the next ``FileStore`` opened on the
directory. So a step writes only its new messages and journal entries, however long the history.
Thread/run ids, config namespaces and ids are validated so no id can escape the directory.
Operations run on one worker thread per store and take an exclusive ``fcntl`` lock on
``<base>/.lock`` while writing, so several processes can share a directory.

Modules: ``files`` (atomic writes, reads), ``rollback`` (multi-file commits), ``db`` (worker
thread and lock), ``threads_runs`` (``FileStore``), ``journal``, ``profile``, ``config``,
``mailbox``.
"""

from __future__ import annotations

from awaken_stores._ids import validate_id
from awaken_stores.file.config import FileConfigStore
from awaken_stores.file.files import JOURNAL as JOURNAL
from awaken_stores.file.mailbox import FileMailboxStore
from awaken_stores.file.profile import FileProfileStore
from awaken_stores.file.threads_runs import FileStore

__all__ = [
    "FileConfigStore",
    "FileMailboxStore",
    "FileProfileStore",
    "FileStore",
    "validate_id",
]
