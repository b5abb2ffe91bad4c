"""Lease renewals on one timer: each job renews every interval until it stops or is cancelled."""

from __future__ import annotations

import asyncio

from awaken_runtime.testing import wait_until
from awaken_server.mailbox.lease import LeaseRenewals


async def test_renewals_repeat_until_false_or_cancelled() -> None:
    renewals = LeaseRenewals(0.01)
    calls = {"a": 0, "b": 0, "c": 0}

    def renewing(name: str, times: int) -> object:
        async def renew() -> bool:
            calls[name] += 1
            return calls[name] < times

        return renew

    a = renewals.start(renewing("a", 3))  # stops itself after its third renewal
    b = renewals.start(renewing("b", 10**6))
    c = renewals.start(renewing("c", 10**6))
    c.cancel()  # cancelled before its first renewal: never called
    await wait_until(lambda: calls["a"] == 3 and calls["b"] >= 5)
    b.cancel()
    seen = calls["b"]
    await wait_until(lambda: len(renewals) == 0)
    for _ in range(5):
        await asyncio.sleep(0.02)  # (several intervals: nothing renews any more)
    assert calls["a"] == 3 and calls["b"] == seen and calls["c"] == 0
    a.cancel()  # harmless once stopped


async def test_a_renewal_in_flight_is_cancelled() -> None:
    renewals = LeaseRenewals(0.01)
    started = asyncio.Event()
    cancelled = asyncio.Event()

    async def slow() -> bool:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return True

    renewal = renewals.start(slow)
    await asyncio.wait_for(started.wait(), 10)
    renewal.cancel()
    await asyncio.wait_for(cancelled.wait(), 10)
    assert len(renewals) == 0
