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
from urllib.parse import quote

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
from awaken_contract.errors import UserIdRequired
from awaken_contract.key_codec import ProfileOwnerKind

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
    """Owner of profile entries: the system, an agent, a user, or an agent for one user.

    ``ProfileOwner.system()``, ``.agent(name)``, ``.user(user_id)``, ``.agent_user(name,
    user_id)``. ``str(owner)`` is the key stores file entries under: injective (user parts are
    percent-encoded) and, for system and agent owners, the form earlier versions wrote.
    """

    agent_name: str | None = None
    user_id: str | None = None

    @classmethod
    def agent(cls, name: str) -> ProfileOwner:
        """The owner ``Agent(name)``."""
        return cls(agent_name=name)

    @classmethod
    def system(cls) -> ProfileOwner:
        """The owner ``System``."""
        return cls()

    @classmethod
    def user(cls, user_id: str) -> ProfileOwner:
        """The owner ``User(user_id)``: one user's entries across agents."""
        return cls(user_id=user_id)

    @classmethod
    def agent_user(cls, name: str, user_id: str) -> ProfileOwner:
        """The owner ``AgentUser(name, user_id)``: one user's entries of one agent."""
        return cls(agent_name=name, user_id=user_id)

    @classmethod
    def of(cls, per: ProfileOwnerKind, agent_id: str, user_id: str | None) -> ProfileOwner:
        """The owner a key declared ``PER = per`` resolves to in a run of ``agent_id`` for
        ``user_id``; :class:`UserIdRequired` when ``per`` needs a user and there is none."""
        if per is ProfileOwnerKind.AGENT:
            return cls.agent(agent_id)
        if user_id is None:
            raise UserIdRequired(per.value)
        if per is ProfileOwnerKind.USER:
            return cls.user(user_id)
        return cls.agent_user(agent_id, user_id)

    @property
    def is_system(self) -> bool:
        """True for the system owner."""
        return self.agent_name is None and self.user_id is None

    def __str__(self) -> str:
        if self.user_id is None:
            return "system" if self.agent_name is None else f"agent:{self.agent_name}"
        user = quote(self.user_id, safe="")
        if self.agent_name is None:
            return f"user:{user}"
        return f"agent_user:{quote(self.agent_name, safe='')}:{user}"

    def to_json(self) -> Any:
        """Externally tagged JSON: ``"System"``, ``{"Agent": name}``, ``{"User": id}`` or
        ``{"AgentUser": [name, id]}``."""
        if self.user_id is None:
            return "System" if self.agent_name is None else {"Agent": self.agent_name}
        if self.agent_name is None:
            return {"User": self.user_id}
        return {"AgentUser": [self.agent_name, self.user_id]}

    @classmethod
    def from_json(cls, value: Any) -> ProfileOwner:
        """Inverse of :meth:`to_json`."""
        if value == "System":
            return cls.system()
        if isinstance(value, dict) and len(value) == 1:
            (tag, inner), *_ = value.items()
            if tag in ("Agent", "User") and isinstance(inner, str):
                return cls.agent(inner) if tag == "Agent" else cls.user(inner)
            if (
                tag == "AgentUser"
                and isinstance(inner, list)
                and len(inner) == 2
                and all(isinstance(part, str) for part in inner)
            ):
                return cls.agent_user(inner[0], inner[1])
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
