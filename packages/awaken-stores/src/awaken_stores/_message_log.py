"""Append-only message checkpoints: which part of a thread's message list a checkpoint writes.

The runtime hands every checkpoint the whole message list. A store remembers, per thread, the
exact ``Message`` objects it last wrote and the ones it last returned from ``load_messages``
(``KnownLogs``), with the ``MessageHead`` they were stored under — the stored count and a token
renewed on every write. When the stored head is a remembered one, the new list is compared
with the remembered objects **by identity**
(a pointer comparison per message, no encoding): everything before the first message that is
not the same object is already stored, and only the rest is written. A message that changed
is a new object (``replace_tool_message``, history hygiene and compaction all build new
messages), so an edit in the middle rewrites from there; a head written by anyone else, or a
thread this store object never saw, rewrites the whole list. Messages are treated as immutable
once checkpointed: mutate a copy, not the stored object.
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Callable

import msgspec
from awaken_contract.contract.message import Message
from awaken_contract.ids import new_id

__all__ = ["KnownLogs", "LogWrite", "MessageHead"]


class MessageHead(msgspec.Struct, frozen=True, gc=False):
    """The stored message count and the token of the write that stored it."""

    count: int
    token: str = ""

    @property
    def key(self) -> str:
        """The head as one comparable string (PostgreSQL compares it in SQL)."""
        return f"{self.count}:{self.token}"

    @classmethod
    def new(cls, count: int) -> MessageHead:
        """The head of a write storing ``count`` messages (a fresh token)."""
        return cls(count, new_id())

    @classmethod
    def from_key(cls, key: str | None) -> MessageHead | None:
        """Inverse of :attr:`key` (``None`` stays ``None``)."""
        if key is None:
            return None
        count, token = key.split(":", 1)
        return cls(int(count), token)


class LogWrite(msgspec.Struct, frozen=True, gc=False):
    """What a checkpoint writes: ``messages[start:]`` at positions ``start + 1 …``, rows past
    ``head.count`` removed, ``head`` stored (unless ``head_changed`` is false)."""

    start: int
    head: MessageHead
    head_changed: bool

    @property
    def replaces(self) -> bool:
        """True when the whole list is written."""
        return self.start == 0


class _Known(msgspec.Struct):
    messages: list[Message]
    head: MessageHead

    def common_prefix(self, messages: list[Message]) -> int:
        """How many leading messages are the very objects remembered here."""
        pairs = map(operator.is_, messages, self.messages)  # stops at the shorter list
        if all(pairs):
            return min(len(self.messages), len(messages))
        return next(
            i for i, same in enumerate(map(operator.is_, messages, self.messages)) if not same
        )


class _Thread(msgspec.Struct):
    """What is known of one thread: the objects last written and the objects last loaded
    (a history read while a run is going on must not hide the run's own objects)."""

    written: _Known | None = None
    loaded: _Known | None = None

    def candidates(self, stored: MessageHead) -> list[_Known]:
        return [k for k in (self.written, self.loaded) if k is not None and k.head == stored]


class KnownLogs:
    """Per store object: the message objects of recently written or loaded threads."""

    def __init__(self, size: int = 256, new_token: Callable[[], str] = new_id) -> None:
        """``new_token`` makes the token of each written head: unique among every writer of
        the same data (a UUID by default; a store only its own object writes to may count)."""
        self._threads: OrderedDict[str, _Thread] = OrderedDict()
        self._size = size
        self._new_token = new_token

    def new_head(self, count: int) -> MessageHead:
        """The head of a write storing ``count`` messages (a fresh token)."""
        return MessageHead(count, self._new_token())

    def plan(self, thread_id: str, stored: MessageHead | None, messages: list[Message]) -> LogWrite:
        """The write storing ``messages`` over a log whose current head is ``stored``."""
        known = self._threads.get(thread_id)
        start = 0
        if known is not None and stored is not None:
            written, loaded = known.written, known.loaded
            if written is not None and (written.head is stored or written.head == stored):
                start = written.common_prefix(messages)
            if loaded is not None and loaded.head == stored:
                start = max(start, loaded.common_prefix(messages))
            if start == len(messages) == stored.count:
                return LogWrite(start, stored, head_changed=False)
        return LogWrite(start, MessageHead(len(messages), self._new_token()), head_changed=True)

    def expected(self, thread_id: str) -> MessageHead | None:
        """The head this store object last wrote or read for the thread (``None`` if unknown)."""
        known = self._threads.get(thread_id)
        if known is None:
            return None
        latest = known.written if known.written is not None else known.loaded
        return None if latest is None else latest.head

    def remember(self, thread_id: str, messages: list[Message], head: MessageHead) -> None:
        """Record that ``messages`` (these objects) were just written under ``head``."""
        known = self._touch(thread_id)
        known.written = _Known(list(messages), head)
        known.loaded = None

    def remember_loaded(self, thread_id: str, messages: list[Message], head: MessageHead) -> None:
        """Record that ``load_messages`` returned ``messages`` (these objects) under ``head``."""
        known = self._touch(thread_id)
        known.loaded = _Known(list(messages), head)
        if known.written is not None and known.written.head != head:
            known.written = None

    def settle(
        self, thread_id: str, messages: list[Message], head: MessageHead, run_finished: bool
    ) -> None:
        """After a committed checkpoint: remember the objects, or forget the thread once its
        run finished (the next run loads the history, which is remembered again)."""
        if run_finished:
            self.forget(thread_id)
        else:
            self.remember(thread_id, messages, head)

    def forget(self, thread_id: str) -> None:
        """Drop what is known of the thread (deleted, or its run finished)."""
        self._threads.pop(thread_id, None)

    def clear(self) -> None:
        """Forget everything."""
        self._threads.clear()

    def _touch(self, thread_id: str) -> _Thread:
        threads = self._threads
        known = threads.get(thread_id)
        if known is not None:
            threads.move_to_end(thread_id)
            return known
        known = threads[thread_id] = _Thread()
        while len(threads) > self._size:
            threads.popitem(last=False)
        return known
