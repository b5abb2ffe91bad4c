"""The replay buffers of finished runs are bounded in number (memory under load)."""

from __future__ import annotations

from awaken_contract.contract.event import RunFinish, TextDelta
from awaken_contract.contract.lifecycle import TerminationReason
from awaken_server.sse import EventHubRegistry


def _finish(registry: EventHubRegistry, run_id: str) -> None:
    hub = registry.open(run_id, f"thread-{run_id}")
    hub.publish(TextDelta("hello"))
    hub.publish(RunFinish(f"thread-{run_id}", run_id, termination=TerminationReason.natural_end()))
    hub.close()


async def test_only_the_newest_finished_hubs_stay_replayable() -> None:
    registry = EventHubRegistry(capacity=16, max_finished=3)
    live = registry.open("live", "thread-live")
    for i in range(10):
        _finish(registry, f"r{i}")
    assert len(registry) == 4  # three finished + the live one
    assert registry.get("r6") is None and registry.for_thread("thread-r6") is None
    newest = registry.get("r9")
    assert newest is not None and newest.closed
    frames = [f async for f in newest.subscribe(None)]
    assert len(frames) == 2 and frames[-1].terminal
    assert registry.get("live") is live and not live.closed


async def test_a_resumed_run_gets_a_fresh_hub_that_old_evictions_leave_alone() -> None:
    registry = EventHubRegistry(capacity=16, max_finished=1)
    _finish(registry, "r")
    resumed = registry.open("r", "thread-r")
    _finish(registry, "other")  # evicts the first, closed hub of "r" only
    assert registry.get("r") is resumed
    assert registry.purge(older_than_secs=-1) == 1  # "other" is closed, "r" is still live
    assert registry.get("other") is None and registry.get("r") is resumed
