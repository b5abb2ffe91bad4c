"""``assert_runs_replay``: every finished run of a store replays identical, or the test fails."""

from __future__ import annotations

from awaken_contract.contract.storage import ThreadRunStore

from awaken_runtime.registry.resolved import AgentResolver
from awaken_runtime.replay.batch import replay_finished_runs
from awaken_runtime.replay.report import ReplayReport
from awaken_runtime.runtime.agent_runtime import AgentRuntime

__all__ = ["assert_runs_replay"]


async def assert_runs_replay(runtime: AgentRuntime | AgentResolver, store: ThreadRunStore) -> int:
    """Replay every finished run of ``store``; the number replayed. Raises ``AssertionError``
    naming each run that diverged (with its first divergence) or could not be replayed."""
    outcomes = await replay_finished_runs(runtime, store)
    failed = [
        f"run {run_id}: {o.describe() if isinstance(o, ReplayReport) else o}"
        for run_id, o in outcomes.items()
        if not (isinstance(o, ReplayReport) and o.identical)
    ]
    if failed:
        raise AssertionError(
            f"{len(failed)} of {len(outcomes)} finished runs do not replay identical:\n"
            + "\n".join(failed)
        )
    return len(outcomes)
