"""Store interfaces and the records they persist (threads, messages, runs, profiles, config).

This module defines the profile store and re-exports the rest from the modules of each record
family: ``thread``, ``message_record``, ``run_record``, ``thread_store`` (interfaces),
``config_store``.

A store is any object implementing these abstract classes; ``awaken_stores`` ships in-memory, file,
SQLite and PostgreSQL implementations and ``awaken_contract.testing`` holds the conformance suite
every implementation (including third-party ones) must pass.

Timestamps: thread metadata and profile entries are unix **milliseconds**; run records are unix
**seconds**.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import msgspec

from awaken_contract.contract.config_store import (
    ConfigChangeEvent,
    ConfigChangeKind,
    ConfigChangeNotifier,
    ConfigStore,
)
from awaken_contract.contract.identity import RunRequestOrigin
from awaken_contract.contract.message_record import (
    MessagePage,
    MessageQuery,
    MessageRecord,
    MessageSeqRange,
)
from awaken_contract.contract.run_record import (
    MAX_RUN_PAGE_LIMIT,
    RunDecision,
    RunMessageInput,
    RunMessageOutput,
    RunOutcome,
    RunPage,
    RunQuery,
    RunRecord,
    RunRequestSnapshot,
    RunWaitingState,
    RunWaitingTicket,
)
from awaken_contract.contract.thread import (
    Thread,
    ThreadMetadata,
    checkpoint_thread,
    require_thread,
    sort_thread_ids,
)
from awaken_contract.contract.thread_store import RunStore, ThreadRunStore, ThreadStore

__all__ = [
    "MAX_RUN_PAGE_LIMIT",
    "ConfigChangeEvent",
    "ConfigChangeKind",
    "ConfigChangeNotifier",
    "ConfigStore",
    "MessagePage",
    "MessageQuery",
    "MessageRecord",
    "MessageSeqRange",
    "ProfileEntry",
    "ProfileOwner",
    "ProfileStore",
    "RunDecision",
    "RunMessageInput",
    "RunMessageOutput",
    "RunOutcome",
    "RunPage",
    "RunQuery",
    "RunRecord",
    "RunRequestOrigin",
    "RunRequestSnapshot",
    "RunStore",
    "RunWaitingState",
    "RunWaitingTicket",
    "Thread",
    "ThreadMetadata",
    "ThreadRunStore",
    "ThreadStore",
    "checkpoint_thread",
    "require_thread",
    "sort_thread_ids",
]


# --------------------------------------------------------------------------- profiles


class ProfileOwner(msgspec.Struct, frozen=True, gc=False):
    """Owner of profile entries: an agent (``ProfileOwner.agent(name)``) or the system."""

    agent_name: str | None = None

    @classmethod
    def agent(cls, name: str) -> ProfileOwner:
        """The owner ``Agent(name)``."""
        return cls(agent_name=name)

    @classmethod
    def system(cls) -> ProfileOwner:
        """The owner ``System``."""
        return cls(agent_name=None)

    @property
    def is_system(self) -> bool:
        """True for the system owner."""
        return self.agent_name is None

    def __str__(self) -> str:
        return "system" if self.agent_name is None else f"agent:{self.agent_name}"

    def to_json(self) -> Any:
        """Externally tagged JSON: ``{"Agent": name}`` or ``"System"``."""
        return "System" if self.agent_name is None else {"Agent": self.agent_name}

    @classmethod
    def from_json(cls, value: Any) -> ProfileOwner:
        """Inverse of :meth:`to_json`."""
        if value == "System":
            return cls.system()
        if isinstance(value, dict) and isinstance(value.get("Agent"), str) and len(value) == 1:
            return cls.agent(value["Agent"])
        raise ValueError(f"invalid profile owner: {value!r}")


class ProfileEntry(msgspec.Struct):
    """A profile value with the time (ms) the store last wrote it."""

    key: str
    value: Any
    updated_at: int


class ProfileStore(ABC):
    """Raw profile entries keyed by owner and key."""

    @abstractmethod
    async def get(self, owner: ProfileOwner, key: str) -> ProfileEntry | None:
        """The entry, or ``None``."""

    @abstractmethod
    async def set(self, owner: ProfileOwner, key: str, value: Any) -> None:
        """Upsert; the store stamps ``updated_at``."""

    @abstractmethod
    async def delete(self, owner: ProfileOwner, key: str) -> None:
        """Remove the entry (idempotent)."""

    @abstractmethod
    async def list(self, owner: ProfileOwner) -> list[ProfileEntry]:
        """All entries of ``owner`` sorted by key."""

    @abstractmethod
    async def clear_owner(self, owner: ProfileOwner) -> None:
        """Remove every entry of ``owner`` (idempotent)."""
