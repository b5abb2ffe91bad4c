"""MutationBatch and StateCommand semantics, snapshots, and golden JSON of the state data."""

from __future__ import annotations

import msgspec
import pytest
from awaken_contract.errors import KeyEncode, MutationBaseRevisionMismatch, ParallelMergeConflict
from awaken_contract.model import (
    DEFAULT_MAX_PHASE_ROUNDS,
    EffectSpec,
    FailedScheduledAction,
    FailedScheduledActions,
    PendingScheduledActions,
    Phase,
    PushScheduledAction,
    RemoveScheduledAction,
    ScheduledAction,
    ScheduledActionEnvelope,
    ScheduledActionSpec,
    TypedEffect,
)
from awaken_contract.state import (
    MergeStrategy,
    MutationBatch,
    PersistedState,
    Snapshot,
    StateCommand,
    StateKey,
    StateMap,
)


class Counter(StateKey[int, int]):
    KEY = "counter"
    MERGE = MergeStrategy.COMMUTATIVE

    @classmethod
    def apply(cls, value: int, update: int) -> int:
        return value + update


class Owner(StateKey[str, str]):
    KEY = "owner"


class AuditPayload(msgspec.Struct):
    action: str
    actor: str


class AuditEffect(EffectSpec[AuditPayload]):
    KEY = "audit.record"


class Notify(ScheduledActionSpec[list[str]]):
    KEY = "test.notify"
    PHASE = Phase.BEFORE_INFERENCE


def _strategy(key: str) -> MergeStrategy:
    return {"counter": MergeStrategy.COMMUTATIVE}.get(key, MergeStrategy.EXCLUSIVE)


def test_update_records_ops_and_touched_keys() -> None:
    batch = MutationBatch().update(Counter, 1).update(Counter, 2).clear(Owner)
    assert batch.touched_keys == ["counter", "counter", "owner"]
    assert len(batch) == 3
    assert not batch.is_empty
    assert MutationBatch().is_empty


def test_extend_reconciles_base_revisions() -> None:
    a = MutationBatch(3).update(Counter, 1)
    b = MutationBatch().update(Owner, "x")
    a.extend(b)
    assert a.base_revision == 3
    assert a.touched_keys == ["counter", "owner"]
    c = MutationBatch().extend(MutationBatch(7))
    assert c.base_revision == 7
    with pytest.raises(MutationBaseRevisionMismatch) as err:
        MutationBatch(1).extend(MutationBatch(2))
    assert str(err.value) == "patch base revision mismatch: 1 vs 2"


def test_extend_has_no_conflict_check() -> None:
    a = MutationBatch().update(Owner, "a")
    a.extend(MutationBatch().update(Owner, "b"))
    assert a.touched_keys == ["owner", "owner"]


def test_merge_parallel_rejects_exclusive_overlap_and_keeps_self_unchanged() -> None:
    a = MutationBatch().update(Owner, "a")
    with pytest.raises(ParallelMergeConflict) as err:
        a.merge_parallel(MutationBatch().update(Owner, "b"), _strategy)
    assert err.value.key == "owner"
    assert str(err.value) == "parallel merge conflict on exclusive key: owner"
    assert a.touched_keys == ["owner"]


def test_merge_parallel_accepts_commutative_overlap_in_order() -> None:
    a = MutationBatch().update(Counter, 1)
    a.merge_parallel(MutationBatch().update(Counter, 2).update(Owner, "z"), _strategy)
    assert [op[2] for op in a.ops] == [1, 2, "z"]


def test_state_command_collects_actions_and_effects() -> None:
    cmd = StateCommand()
    assert cmd.is_empty
    cmd.schedule_action(Notify, ["a", "b"])
    assert not cmd.is_empty
    cmd.emit(AuditEffect, AuditPayload("login", "agent-1"))
    cmd.update(Counter, 1)
    assert cmd.scheduled_actions == [
        ScheduledAction(Phase.BEFORE_INFERENCE, "test.notify", ["a", "b"])
    ]
    assert cmd.effects == [TypedEffect("audit.record", {"action": "login", "actor": "agent-1"})]
    assert cmd.effects[0].decode(AuditEffect) == AuditPayload("login", "agent-1")
    assert TypedEffect.from_spec(AuditEffect, AuditPayload("a", "b")).payload == {
        "action": "a",
        "actor": "b",
    }


def test_state_command_extend_and_merge_parallel() -> None:
    a = StateCommand().update(Counter, 1).schedule_action(Notify, ["x"])
    b = StateCommand().update(Counter, 2).emit(AuditEffect, AuditPayload("p", "q"))
    a.extend(b)
    assert a.patch.touched_keys == ["counter", "counter"]
    assert len(a.scheduled_actions) == 1
    assert len(a.effects) == 1
    c = StateCommand().update(Owner, "o")
    with pytest.raises(ParallelMergeConflict):
        c.merge_parallel(StateCommand().update(Owner, "p"), _strategy)
    c.merge_parallel(StateCommand().update(Counter, 5), _strategy)
    assert c.patch.touched_keys == ["owner", "counter"]


def test_an_empty_state_command_is_one_untracked_object_until_used() -> None:
    import gc

    cmd = StateCommand()
    assert cmd.is_empty and not cmd.has_ops and not cmd.has_actions and not cmd.has_effects
    assert cmd.base_revision is None
    assert not gc.is_tracked(cmd)  # no patch, no lists: nothing the cyclic GC must scan
    merged = StateCommand().extend(cmd).merge_parallel(StateCommand(), _strategy)
    assert merged.is_empty and not gc.is_tracked(merged)
    # reading a part makes it (the API as before: lists and a patch to mutate in place)
    cmd.scheduled_actions.append(ScheduledAction(Phase.BEFORE_INFERENCE, "test.notify", []))
    assert cmd.has_actions and not cmd.is_empty and gc.is_tracked(cmd)
    cmd.patch.update(Counter, 1)
    assert cmd.has_ops and cmd.patch.touched_keys == ["counter"]
    assert StateCommand.of(MutationBatch(3)).base_revision == 3


def test_schedule_action_with_unencodable_payload_raises_key_encode() -> None:
    with pytest.raises(KeyEncode):
        StateCommand().schedule_action(Notify, [object()])  # type: ignore[misc]


def test_snapshot_is_immutable_and_reads_typed_values() -> None:
    snap = Snapshot(4, StateMap({"counter": 3}))
    assert snap.revision == 4
    assert snap.get(Counter) == 3
    assert snap.get(Owner) is None
    assert snap.get_raw("counter") == 3
    assert snap.contains(Counter)
    with pytest.raises(AttributeError):
        snap.revision = 5  # type: ignore[misc]


def test_state_map_book_methods() -> None:
    m = StateMap()
    assert not m.contains(Counter)
    assert m.get_or_insert_default(Counter) == 0
    m.insert(Counter, 9)
    assert m.get(Counter) == 9
    assert Counter in m and "counter" in m
    assert m.remove(Counter) == 9
    assert len(m) == 0


def test_phase_has_nine_values_in_order() -> None:
    assert [p.value for p in Phase] == [
        "run_start",
        "step_start",
        "before_inference",
        "after_inference",
        "tool_gate",
        "before_tool_execute",
        "after_tool_execute",
        "step_end",
        "run_end",
    ]
    assert Phase.RUN_START.is_run_level and not Phase.STEP_END.is_run_level
    assert DEFAULT_MAX_PHASE_ROUNDS == 16


def test_golden_json_of_state_data() -> None:
    action = ScheduledAction(Phase.BEFORE_INFERENCE, "runtime.exclude_tool", "rm")
    assert msgspec.json.encode(action) == (
        b'{"phase":"before_inference","key":"runtime.exclude_tool","payload":"rm"}'
    )
    env = ScheduledActionEnvelope(3, action)
    assert msgspec.json.encode(env) == (
        b'{"id":3,"action":{"phase":"before_inference","key":"runtime.exclude_tool",'
        b'"payload":"rm"}}'
    )
    failed = FailedScheduledAction(3, action, "boom")
    assert msgspec.to_builtins(failed) == {
        "id": 3,
        "action": {"phase": "before_inference", "key": "runtime.exclude_tool", "payload": "rm"},
        "error": "boom",
    }
    assert msgspec.json.encode(TypedEffect("audit.record", {"a": 1})) == (
        b'{"key":"audit.record","payload":{"a":1}}'
    )
    persisted = PersistedState(revision=7, extensions={"counter": 2})
    assert msgspec.json.encode(persisted) == b'{"revision":7,"extensions":{"counter":2}}'
    decoded = msgspec.json.decode(b'{"revision":1,"extensions":{}}', type=PersistedState)
    assert decoded == PersistedState(1, {})


def test_pending_and_failed_queue_reducers() -> None:
    action = ScheduledAction(Phase.STEP_END, "k", None)
    queue = PendingScheduledActions.default()
    queue = PendingScheduledActions.apply(
        queue, PushScheduledAction(ScheduledActionEnvelope(1, action))
    )
    queue = PendingScheduledActions.apply(
        queue, PushScheduledAction(ScheduledActionEnvelope(2, action))
    )
    assert [e.id for e in queue] == [1, 2]
    assert [e.id for e in PendingScheduledActions.apply(queue, RemoveScheduledAction(1))] == [2]
    data = PendingScheduledActions.encode(queue)
    assert PendingScheduledActions.decode(data) == queue
    failed = FailedScheduledActions.apply([], FailedScheduledAction(1, action, "x"))
    assert FailedScheduledActions.decode(FailedScheduledActions.encode(failed)) == failed
