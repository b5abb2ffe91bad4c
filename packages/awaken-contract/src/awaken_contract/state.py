"""The typed state model: keys, state maps, snapshots, mutation batches and state commands.

A :class:`StateKey` names one slot of a run's state, binds it to a value type, a pure reducer
(``apply``), a JSON codec and a merge strategy. Hooks, action handlers and tools never mutate
state: they read an immutable :class:`Snapshot` and return a :class:`StateCommand` whose
:class:`MutationBatch` the runtime commits atomically.

Values are treated as immutable: ``apply`` must return a new value instead of mutating the one it
receives (snapshots share values), and readers must not mutate what they read.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar, cast

import msgspec

from awaken_contract.errors import MutationBaseRevisionMismatch, ParallelMergeConflict
from awaken_contract.key_codec import (
    ProfileOwnerKind,
    TypedKey,
    decode_value,
    encode_value,
)

if TYPE_CHECKING:
    from awaken_contract.action_spec import (
        EffectSpec,
        ScheduledAction,
        ScheduledActionSpec,
        TypedEffect,
    )

__all__ = [
    "KeyOf",
    "KeyScope",
    "MergeStrategy",
    "MutationBatch",
    "PersistedState",
    "ProfileOwnerKind",
    "Snapshot",
    "StateCommand",
    "StateKey",
    "StateKeyOptions",
    "StateMap",
    "StateStoreHandle",
    "TypedKey",
    "UnknownKeyPolicy",
    "decode_value",
    "encode_value",
]

V = TypeVar("V")
U = TypeVar("U")
V_co = TypeVar("V_co", covariant=True)


class KeyScope(enum.StrEnum):
    """Lifetime and visibility of a key.

    * ``RUN`` — reset at the start of every run.
    * ``THREAD`` — survives across the runs of one thread (persisted in its run records).
    * ``SHARED`` — one value for the whole deployment, visible to every thread and agent
      (persisted in the profile store under the system owner).
    * ``PROFILE`` — one value per agent, per user or per agent and user (the key's ``PER``),
      across threads and runs (persisted in the profile store under that owner).

    The same key string in two scopes names two different entries.
    """

    RUN = "Run"
    THREAD = "Thread"
    SHARED = "Shared"
    PROFILE = "Profile"


class MergeStrategy(enum.StrEnum):
    """How writers of one key within one parallel batch merge.

    * ``EXCLUSIVE`` — a second writer is a conflict (``ParallelMergeConflict``).
    * ``COMMUTATIVE`` — every update is reduced in (order does not matter).
    * ``DISJOINT`` — at most one writer is expected; if several write, the later one (in call
      order) replaces the earlier (the key's ``apply`` should replace, as the default does).
    """

    EXCLUSIVE = "Exclusive"
    COMMUTATIVE = "Commutative"
    DISJOINT = "Disjoint"


class UnknownKeyPolicy(enum.StrEnum):
    """What restoring persisted state does with a key nobody registered."""

    ERROR = "Error"
    SKIP = "Skip"


class StateKey(TypedKey[V], Generic[V, U]):
    """A named, typed slot of the state map.

    Subclass with the value and update types as parameters and set ``KEY``::

        class Counter(StateKey[int, int]):
            KEY = "counter"
            MERGE = MergeStrategy.COMMUTATIVE

            @classmethod
            def apply(cls, value: int, update: int) -> int:
                return value + update

    ``value_type`` (inferred from the first type parameter when not set) drives ``default()``
    and ``decode()``. ``apply`` defaults to replacing the value with the update. A key with
    ``SCOPE = KeyScope.PROFILE`` is stored per ``PER`` (agent, user or both).
    """

    MERGE: ClassVar[MergeStrategy] = MergeStrategy.EXCLUSIVE
    SCOPE: ClassVar[KeyScope] = KeyScope.RUN

    @classmethod
    def apply(cls, value: V, update: U) -> V:
        """Reduce ``update`` into ``value`` and return the new value (default: replace)."""
        return cast(V, update)


AnyKey = type[StateKey[Any, Any]]


class KeyOf(Protocol[V_co]):
    """Read-side view of a key class: what ``Snapshot.get`` & co. accept (covariant in the
    value type, so ``ctx.state(Key)`` type-checks in any expression context)."""

    KEY: ClassVar[str]

    @classmethod
    def default(cls) -> V_co:
        """The key's default value."""
        ...


class StateKeyOptions(msgspec.Struct, frozen=True, omit_defaults=True, gc=False):
    """Registration options of a key.

    ``scope=None`` means "use the key's ``SCOPE``" so a key declared ``KeyScope.THREAD`` is
    thread scoped without repeating it at registration.
    """

    persistent: bool = True
    retain_on_uninstall: bool = False
    scope: KeyScope | None = None

    def scope_for(self, key: AnyKey) -> KeyScope:
        """The effective scope of ``key`` under these options."""
        return self.scope if self.scope is not None else key.SCOPE


class PersistedState(msgspec.Struct):
    """Serialized state as stored in checkpoints: ``{"revision": n, "extensions": {...}}``."""

    revision: int = 0
    extensions: dict[str, Any] = msgspec.field(default_factory=dict)


# --------------------------------------------------------------------------- StateMap / Snapshot


class StateMap(msgspec.Struct, eq=False):
    """Key → value container. A key is present only after something wrote it.

    ``StateMap(values)`` wraps ``values`` (``StateMap()``: empty); a msgspec struct, as every
    commit makes one."""

    _values: dict[str, Any] = msgspec.field(default_factory=dict)

    def contains(self, key: AnyKey) -> bool:
        """Whether ``key`` has been written."""
        return key.KEY in self._values

    def get(self, key: type[KeyOf[V]]) -> V | None:
        """The value of ``key`` or ``None`` when absent."""
        value: V | None = self._values.get(key.KEY)
        return value

    def get_raw(self, key: str) -> Any:
        """The value stored under the key string, or ``None``."""
        return self._values.get(key)

    def insert(self, key: type[StateKey[V, Any]], value: V) -> None:
        """Store ``value`` under ``key``."""
        self._values[key.KEY] = value

    def remove(self, key: type[KeyOf[V]]) -> V | None:
        """Remove ``key`` and return its old value."""
        return cast("V | None", self._values.pop(key.KEY, None))

    def get_or_insert_default(self, key: type[KeyOf[V]]) -> V:
        """The value of ``key``, inserting ``key.default()`` first when absent."""
        if key.KEY not in self._values:
            self._values[key.KEY] = key.default()
        return cast(V, self._values[key.KEY])

    def keys(self) -> list[str]:
        """Present key strings."""
        return list(self._values)

    def items(self) -> Iterator[tuple[str, Any]]:
        """``(key string, value)`` pairs."""
        return iter(self._values.items())

    def raw(self) -> dict[str, Any]:
        """The underlying dict (read only by convention)."""
        return self._values

    def copy(self) -> StateMap:
        """A shallow copy (values are shared; they are immutable by convention)."""
        return StateMap(dict(self._values))

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            return key in self._values
        return getattr(key, "KEY", None) in self._values

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"StateMap({self._values!r})"


class Snapshot(msgspec.Struct, frozen=True):
    """An immutable, revisioned view of the state handed to hooks, handlers and tools."""

    revision: int
    ext: StateMap

    @classmethod
    def empty(cls) -> Snapshot:
        """Revision 0 with no keys."""
        return cls(0, StateMap())

    def get(self, key: type[KeyOf[V]]) -> V | None:
        """The value of ``key`` or ``None`` when absent."""
        value: V | None = self.ext._values.get(key.KEY)  # no cast(): a call on the hot path
        return value

    def get_raw(self, key: str) -> Any:
        """The value under a key string, or ``None``."""
        return self.ext._values.get(key)

    def contains(self, key: AnyKey) -> bool:
        """Whether ``key`` has been written."""
        return key.KEY in self.ext._values


# --------------------------------------------------------------------------- MutationBatch

#: One mutation: ``(key class, key string, update)``; a ``None`` key class removes the key.
MutationOp = tuple["AnyKey | None", str, Any]


class MutationBatch(msgspec.Struct, eq=False):
    """An ordered list of key updates plus the revision it was computed against.

    A (mutable, identity-compared) msgspec struct: batches are made several times per step,
    and a struct is built in C."""

    base_revision: int | None = None
    ops: list[MutationOp] = msgspec.field(default_factory=list)
    touched_keys: list[str] = msgspec.field(default_factory=list)

    def with_base_revision(self, revision: int) -> MutationBatch:
        """Set the revision a commit must still be at; returns ``self``."""
        self.base_revision = revision
        return self

    def update(self, key: type[StateKey[Any, U]], update: U) -> MutationBatch:
        """Reduce ``update`` into ``key`` on commit; returns ``self``."""
        self.ops.append((key, key.KEY, update))
        self.touched_keys.append(key.KEY)
        return self

    def clear(self, key: AnyKey) -> MutationBatch:
        """Remove ``key`` from the state map on commit; returns ``self``."""
        return self.clear_extension(key.KEY)

    def clear_extension(self, key: str) -> MutationBatch:
        """Remove the key string from the state map on commit; returns ``self``."""
        self.ops.append((None, key, None))
        self.touched_keys.append(key)
        return self

    @property
    def is_empty(self) -> bool:
        """No operations."""
        return not self.ops

    def __len__(self) -> int:
        return len(self.ops)

    def _reconcile(self, other: MutationBatch) -> int | None:
        a, b = self.base_revision, other.base_revision
        if a is not None and b is not None and a != b:
            raise MutationBaseRevisionMismatch(a, b)
        return a if a is not None else b

    def extend(self, other: MutationBatch) -> MutationBatch:
        """Append ``other``'s operations (no conflict check); returns ``self``."""
        self.base_revision = self._reconcile(other)
        self.ops.extend(other.ops)
        self.touched_keys.extend(other.touched_keys)
        return self

    def merge_parallel(
        self, other: MutationBatch, strategy: Callable[[str], MergeStrategy]
    ) -> MutationBatch:
        """Merge a batch computed in parallel; an Exclusive key touched by both raises
        ``ParallelMergeConflict``. Returns ``self`` (unchanged on error)."""
        base = self._reconcile(other)
        if self.touched_keys and other.touched_keys:
            mine = set(self.touched_keys)
            for key in other.touched_keys:
                if key in mine and strategy(key) is MergeStrategy.EXCLUSIVE:
                    raise ParallelMergeConflict(key)
        self.base_revision = base
        self.ops.extend(other.ops)
        self.touched_keys.extend(other.touched_keys)
        return self

    def __repr__(self) -> str:
        return f"MutationBatch(base_revision={self.base_revision}, keys={self.touched_keys})"


# --------------------------------------------------------------------------- StateCommand


class StateCommand(msgspec.Struct, eq=False):
    """What a hook, action handler or tool wants: state updates, scheduled actions, effects.

    A (mutable, identity-compared) msgspec struct: every hook returns one. Its three parts are
    made when first used (ADR 0034): ``StateCommand()`` — the empty command most hooks return
    — is one object, which the cyclic GC does not track; ``StateCommand(batch)`` carries
    ``batch`` as its patch. Read ``patch``, ``scheduled_actions``
    and ``effects`` as before (reading one makes it); the engine tests emptiness with
    :attr:`is_empty`, :attr:`has_actions` and :attr:`has_effects`, which make nothing.
    ``raw_patch``, ``raw_actions`` and ``raw_effects`` are the parts as stored (``None``
    until made): all three ``None`` is the untouched ``StateCommand()``, which the phase
    engine skips without a call (ADR 0034, second pass)."""

    raw_patch: MutationBatch | None = None
    raw_actions: list[ScheduledAction] | None = None
    raw_effects: list[TypedEffect] | None = None

    @classmethod
    def of(cls, patch: MutationBatch) -> StateCommand:
        """A command carrying ``patch`` (no actions, no effects)."""
        return cls(patch)

    @property
    def patch(self) -> MutationBatch:
        """The state updates (made on first use)."""
        patch = self.raw_patch
        if patch is None:
            patch = self.raw_patch = MutationBatch()
        return patch

    @patch.setter
    def patch(self, value: MutationBatch) -> None:
        self.raw_patch = value

    @property
    def scheduled_actions(self) -> list[ScheduledAction]:
        """The actions queued for their phase's EXECUTE stage (made on first use)."""
        actions = self.raw_actions
        if actions is None:
            actions = self.raw_actions = []
        return actions

    @scheduled_actions.setter
    def scheduled_actions(self, value: list[ScheduledAction]) -> None:
        self.raw_actions = value

    @property
    def effects(self) -> list[TypedEffect]:
        """The effects dispatched after the commit (made on first use)."""
        effects = self.raw_effects
        if effects is None:
            effects = self.raw_effects = []
        return effects

    @effects.setter
    def effects(self, value: list[TypedEffect]) -> None:
        self.raw_effects = value

    def plain_patch(self) -> MutationBatch | None:
        """The patch, when no action and no effect is queued (committing it is the whole
        submission); ``None`` otherwise."""
        if self.raw_actions or self.raw_effects:
            return None
        return self.patch

    @property
    def has_actions(self) -> bool:
        """Whether actions are queued (makes no list)."""
        return bool(self.raw_actions)

    @property
    def has_effects(self) -> bool:
        """Whether effects are queued (makes no list)."""
        return bool(self.raw_effects)

    @property
    def has_ops(self) -> bool:
        """Whether the patch has updates (makes no patch)."""
        patch = self.raw_patch
        return patch is not None and bool(patch.ops)

    @property
    def base_revision(self) -> int | None:
        """The patch's base revision."""
        patch = self.raw_patch
        return patch.base_revision if patch is not None else None

    def with_base_revision(self, revision: int) -> StateCommand:
        """Set the patch's base revision; returns ``self``."""
        self.patch.base_revision = revision
        return self

    def update(self, key: type[StateKey[Any, U]], update: U) -> StateCommand:
        """Reduce ``update`` into ``key`` on commit; returns ``self``."""
        self.patch.update(key, update)
        return self

    def clear(self, key: AnyKey) -> StateCommand:
        """Remove ``key`` on commit; returns ``self``."""
        self.patch.clear_extension(key.KEY)
        return self

    def schedule_action(self, action: type[ScheduledActionSpec[V]], payload: V) -> StateCommand:
        """Queue ``action`` with ``payload`` for its phase's EXECUTE stage; returns ``self``.

        The payload is JSON-encoded now (raises ``KeyEncode`` if it cannot be)."""
        self.scheduled_actions.append(action.action(payload))
        return self

    def emit(self, effect: type[EffectSpec[V]], payload: V) -> StateCommand:
        """Emit a fire-and-forget effect dispatched after the commit; returns ``self``."""
        self.effects.append(effect.effect(payload))
        return self

    def extend(self, other: StateCommand) -> StateCommand:
        """Append ``other`` (patch ops, actions, effects); returns ``self``."""
        patch = other.raw_patch
        if patch is not None and (patch.ops or patch.base_revision is not None):
            self.patch.extend(patch)
        if other.raw_actions:
            self.scheduled_actions.extend(other.raw_actions)
        if other.raw_effects:
            self.effects.extend(other.raw_effects)
        return self

    def merge_parallel(
        self, other: StateCommand, strategy: Callable[[str], MergeStrategy]
    ) -> StateCommand:
        """Merge a command computed in parallel (Exclusive overlap raises
        ``ParallelMergeConflict``); returns ``self``."""
        patch = other.raw_patch
        if patch is not None:
            self.patch.merge_parallel(patch, strategy)
        if other.raw_actions:
            self.scheduled_actions.extend(other.raw_actions)
        if other.raw_effects:
            self.effects.extend(other.raw_effects)
        return self

    @property
    def is_empty(self) -> bool:
        """No updates, no actions and no effects."""
        patch = self.raw_patch
        return not ((patch is not None and patch.ops) or self.raw_actions or self.raw_effects)

    def __repr__(self) -> str:
        return (
            f"StateCommand(keys={self.patch.touched_keys}, "
            f"actions={[a.key for a in self.scheduled_actions]}, "
            f"effects={[e.key for e in self.effects]})"
        )


# --------------------------------------------------------------------------- store handle


class StateStoreHandle(Protocol):
    """What a plugin may do with the run's state store (``Plugin.bind_runtime_context``)."""

    def snapshot(self) -> Snapshot:
        """The current snapshot."""
        ...

    def read(self, key: type[KeyOf[V]]) -> V | None:
        """The current value of ``key`` or ``None``."""
        ...

    def commit(self, batch: MutationBatch) -> int:
        """Apply ``batch`` atomically; returns the new revision."""
        ...
