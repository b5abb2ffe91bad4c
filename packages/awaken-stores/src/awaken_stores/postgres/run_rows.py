"""Mapping between ``RunRecord`` and the columns of ``<prefix>_runs``."""

from __future__ import annotations

from typing import Any

import asyncpg
import msgspec
from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.storage import (
    RunRecord,
)
from awaken_contract.errors import StorageError, StorageIoError

from awaken_stores._codec import decode, encode_str

# Run columns other than the JSONB ones; JSONB columns map to RunRecord fields below.
_RUN_JSON_COLUMNS = {
    "request": "request",
    "run_input": "input",
    "run_output": "output",
    "termination_reason": "termination_reason",
    "error_payload": "error_payload",
    "waiting": "waiting",
    "outcome": "outcome",
    "state": "state",
}
_RUN_PLAIN_COLUMNS = [
    "run_id",
    "thread_id",
    "agent_id",
    "parent_run_id",
    "status",
    "final_output",
    "dispatch_id",
    "session_id",
    "transport_request_id",
    "created_at",
    "started_at",
    "finished_at",
    "updated_at",
    "steps",
    "input_tokens",
    "output_tokens",
    "cost",
]
_RUN_COLUMNS = _RUN_PLAIN_COLUMNS + list(_RUN_JSON_COLUMNS)
_RUN_STATUSES = {s.value for s in RunStatus}
_RUN_FIELD_TYPES = {f.name: f.type for f in msgspec.structs.fields(RunRecord)}
_RUN_IMMUTABLE = {"run_id", "thread_id", "agent_id", "parent_run_id", "created_at"}


def _run_values(run: RunRecord) -> list[Any]:
    raw = msgspec.to_builtins(run)
    values: list[Any] = [raw.get(c) for c in _RUN_PLAIN_COLUMNS]
    for field in _RUN_JSON_COLUMNS.values():
        value = raw.get(field)
        values.append(None if value is None else encode_str(value))
    return values


def _run_from_row(row: asyncpg.Record) -> RunRecord:
    """Rebuild a RunRecord from its row. Like the original store, an unknown status reads back
    as ``running`` and a JSON column that no longer decodes reads back as absent."""
    raw: dict[str, Any] = {c: row[c] for c in _RUN_PLAIN_COLUMNS if row[c] is not None}
    raw["parent_run_id"] = row["parent_run_id"]
    if raw.get("status") not in _RUN_STATUSES:
        raw["status"] = RunStatus.RUNNING.value
    for column, field in _RUN_JSON_COLUMNS.items():
        if row[column] is None:
            continue
        try:
            raw[field] = msgspec.convert(decode(row[column], Any), _RUN_FIELD_TYPES[field])
        except (StorageError, msgspec.ValidationError, ValueError):
            continue
    try:
        return msgspec.convert(raw, RunRecord)
    except (msgspec.ValidationError, ValueError) as exc:
        raise StorageIoError(f"invalid run row {row['run_id']}: {exc}") from exc
