"""Append-only message checkpoints: which part of a thread's message list a checkpoint writes.

The runtime hands every checkpoint the whole message list. A store remembers, per thread, the
exact ``Message`` objects it last wrote or returned from ``load_messages`` (``KnownLogs``) and a
``MessageHead`` — the stored count and a token renewed on every write. When the stored head is
the one it remembers, the new list is compared with the remembered objects **by identity**
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

import msgspec
from awaken_contract.contract.message import Message
from awaken_contract.ids import new_id

__all__ = ["KnownLogs", "LogWrite", "MessageHead"]


class MessageHead(msgspec.Struct, frozen=True):
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


class LogWrite(msgspec.Struct, frozen=True):
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


class KnownLogs:
    """Per store object: the message objects of recently written or loaded threads."""

    def __init__(self, size: int = 256) -> None:
        self._logs: OrderedDict[str, _Known] = OrderedDict()
        self._size = size

    def plan(self, thread_id: str, stored: MessageHead | None, messages: list[Message]) -> LogWrite:
        """The write storing ``messages`` over a log whose current head is ``stored``."""
        known = self._logs.get(thread_id)
        start = 0
        if known is not None and stored is not None and known.head == stored:
            common = min(len(known.messages), len(messages))
            same = list(map(operator.is_, messages[:common], known.messages[:common]))
            start = same.index(False) if False in same else common
            if start == len(messages) == stored.count:
                return LogWrite(start, stored, head_changed=False)
        return LogWrite(start, MessageHead.new(len(messages)), head_changed=True)

    def expected(self, thread_id: str) -> MessageHead | None:
        """The head this store object last saw for the thread (``None`` when unknown)."""
        known = self._logs.get(thread_id)
        return None if known is None else known.head

    def remember(self, thread_id: str, messages: list[Message], head: MessageHead) -> None:
        """Record that ``messages`` (these objects) are stored under ``head``."""
        self._logs[thread_id] = _Known(list(messages), head)
        self._logs.move_to_end(thread_id)
        while len(self._logs) > self._size:
            self._logs.popitem(last=False)

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
        self._logs.pop(thread_id, None)

    def clear(self) -> None:
        """Forget everything."""
        self._logs.clear()
