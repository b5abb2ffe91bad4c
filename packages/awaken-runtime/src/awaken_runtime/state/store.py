"""The run's state store: revisioned snapshots, atomic commits, key registry and persistence.

``commit`` applies a :class:`MutationBatch` to a copy of the state map, bumps the revision once
and publishes a new immutable :class:`Snapshot` — all or nothing. The store is synchronous; the
phase engine serialises access per run.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import msgspec
from awaken_contract.errors import (
    KeyAlreadyRegistered,
    PluginAlreadyInstalled,
    PluginNotInstalled,
    RevisionConflict,
    UnknownKey,
)
from awaken_contract.plugin import Plugin
from awaken_contract.state import (
    KeyOf,
    KeyScope,
    MergeStrategy,
    MutationBatch,
    PersistedState,
    Snapshot,
    StateCommand,
    StateKey,
    StateKeyOptions,
    StateMap,
    UnknownKeyPolicy,
)

from awaken_runtime.plugins.registrar import KeyRegistration, RuntimePluginRegistrar

__all__ = ["CommitEvent", "CommitHook", "StateStore"]

V = TypeVar("V")
_log = logging.getLogger(__name__)
_MISSING: Any = object()
_THREAD = frozenset({KeyScope.THREAD})


class CommitEvent(msgspec.Struct, frozen=True):
    """Passed to commit hooks after every non-empty commit."""

    previous_revision: int
    new_revision: int
    op_count: int
    snapshot: Snapshot


CommitHook = Callable[[CommitEvent], None]


class StateStore:
    """Holds the current snapshot, the registered keys, installed plugins and commit hooks."""

    __slots__ = (
        "_hooks",
        "_plugins",
        "_regs",
        "_regs_shared",
        "_revision",
        "_snapshot",
        "values",
    )

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        """The current snapshot's map by key string: read it (the loop's hot path does, one
        lookup without a call), never mutate it; every commit replaces it."""
        self._revision = 0
        # The current revision's Snapshot, made when first asked for (ADR 0034): most commits
        # of a run are never looked at through one (the loop reads ``values``).
        self._snapshot: Snapshot | None = None
        self._regs: dict[str, KeyRegistration] = {}
        self._regs_shared = False
        # (created on first use: a run's store usually installs no plugin and no hook)
        self._plugins: dict[type[Plugin], list[str]] | None = None
        self._hooks: list[CommitHook] | None = None

    @classmethod
    def sharing(cls, registrations: dict[str, KeyRegistration]) -> StateStore:
        """A store starting with ``registrations`` (by name), shared until this store registers
        or removes a key (then copied): a run's store costs no registration dict of its own.
        ``registrations`` must not change afterwards."""
        store = cls()
        store._regs = registrations
        store._regs_shared = True
        return store

    def shares(self, registrations: dict[str, KeyRegistration] | None) -> bool:
        """Whether this store still uses ``registrations`` as given to :meth:`sharing`."""
        return self._regs_shared and self._regs is registrations

    def registrations(self) -> dict[str, KeyRegistration]:
        """A copy of the registrations by key name (for :meth:`sharing`)."""
        return dict(self._regs)

    def _own_regs(self) -> dict[str, KeyRegistration]:
        if self._regs_shared:
            self._regs = dict(self._regs)
            self._regs_shared = False
        return self._regs

    # ------------------------------------------------------------------ reading

    def snapshot(self) -> Snapshot:
        """The current immutable snapshot (the same object until the next commit)."""
        snap = self._snapshot
        if snap is None:
            snap = self._snapshot = Snapshot(self._revision, StateMap(self.values))
        return snap

    def revision(self) -> int:
        """The current revision (0 before the first commit)."""
        return self._revision

    def read(self, key: type[KeyOf[V]]) -> V | None:
        """The current value of ``key`` or ``None`` when absent (do not mutate it); the same
        as ``snapshot().get(key)``."""
        value: V | None = self.values.get(key.KEY)
        return value

    def read_raw(self, key: str) -> Any:
        """The current value under a key string, or ``None`` (``snapshot().get_raw(key)``)."""
        return self.values.get(key)

    # ------------------------------------------------------------------ registry

    def register_key(
        self, key: type[StateKey[Any, Any]], options: StateKeyOptions | None = None
    ) -> None:
        """Register a standalone key; an already-registered name is skipped."""
        self.register_keys([KeyRegistration.of(key, options)])

    def register_keys(self, registrations: Iterable[KeyRegistration]) -> None:
        """Register keys; names already registered are silently skipped."""
        regs = self._regs
        for reg in registrations:
            if reg.name not in regs:
                regs = self._own_regs()
                regs[reg.name] = reg

    def registration(self, key: str) -> KeyRegistration | None:
        """The registration of a key string."""
        return self._regs.get(key)

    def is_registered(self, key: str) -> bool:
        """Whether the key string is registered."""
        return key in self._regs

    def strategy(self, key: str) -> MergeStrategy:
        """The merge strategy of a key string (unregistered → Exclusive)."""
        reg = self._regs.get(key)
        return reg.merge if reg is not None else MergeStrategy.EXCLUSIVE

    def add_commit_hook(self, hook: CommitHook) -> None:
        """Call ``hook`` after every non-empty commit."""
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(hook)

    # ------------------------------------------------------------------ plugins

    def install_plugin(self, plugin: Plugin | type[Plugin]) -> None:
        """Run the plugin's ``register`` and register its keys (owned by the plugin).

        Raises ``PluginAlreadyInstalled`` for a second plugin of the same type and
        ``KeyAlreadyRegistered`` when one of its keys is already registered.
        """
        if isinstance(plugin, type):
            plugin = plugin()
        plugin_type = type(plugin)
        name = plugin.descriptor().name
        if self._plugins is None:
            self._plugins = {}
        if plugin_type in self._plugins:
            raise PluginAlreadyInstalled(name)
        registrar = RuntimePluginRegistrar(name)
        plugin.register(registrar)
        regs = self._own_regs()
        owned = [reg.name for reg in registrar.keys]
        for key_name in owned:
            if key_name in regs:
                raise KeyAlreadyRegistered(key_name)
        for reg in registrar.keys:
            regs[reg.name] = reg
        self._plugins[plugin_type] = owned

    def uninstall_plugin(self, plugin: Plugin | type[Plugin]) -> None:
        """Clear the plugin's keys (unless ``retain_on_uninstall``) and unregister them."""
        plugin_type = plugin if isinstance(plugin, type) else type(plugin)
        plugins = self._plugins or {}
        owned = plugins.get(plugin_type)
        if owned is None:
            raise PluginNotInstalled(plugin_type.__name__)
        batch = MutationBatch(self._revision)
        present = self.values
        for name in owned:
            reg = self._regs[name]
            if not reg.options.retain_on_uninstall and name in present:
                batch.clear_extension(name)
        self.commit(batch)
        regs = self._own_regs()
        for name in owned:
            del regs[name]
        del plugins[plugin_type]

    # ------------------------------------------------------------------ commit

    def commit(self, batch: MutationBatch | StateCommand) -> int:
        """Apply a batch atomically and return the new revision.

        An empty batch changes nothing and returns the current revision. A set base revision
        that differs from the current one raises ``RevisionConflict``; a touched key that is not
        registered raises ``UnknownKey``. A ``StateCommand`` commits its patch only (its actions
        and effects need ``PhaseRuntime.submit_command``).
        """
        if isinstance(batch, StateCommand):
            if batch.has_actions or batch.has_effects:
                _log.warning(
                    "StateStore.commit ignores scheduled actions and effects; "
                    "use PhaseRuntime.submit_command"
                )
            if not batch.has_ops:
                return self._revision
            batch = batch.patch
        ops = batch.ops
        previous = self._revision
        if not ops:
            return previous
        base = batch.base_revision
        if base is not None and base != previous:
            raise RevisionConflict(base, previous)
        regs = self._regs
        for name in batch.touched_keys:
            if name not in regs:
                raise UnknownKey(name)
        values = dict(self.values)
        for key_cls, name, update in ops:
            if key_cls is None:
                values.pop(name, None)
                continue
            current = values.get(name, _MISSING)
            if current is _MISSING:
                current = key_cls.default()
            values[name] = key_cls.apply(current, update)
        revision = self._revision = previous + 1
        self._snapshot = None
        self.values = values
        hooks = self._hooks
        if hooks:
            event = CommitEvent(previous, revision, len(ops), self.snapshot())
            for hook in hooks:
                hook(event)
        return revision

    def merge_parallel(self, left: StateCommand, right: StateCommand) -> StateCommand:
        """Merge two commands with each key's registered strategy (into ``left``)."""
        return left.merge_parallel(right, self.strategy)

    def merge_all_commands(self, commands: Iterable[StateCommand]) -> StateCommand:
        """Fold commands with :meth:`merge_parallel` starting from an empty command."""
        merged = StateCommand()
        for command in commands:
            merged.merge_parallel(command, self.strategy)
        return merged

    # ------------------------------------------------------------------ persistence

    def _export(self, scopes: frozenset[KeyScope] | None) -> PersistedState:
        regs = self._regs
        extensions: dict[str, Any] = {}
        for name, value in self.values.items():
            reg = regs.get(name)
            if reg is None or not reg.options.persistent:
                continue
            if scopes is not None and reg.scope not in scopes:
                continue
            extensions[name] = reg.key.encode(value)
        return PersistedState(self._revision, extensions)

    def export_persisted(self) -> PersistedState:
        """Every present, persistent key encoded to JSON data, plus the revision."""
        return self._export(None)

    def export_thread_scoped(self) -> PersistedState:
        """Like :meth:`export_persisted` but only Thread-scoped keys."""
        return self._export(_THREAD)

    def export_scoped(self, scopes: frozenset[KeyScope]) -> PersistedState:
        """Like :meth:`export_persisted` but only keys of ``scopes``."""
        return self._export(scopes)

    def persistent_keys(self, scopes: frozenset[KeyScope]) -> dict[str, KeyScope]:
        """Registered persistent keys of ``scopes`` (key string → scope), present or not."""
        return {
            name: reg.scope
            for name, reg in self._regs.items()
            if reg.options.persistent and reg.scope in scopes
        }

    def _decode_entries(
        self,
        persisted: PersistedState,
        policy: UnknownKeyPolicy,
        scopes: frozenset[KeyScope] | None,
    ) -> dict[str, Any]:
        decoded: dict[str, Any] = {}
        for name, data in persisted.extensions.items():
            reg = self._regs.get(name)
            if reg is None:
                if policy is UnknownKeyPolicy.ERROR:
                    raise UnknownKey(name)
                _log.debug("skipping unknown persisted state key %s", name)
                continue
            if scopes is not None and reg.scope not in scopes:
                continue
            decoded[name] = reg.key.decode(data)
        return decoded

    def restore(
        self, persisted: PersistedState, policy: UnknownKeyPolicy = UnknownKeyPolicy.ERROR
    ) -> None:
        """Replace the whole state with ``persisted`` (revision included).

        Unknown keys raise ``UnknownKey`` (policy ERROR) or are skipped (SKIP); undecodable
        values raise ``KeyDecode``. Nothing changes on error.
        """
        values = self._decode_entries(persisted, policy, None)
        self._revision = persisted.revision
        self._snapshot = None
        self.values = values

    def restore_thread_scoped(
        self, persisted: PersistedState, policy: UnknownKeyPolicy = UnknownKeyPolicy.SKIP
    ) -> None:
        """Import only Thread-scoped keys into the current state (revision unchanged)."""
        self.restore_scoped(persisted, _THREAD, policy)

    def restore_scoped(
        self,
        persisted: PersistedState,
        scopes: frozenset[KeyScope],
        policy: UnknownKeyPolicy = UnknownKeyPolicy.SKIP,
    ) -> None:
        """Import only keys of ``scopes`` into the current state (revision unchanged)."""
        decoded = self._decode_entries(persisted, policy, scopes)
        if not decoded:
            return
        values = dict(self.values)
        values.update(decoded)
        self._snapshot = None
        self.values = values

    def reset_run_scoped(self) -> int:
        """Remove every present Run-scoped key (one commit); returns the revision."""
        batch = MutationBatch()
        for name in self.values:
            reg = self._regs.get(name)
            if reg is not None and reg.scope is KeyScope.RUN:
                batch.clear_extension(name)
        return self.commit(batch)
