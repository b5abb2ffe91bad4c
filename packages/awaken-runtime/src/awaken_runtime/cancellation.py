"""Racing a run's work against its :class:`CancellationToken`.

:class:`RunCanceller` keeps one watcher task per run (started on first use). While the run is
inside :meth:`RunCanceller.race` — streaming an inference, executing tools, waiting for a
decision — a cancelled token interrupts the awaited work at once (its task is cancelled and the
interruption surfaces as :class:`RunCancelled`). Outside a race, the loop polls the token at
phase boundaries. No task is created per event or per race.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

from awaken_contract.contract.cancellation import CancellationToken

__all__ = ["CancellationToken", "RunCancelled", "RunCanceller"]

T = TypeVar("T")


class RunCancelled(Exception):
    """The run's token fired while the run awaited raced work."""


class RunCanceller:
    """Interrupts the run's current raced await when the token is cancelled.

    With ``watch=True`` a watcher task notices a cancelled token by itself. The runtime's own
    run handles pass ``watch=False`` and call :meth:`interrupt` right after cancelling the token
    (no extra task per run). Every race of a run is awaited by the run's task: it is looked up
    at the first race and forgotten by :meth:`close`.
    """

    __slots__ = ("_current", "_fired", "_task", "_watch", "_watcher", "token")

    def __init__(self, token: CancellationToken | None, *, watch: bool = True) -> None:
        self.token = token
        self._watch = watch
        self._current: asyncio.Task[object] | None = None
        self._fired: asyncio.Task[object] | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._task: asyncio.Task[object] | None = None  # the run's task, until close()

    @property
    def is_cancelled(self) -> bool:
        """True once the token was cancelled."""
        token = self.token
        return token is not None and token.is_cancelled

    async def race(self, work: Awaitable[T]) -> T:
        """Await ``work``; raise :class:`RunCancelled` as soon as the token fires.

        The hot paths (one model call, one tool call) write the same steps in place, without
        this coroutine (ADR 0034)::

            task = canceller.arm()  # RunCancelled when the token already fired
            try:
                result = await work
            except BaseException as exc:
                canceller.disarm_failed(task, exc)  # RunCancelled when it was our interrupt
                raise
            if canceller.disarm(task):  # the interrupt landed while the work was finishing
                await canceller.absorb(task)  # raises RunCancelled
        """
        try:
            task = self.arm()
        except RunCancelled:
            if asyncio.iscoroutine(work):
                work.close()
            raise
        try:
            result = await work
        except BaseException as exc:
            self.disarm_failed(task, exc)
            raise
        if self.disarm(task):
            await self.absorb(task)
        return result

    def arm(self) -> asyncio.Task[object] | None:
        """Start a raced await in the run's task (``None``: no token, nothing to race);
        raises :class:`RunCancelled` when the token already fired."""
        token = self.token
        if token is None:
            return None
        if token.is_cancelled:
            raise RunCancelled()
        if self._watch and self._watcher is None:
            self._watcher = asyncio.ensure_future(self._watch_token(token))
        task = self._task
        if task is None:  # every race of a run is awaited by the run's task
            task = self._task = asyncio.current_task()
        self._current = task
        return task

    def disarm(self, task: asyncio.Task[object] | None) -> bool:
        """End a raced await that returned; ``True`` when the interrupt landed while the work
        was finishing (then await :meth:`absorb`)."""
        self._current = None
        return task is not None and self._fired is task

    def disarm_failed(self, task: asyncio.Task[object] | None, exc: BaseException) -> None:
        """End a raced await that raised ``exc`` (the caller re-raises it): raises
        :class:`RunCancelled` instead when ``exc`` is this canceller's interrupt."""
        self._current = None
        if task is not None and self._fired is task and isinstance(exc, asyncio.CancelledError):
            self._fired = None
            task.uncancel()
            raise RunCancelled() from None

    async def absorb(self, task: asyncio.Task[object] | None) -> None:
        """Absorb the interrupt's pending cancellation of ``task``, then raise
        :class:`RunCancelled`."""
        self._fired = None
        try:
            await asyncio.sleep(0)
        except asyncio.CancelledError:
            if task is not None:
                task.uncancel()
        raise RunCancelled()

    async def _watch_token(self, token: CancellationToken) -> None:
        await token.wait()
        self.interrupt()

    def interrupt(self) -> None:
        """Interrupt the raced await in progress, if any (call after cancelling the token)."""
        current = self._current
        if current is not None and not current.done() and self._fired is None:
            self._fired = current
            current.cancel()

    def close(self) -> None:
        """Stop the watcher (call once when the run ends)."""
        self._task = None
        watcher = self._watcher
        self._watcher = None
        if watcher is not None and not watcher.done():
            watcher.cancel()
