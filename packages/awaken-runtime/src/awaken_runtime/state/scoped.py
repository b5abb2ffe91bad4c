"""Shared- and Profile-scoped state of a run: loaded from the profile store at run start,
written back at every checkpoint.

Only keys whose encoded value changed since they were loaded (or last written) are written, so
a run that merely read a Shared key never overwrites a newer value another thread wrote
meanwhile; a key the run cleared is deleted. Between runs the last writer wins. Profile keys
are stored per their ``PER`` (agent, user, agent and user); in a run without a user id the keys
kept per user are neither loaded nor written (they live for that run only).
"""

from __future__ import annotations

from typing import Any

from awaken_contract.key_codec import ProfileOwnerKind
from awaken_contract.scoped_state import STORED_SCOPES, ScopedStateEntries
from awaken_contract.state import KeyScope, PersistedState, UnknownKeyPolicy

from awaken_runtime.state.store import StateStore

__all__ = ["ScopedStateSync"]

_ABSENT: Any = object()


class ScopedStateSync:
    """Moves a run's Shared/Profile keys between its :class:`StateStore` and the profile store."""

    __slots__ = ("_keys", "_per", "_saved", "entries", "state")

    def __init__(self, entries: ScopedStateEntries, state: StateStore) -> None:
        self.entries = entries
        self.state = state
        self._keys: dict[str, KeyScope] = {}
        self._per: dict[str, ProfileOwnerKind] = {}
        self._saved: dict[str, Any] = {}

    async def load(self) -> None:
        """Import the stored values of every registered Shared/Profile key (unknown entries and
        keys registered later are ignored)."""
        self._keys, self._per = {}, {}
        for name, scope in self.state.persistent_keys(STORED_SCOPES).items():
            reg = self.state.registration(name)
            per = reg.key.PER if reg is not None else ProfileOwnerKind.AGENT
            if self.entries.keeps(scope, per):
                self._keys[name] = scope
                self._per[name] = per
        if not self._keys:
            return
        data = await self.entries.load(self._keys, self._per)
        self.state.restore_scoped(PersistedState(0, data), STORED_SCOPES, UnknownKeyPolicy.SKIP)
        self._saved = dict(data)

    @property
    def has_keys(self) -> bool:
        """The run has Shared/Profile keys to keep in sync (else :meth:`save` writes nothing)."""
        return bool(self._keys)

    async def save(self) -> int:
        """Write the keys the run changed (delete the ones it cleared); returns how many."""
        if not self._keys:
            return 0
        current = self.state.export_scoped(STORED_SCOPES).extensions
        written = 0
        for name, scope in self._keys.items():
            now = current.get(name, _ABSENT)
            if now == self._saved.get(name, _ABSENT):
                continue
            if now is _ABSENT:
                await self.entries.delete(scope, name, self._per[name])
                self._saved.pop(name, None)
            else:
                await self.entries.save(scope, name, now, self._per[name])
                self._saved[name] = now
            written += 1
        return written
