"""Active runs: at most one per thread (and per run id), with their control handles.

A :class:`RunHandle` carries the run's cancellation token and its control channel (decisions
and messages for the live run). The registry indexes handles by run id and by thread id;
registering a second run on a busy thread raises ``ThreadAlreadyRunning``.
"""

from __future__ import annotations

import asyncio

from awaken_contract.contract.cancellation import CancellationToken
from awaken_contract.errors import ThreadAlreadyRunning

from awaken_runtime.cancellation import RunCanceller
from awaken_runtime.loop_runner.control import ControlChannel
from awaken_runtime.loop_runner.params import ControlMessage

__all__ = ["ActiveRunRegistry", "RunHandle"]


class RunHandle(RunCanceller):
    """Control of one live run: cancel it, send it decisions or messages.

    The handle is the run's :class:`RunCanceller` too (``watch=False``: :meth:`cancel`
    interrupts the run's raced await itself) — one object per run, not two (ADR 0034)."""

    __slots__ = (
        "control",
        "dispatch_id",
        "released",
        "run_id",
        "thread_id",
    )

    token: CancellationToken

    def __init__(self, thread_id: str, run_id: str, dispatch_id: str | None = None) -> None:
        super().__init__(CancellationToken(), watch=False)
        self.thread_id = thread_id
        self.run_id = run_id
        self.dispatch_id = dispatch_id
        self.control: ControlChannel[ControlMessage] = ControlChannel()
        self.released: asyncio.Event | None = None

    @property
    def canceller(self) -> RunCanceller:
        """The run's canceller (the handle itself)."""
        return self

    def cancel(self) -> None:
        """Cancel the run and interrupt whatever it is waiting for."""
        self.token.cancel()
        self.interrupt()

    def send(self, message: ControlMessage) -> None:
        """Queue a control message for the run."""
        self.control.put_nowait(message)


class ActiveRunRegistry:
    """run id → handle and thread id → run id."""

    __slots__ = ("_by_run", "_by_thread")

    def __init__(self) -> None:
        self._by_run: dict[str, RunHandle] = {}
        self._by_thread: dict[str, RunHandle] = {}

    def register(self, handle: RunHandle) -> None:
        """Add a live run; a busy thread or run id raises ``ThreadAlreadyRunning``."""
        if handle.thread_id in self._by_thread or handle.run_id in self._by_run:
            raise ThreadAlreadyRunning(handle.thread_id)
        self._by_thread[handle.thread_id] = handle
        self._by_run[handle.run_id] = handle

    def unregister(self, handle: RunHandle) -> None:
        """Remove a run (no-op when it is not the registered one)."""
        if self._by_thread.get(handle.thread_id) is handle:
            del self._by_thread[handle.thread_id]
        if self._by_run.get(handle.run_id) is handle:
            del self._by_run[handle.run_id]
        if handle.released is not None:
            handle.released.set()

    def by_thread(self, thread_id: str) -> RunHandle | None:
        """The live run of a thread."""
        return self._by_thread.get(thread_id)

    def by_run(self, run_id: str) -> RunHandle | None:
        """The live run with this id."""
        return self._by_run.get(run_id)

    def lookup(self, id_: str) -> RunHandle | None:
        """Find by run id or thread id; ``None`` when both match different runs."""
        by_run = self._by_run.get(id_)
        by_thread = self._by_thread.get(id_)
        if by_run is not None and by_thread is not None and by_run is not by_thread:
            return None
        return by_run or by_thread

    def handles(self) -> list[RunHandle]:
        """Every live run."""
        return list(self._by_run.values())

    def __len__(self) -> int:
        return len(self._by_run)
