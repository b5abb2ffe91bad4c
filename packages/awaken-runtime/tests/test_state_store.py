"""StateStore: commits, revisions, key registry, plugins, persistence and scopes."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from awaken_contract.errors import (
    KeyAlreadyRegistered,
    KeyDecode,
    PluginAlreadyInstalled,
    PluginNotInstalled,
    RevisionConflict,
    UnknownKey,
)
from awaken_contract.plugin import (
    PhaseContext,
    PhaseHook,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
)
from awaken_contract.state import (
    KeyScope,
    MergeStrategy,
    MutationBatch,
    PersistedState,
    StateCommand,
    StateKey,
    StateKeyOptions,
    UnknownKeyPolicy,
)
from awaken_runtime.state import CommitEvent, StateStore


class Counter(StateKey[int, int]):
    KEY = "test.counter"
    MERGE = MergeStrategy.COMMUTATIVE

    @classmethod
    def apply(cls, value: int, update: int) -> int:
        return value + update


class AuditLog(msgspec.Struct):
    entries: list[str] = msgspec.field(default_factory=list)


class AuditLogKey(StateKey[AuditLog, AuditLog]):
    KEY = "audit_log"


class Memory(StateKey[list[str], str]):
    KEY = "memory"
    SCOPE = KeyScope.THREAD

    @classmethod
    def apply(cls, value: list[str], update: str) -> list[str]:
        return [*value, update]


class Scratch(StateKey[int, int]):
    KEY = "scratch"


class CounterPlugin(Plugin):
    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor(name="counter")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_key(Counter, StateKeyOptions())


class OtherCounterPlugin(Plugin):
    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor(name="other-counter")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_key(Counter)


class AuditHook(PhaseHook):
    async def run(self, ctx: PhaseContext) -> StateCommand:
        log = ctx.state(AuditLogKey) or AuditLog()
        return StateCommand().update(AuditLogKey, AuditLog([*log.entries, f"at {ctx.phase}"]))


class AuditPlugin(Plugin):
    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor(name="audit")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_key(AuditLogKey, StateKeyOptions(scope=KeyScope.RUN))


def _store(*keys: type[StateKey[Any, Any]], persistent: bool = True) -> StateStore:
    store = StateStore()
    for key in keys:
        store.register_key(key, StateKeyOptions(persistent=persistent))
    return store


def test_counter_plugin_registers_key() -> None:
    store = StateStore()
    store.install_plugin(CounterPlugin())
    assert (store.read(Counter) or 0) == 0
    assert store.is_registered("test.counter")


def test_counter_plugin_rejects_double_installation() -> None:
    store = StateStore()
    store.install_plugin(CounterPlugin())
    with pytest.raises(PluginAlreadyInstalled):
        store.install_plugin(CounterPlugin())
    with pytest.raises(KeyAlreadyRegistered):
        store.install_plugin(OtherCounterPlugin())


async def test_audit_hook_command_commits_to_a_test_store() -> None:
    cmd = await AuditHook().run(PhaseContext.test_default())
    store = StateStore()
    store.install_plugin(AuditPlugin)
    store.commit(cmd)
    log = store.read(AuditLogKey)
    assert log is not None and log.entries == ["at run_start"]


def test_commit_bumps_revision_once_and_publishes_new_snapshot() -> None:
    store = _store(Counter)
    before = store.snapshot()
    revision = store.commit(MutationBatch().update(Counter, 2).update(Counter, 3))
    assert revision == 1 == store.revision()
    assert store.read(Counter) == 5
    assert before.get(Counter) is None and before.revision == 0


def test_empty_commit_changes_nothing() -> None:
    store = _store(Counter)
    events: list[CommitEvent] = []
    store.add_commit_hook(events.append)
    snap = store.snapshot()
    assert store.commit(MutationBatch()) == 0
    assert store.commit(StateCommand()) == 0
    assert store.snapshot() is snap
    assert events == []


def test_revision_conflict_and_unknown_key_are_all_or_nothing() -> None:
    store = _store(Counter)
    store.commit(MutationBatch().update(Counter, 1))
    with pytest.raises(RevisionConflict) as err:
        store.commit(MutationBatch(0).update(Counter, 1))
    assert (err.value.expected, err.value.actual) == (0, 1)
    assert str(err.value) == "revision conflict: expected 0, actual 1"
    with pytest.raises(UnknownKey) as unknown:
        store.commit(MutationBatch().update(Counter, 5).update(Scratch, 1))
    assert unknown.value.key == "scratch"
    assert store.read(Counter) == 1 and store.revision() == 1
    assert store.commit(MutationBatch(1).update(Counter, 1)) == 2


def test_failing_reducer_leaves_state_untouched() -> None:
    class Fragile(StateKey[int, int]):
        KEY = "fragile"

        @classmethod
        def apply(cls, value: int, update: int) -> int:
            if update < 0:
                raise ValueError("negative")
            return update

    store = _store(Counter, Fragile)
    with pytest.raises(ValueError):
        store.commit(MutationBatch().update(Counter, 1).update(Fragile, -1))
    assert store.read(Counter) is None and store.revision() == 0


def test_commit_hooks_receive_revision_and_snapshot() -> None:
    store = _store(Counter)
    events: list[CommitEvent] = []
    store.add_commit_hook(events.append)
    store.commit(MutationBatch().update(Counter, 1).update(Counter, 1))
    assert len(events) == 1
    event = events[0]
    assert (event.previous_revision, event.new_revision, event.op_count) == (0, 1, 2)
    assert event.snapshot.get(Counter) == 2


def test_clear_removes_key_and_absent_differs_from_default() -> None:
    store = _store(Counter)
    store.commit(MutationBatch().update(Counter, 0))
    assert store.snapshot().contains(Counter) and store.read(Counter) == 0
    store.commit(MutationBatch().clear(Counter))
    assert not store.snapshot().contains(Counter)


def test_uninstall_clears_owned_keys_unless_retained() -> None:
    class RetainPlugin(Plugin):
        def descriptor(self) -> PluginDescriptor:
            return PluginDescriptor("retain")

        def register(self, registrar: PluginRegistrar) -> None:
            registrar.register_key(Scratch, StateKeyOptions(retain_on_uninstall=True))

    store = StateStore()
    store.install_plugin(CounterPlugin())
    store.install_plugin(RetainPlugin())
    store.commit(MutationBatch().update(Counter, 4).update(Scratch, 9))
    store.uninstall_plugin(CounterPlugin)
    assert store.read(Counter) is None and not store.is_registered(Counter.KEY)
    store.uninstall_plugin(RetainPlugin())
    assert store.snapshot().get_raw("scratch") == 9
    with pytest.raises(PluginNotInstalled) as err:
        store.uninstall_plugin(CounterPlugin())
    assert "CounterPlugin" in str(err.value)
    store.install_plugin(CounterPlugin())  # can be installed again


def test_register_keys_skips_already_registered_names() -> None:
    store = _store(Counter)
    store.register_key(Counter, StateKeyOptions(persistent=False))
    registration = store.registration("test.counter")
    assert registration is not None and registration.options.persistent


def test_export_persisted_only_includes_present_persistent_keys() -> None:
    store = StateStore()
    store.register_key(Counter)
    store.register_key(AuditLogKey)
    store.register_key(Scratch, StateKeyOptions(persistent=False))
    store.commit(MutationBatch().update(Counter, 2).update(Scratch, 1))
    persisted = store.export_persisted()
    assert persisted == PersistedState(1, {"test.counter": 2})
    assert msgspec.json.encode(persisted) == b'{"revision":1,"extensions":{"test.counter":2}}'


def test_restore_replaces_state_and_revision() -> None:
    store = _store(Counter, AuditLogKey)
    store.commit(MutationBatch().update(Counter, 1))
    store.restore(PersistedState(9, {"audit_log": {"entries": ["a"]}}))
    assert store.revision() == 9
    assert store.read(Counter) is None
    assert store.read(AuditLogKey) == AuditLog(["a"])


def test_restore_unknown_key_policy() -> None:
    persisted = PersistedState(3, {"test.counter": 5, "plugin.gone": {"x": 1}})
    strict = _store(Counter)
    with pytest.raises(UnknownKey) as err:
        strict.restore(persisted, UnknownKeyPolicy.ERROR)
    assert err.value.key == "plugin.gone"
    assert strict.revision() == 0 and strict.read(Counter) is None
    lenient = _store(Counter)
    lenient.restore(persisted, UnknownKeyPolicy.SKIP)
    assert lenient.read(Counter) == 5 and lenient.revision() == 3


def test_restore_decode_failure_raises_key_decode() -> None:
    store = _store(Counter)
    with pytest.raises(KeyDecode) as err:
        store.restore(PersistedState(1, {"test.counter": "five"}))
    assert err.value.key == "test.counter"


def test_thread_scoped_state_survives_into_a_fresh_store() -> None:
    first = _store(Counter, Memory)
    first.commit(MutationBatch().update(Counter, 7).update(Memory, "likes tea"))
    checkpoint = first.export_persisted()
    assert set(checkpoint.extensions) == {"test.counter", "memory"}
    assert first.export_thread_scoped().extensions == {"memory": ["likes tea"]}

    second = _store(Counter, Memory)
    second.commit(MutationBatch().update(Counter, 1))
    second.restore_thread_scoped(
        PersistedState(50, {**checkpoint.extensions, "unknown": 1}), UnknownKeyPolicy.SKIP
    )
    assert second.read(Memory) == ["likes tea"]
    assert second.read(Counter) == 1  # Run-scoped entries are not imported
    assert second.revision() == 1
    with pytest.raises(UnknownKey):
        second.restore_thread_scoped(PersistedState(0, {"unknown": 1}), UnknownKeyPolicy.ERROR)


def test_registration_scope_overrides_key_scope() -> None:
    store = StateStore()
    store.register_key(Memory, StateKeyOptions(scope=KeyScope.RUN))
    store.register_key(Counter, StateKeyOptions(scope=KeyScope.THREAD))
    store.commit(MutationBatch().update(Memory, "m").update(Counter, 1))
    assert store.export_thread_scoped().extensions == {"test.counter": 1}


def test_reset_run_scoped_keeps_thread_scoped_keys() -> None:
    store = _store(Counter, Memory)
    store.commit(MutationBatch().update(Counter, 1).update(Memory, "x"))
    assert store.reset_run_scoped() == 2
    assert store.read(Counter) is None
    assert store.read(Memory) == ["x"]


def test_merge_all_commands_uses_registered_strategies() -> None:
    from awaken_contract.errors import ParallelMergeConflict

    store = _store(Counter, AuditLogKey)
    merged = store.merge_all_commands(
        [StateCommand().update(Counter, 1), StateCommand().update(Counter, 2)]
    )
    store.commit(merged)
    assert store.read(Counter) == 3
    with pytest.raises(ParallelMergeConflict):
        store.merge_all_commands(
            [
                StateCommand().update(AuditLogKey, AuditLog()),
                StateCommand().update(AuditLogKey, AuditLog()),
            ]
        )
    # Unregistered keys count as Exclusive.
    with pytest.raises(ParallelMergeConflict):
        store.merge_parallel(StateCommand().update(Scratch, 1), StateCommand().update(Scratch, 2))


def test_a_sharing_store_copies_the_registrations_before_changing_them() -> None:
    first = StateStore()
    first.register_key(Counter)
    shared = first.registrations()
    a, b = StateStore.sharing(shared), StateStore.sharing(shared)
    a.register_key(Counter)  # already present: nothing to copy
    assert a.is_registered(Counter.KEY) and b.is_registered(Counter.KEY)
    a.register_key(Memory)
    b.install_plugin(AuditPlugin())
    assert a.is_registered(Memory.KEY) and not b.is_registered(Memory.KEY)
    assert b.is_registered(AuditLogKey.KEY) and not a.is_registered(AuditLogKey.KEY)
    b.uninstall_plugin(AuditPlugin)
    assert not b.is_registered(AuditLogKey.KEY)
    assert set(shared) == {Counter.KEY}
    a.commit(MutationBatch().update(Counter, 2))
    assert a.read(Counter) == 2 and b.read(Counter) is None
