"""RunCanceller: interrupts raced work, also when the interrupt lands as the work finishes."""

import asyncio

import pytest
from awaken_contract.contract.cancellation import CancellationToken
from awaken_runtime.cancellation import RunCancelled, RunCanceller


async def test_watcher_interrupts_pending_work() -> None:
    token = CancellationToken()
    canceller = RunCanceller(token)
    started = asyncio.Event()

    async def forever() -> None:
        started.set()
        await asyncio.Event().wait()

    async def cancel_later() -> None:
        await started.wait()
        token.cancel()

    helper = asyncio.ensure_future(cancel_later())
    with pytest.raises(RunCancelled):
        await canceller.race(forever())
    await helper
    canceller.close()
    await asyncio.sleep(0)  # the task is usable afterwards


async def test_interrupt_from_inside_the_work_is_absorbed() -> None:
    token = CancellationToken()
    canceller = RunCanceller(token, watch=False)

    async def finishes_after_cancel() -> str:
        token.cancel()
        canceller.interrupt()  # lands while this task is running, not awaiting
        return "done"

    with pytest.raises(RunCancelled):
        await canceller.race(finishes_after_cancel())
    await asyncio.sleep(0)  # no stray CancelledError afterwards
    assert canceller.is_cancelled


async def test_cancelled_token_refuses_new_work_and_no_token_just_awaits() -> None:
    token = CancellationToken()
    token.cancel()

    async def work() -> int:
        return 1

    with pytest.raises(RunCancelled):
        await RunCanceller(token).race(work())
    assert await RunCanceller(None).race(work()) == 1


async def test_outside_cancellation_still_propagates() -> None:
    canceller = RunCanceller(CancellationToken(), watch=False)

    async def forever() -> None:
        await asyncio.Event().wait()

    task = asyncio.ensure_future(canceller.race(forever()))
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
