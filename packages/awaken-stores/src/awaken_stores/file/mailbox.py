"""Mailbox jobs in ``mailbox/state.json``, rewritten atomically under the directory lock."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import msgspec
from awaken_contract.contract.mailbox import MailboxJob

from awaken_stores._codec import encode
from awaken_stores._mailbox_queries import LocalMailboxQueries
from awaken_stores.file.db import _FileBacked, _FileDb
from awaken_stores.file.files import _atomic_write, _read
from awaken_stores.mailbox_engine import MailboxEngine, MailboxTxn, TransactionApply


class _MailboxState(msgspec.Struct):
    generations: dict[str, int] = msgspec.field(default_factory=dict)
    jobs: dict[str, MailboxJob] = msgspec.field(default_factory=dict)


class FileMailboxStore(_FileBacked, LocalMailboxQueries, TransactionApply, MailboxEngine):
    """Mailbox jobs in ``mailbox/state.json``, rewritten atomically by every transaction under
    the directory's exclusive lock (simple and durable; meant for modest job volumes)."""

    def __init__(self, base: str | Path | _FileDb) -> None:
        super().__init__(base)
        self._lock = asyncio.Lock()

    @property
    def _path(self) -> Path:
        return self.base / "mailbox" / "state.json"

    def _load(self) -> _MailboxState:
        return _read(self._path, _MailboxState) or _MailboxState()

    async def _state(self) -> _MailboxState:
        return await self._db.run(self._load)

    @asynccontextmanager
    async def _transaction(
        self, mailbox_id: str, job_id: str | None = None
    ) -> AsyncIterator[MailboxTxn]:
        async with self._lock:
            lock = self._db.write_lock()
            await self._db.run(lock.__enter__)
            try:
                state = await self._db.run(self._load)
                jobs = [
                    j
                    for j in state.jobs.values()
                    if j.mailbox_id == mailbox_id and (j.job_id == job_id or not j.is_terminal)
                ]
                txn = MailboxTxn(mailbox_id, state.generations.get(mailbox_id, 0), jobs)
                yield txn
                if txn.generation != txn.initial_generation or txn.changed_jobs():
                    state.generations[mailbox_id] = txn.generation
                    for job in txn.changed_jobs():
                        state.jobs[job.job_id] = job
                    data = encode(state)
                    await self._db.run(lambda: _atomic_write(self._path, data))
            finally:
                await self._db.run(lambda: lock.__exit__(None, None, None))

    async def _all_jobs(self) -> dict[str, MailboxJob]:
        return (await self._state()).jobs

    async def current_generation(self, mailbox_id: str) -> int:
        return (await self._state()).generations.get(mailbox_id, 0)

    async def purge_terminal(self, older_than: int) -> int:
        async with self._lock:

            def purge() -> int:
                state = self._load()
                doomed = [
                    i for i, j in state.jobs.items() if j.is_terminal and j.updated_at < older_than
                ]
                for job_id in doomed:
                    del state.jobs[job_id]
                if doomed:
                    _atomic_write(self._path, encode(state))
                return len(doomed)

            return await self._db.run_locked(purge)
