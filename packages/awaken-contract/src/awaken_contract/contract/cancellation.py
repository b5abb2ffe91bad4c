"""Cooperative cancellation shared between a run, its inference and its tools."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


class CancellationToken:
    """A shared flag plus an event to await. Cancelling is idempotent and wakes all waiters.

    Child tokens (``child()``) are cancelled with their parent but can be cancelled alone.
    """

    __slots__ = ("_children", "_event", "_reason")

    def __init__(self) -> None:
        self._event: asyncio.Event | None = None
        self._reason: str | None = None
        self._children: list[CancellationToken] | None = None  # (a list once one is made)

    @property
    def is_cancelled(self) -> bool:
        """True once :meth:`cancel` was called (on this token or a parent)."""
        return self._reason is not None

    @property
    def reason(self) -> str | None:
        """Why the token was cancelled, if it was."""
        return self._reason

    def cancel(self, reason: str = "cancelled") -> None:
        """Cancel this token and its children."""
        if self._reason is not None:
            return
        self._reason = reason
        if self._event is not None:
            self._event.set()
        if self._children is not None:
            for child in self._children:
                child.cancel(reason)

    def child(self) -> CancellationToken:
        """A token cancelled together with this one."""
        token = CancellationToken()
        if self.is_cancelled:
            token.cancel(self._reason or "cancelled")
        else:
            if self._children is None:
                self._children = []
            self._children.append(token)
        return token

    async def wait(self) -> None:
        """Wait until the token is cancelled."""
        if self._reason is not None:
            return
        if self._event is None:
            self._event = asyncio.Event()
        await self._event.wait()

    async def race(self, awaitable: Awaitable[T]) -> T:
        """Await ``awaitable`` unless the token fires first.

        Raises :class:`asyncio.CancelledError` when the token wins; the awaitable's task is
        cancelled (so e.g. an HTTP stream is closed).
        """
        if self._reason is not None:
            if asyncio.iscoroutine(awaitable):
                awaitable.close()
            raise asyncio.CancelledError(self._reason)
        work = asyncio.ensure_future(awaitable)
        waiter = asyncio.ensure_future(self.wait())
        try:
            done, _ = await asyncio.wait({work, waiter}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            work.cancel()
            waiter.cancel()
            raise
        if work in done:
            waiter.cancel()
            return work.result()
        work.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await work  # let the cancelled work unwind (closes streams, sockets)
        raise asyncio.CancelledError(self._reason)
