"""Append-only message checkpoints: decide whether a checkpoint only appends to the stored log.

A store keeps, per thread, a ``MessageHead``: the number of stored messages and digests of the
first and last one. A checkpoint whose list has at least that many messages and the same first
and last stored message extends the log, and only ``messages[count:]`` is written; anything
else (compaction inserted a summary, a shorter list, an edited message) replaces the log.
Checking costs two message encodings, whatever the history length.
"""

from __future__ import annotations

import hashlib

import msgspec
from awaken_contract.contract.message import Message

from awaken_stores._codec import encode

__all__ = ["MessageHead", "digest", "head_after", "tail_to_append"]


class MessageHead(msgspec.Struct, frozen=True):
    """What a store remembers of a thread's stored message log."""

    count: int
    first: str = ""
    last: str = ""


def digest(message: Message) -> str:
    """A short stable digest of one message's JSON encoding."""
    return hashlib.blake2b(encode(message), digest_size=16).hexdigest()


def tail_to_append(head: MessageHead | None, messages: list[Message]) -> list[Message] | None:
    """The messages to append after ``head``, or ``None`` when the log must be replaced."""
    if head is None:
        return None
    count = head.count
    if count == 0:
        return messages
    if len(messages) < count:
        return None
    if digest(messages[count - 1]) != head.last or digest(messages[0]) != head.first:
        return None
    return messages[count:]


def head_after(
    head: MessageHead | None, messages: list[Message], appended: int | None
) -> MessageHead:
    """The head once ``messages`` are stored (``appended`` new ones, ``None`` = replaced)."""
    if not messages:
        return MessageHead(0)
    if appended == 0 and head is not None:
        return head
    first = head.first if appended is not None and head is not None and head.count else ""
    return MessageHead(
        count=len(messages),
        first=first or digest(messages[0]),
        last=digest(messages[-1]),
    )
