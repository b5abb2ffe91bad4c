"""The base directory shared by a store and its sub-stores: worker thread, cross-process lock."""

from __future__ import annotations

import asyncio
import fcntl
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from awaken_contract.errors import (
    StorageIoError,
)

from awaken_stores._journal_local import hub_for
from awaken_stores._journal_watch import ExternalChangeWatcher
from awaken_stores.file.files import JOURNAL
from awaken_stores.file.rollback import _recover

T = TypeVar("T")


class _FileDb:
    """The base directory, its worker thread and its cross-process write lock."""

    def __init__(self, base: str | Path) -> None:
        self.base = Path(base)
        self._executor: ThreadPoolExecutor | None = None
        self._lock_fd: int | None = None
        self._lock_depth = 0
        self._thread_lock = threading.RLock()
        self.journal_hub = hub_for(str(self.base.resolve()))
        self.journal_watch = ExternalChangeWatcher(self.journal_hub, self._base_version)
        if (self.base / JOURNAL).exists():
            with self.write_lock():
                _recover(self.base)
        for sub in ("threads", "messages", "heads", "runs"):
            for orphan in (self.base / sub).glob(".*.bak") if (self.base / sub).is_dir() else ():
                orphan.unlink(missing_ok=True)

    async def _base_version(self) -> int:
        """Changes with every commit of any process: each one writes and removes the rollback
        journal in the base directory."""
        return await self.run(lambda: os.stat(self.base).st_mtime_ns)

    async def run(self, fn: Callable[[], T]) -> T:
        """Run blocking file work on the store's worker thread; OS errors become Io errors."""
        loop = asyncio.get_running_loop()
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="awaken-file")
        try:
            return await loop.run_in_executor(self._executor, fn)
        except OSError as exc:
            raise StorageIoError(str(exc)) from exc

    async def run_locked(self, fn: Callable[[], T]) -> T:
        """:meth:`run` ``fn`` while holding the write lock."""

        def locked() -> T:
            with self.write_lock():
                return fn()

        return await self.run(locked)

    @contextmanager
    def write_lock(self) -> Iterator[None]:
        """Exclusive lock on ``<base>/.lock`` (re-entrant within the process)."""
        with self._thread_lock:
            if self._lock_depth == 0:
                self.base.mkdir(parents=True, exist_ok=True)
                fd = os.open(self.base / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
                fcntl.flock(fd, fcntl.LOCK_EX)
                self._lock_fd = fd
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
                if self._lock_depth == 0 and self._lock_fd is not None:
                    fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
                    os.close(self._lock_fd)
                    self._lock_fd = None

    def close(self) -> None:
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)


class _FileBacked:
    def __init__(self, base: str | Path | _FileDb) -> None:
        self._db = base if isinstance(base, _FileDb) else _FileDb(base)
        self.base = self._db.base

    async def close(self) -> None:
        """Stop the worker thread (a later operation starts a new one)."""
        self._db.journal_watch.stop()
        await asyncio.get_running_loop().run_in_executor(None, self._db.close)
