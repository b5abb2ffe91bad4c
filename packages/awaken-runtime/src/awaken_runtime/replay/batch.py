"""Replaying every finished run of a store (the e2e suite's final check, a CI gate)."""

from __future__ import annotations

from awaken_contract.contract.lifecycle import RunStatus
from awaken_contract.contract.storage import RunQuery, ThreadRunStore

from awaken_runtime.registry.resolved import AgentResolver
from awaken_runtime.replay.errors import ReplayError
from awaken_runtime.replay.report import ReplayReport
from awaken_runtime.replay.run import replay_run
from awaken_runtime.runtime.agent_runtime import AgentRuntime

__all__ = ["replay_finished_runs"]

_PAGE = 200


async def replay_finished_runs(
    runtime: AgentRuntime | AgentResolver, store: ThreadRunStore
) -> dict[str, ReplayReport | ReplayError]:
    """Replay every ``done`` run of ``store``: its report, or why it cannot be replayed."""
    outcomes: dict[str, ReplayReport | ReplayError] = {}
    offset = 0
    while True:
        page = await store.list_runs(RunQuery(offset=offset, limit=_PAGE, status=RunStatus.DONE))
        for record in page.items:
            try:
                outcomes[record.run_id] = await replay_run(runtime, store, record.run_id)
            except ReplayError as exc:
                outcomes[record.run_id] = exc
        if not page.has_more or not page.items:
            return outcomes
        offset += len(page.items)
