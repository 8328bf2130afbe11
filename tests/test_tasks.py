"""plugin.tasks.cancel_and_wait: every stop cancels, awaits and logs its tasks the same way."""

from __future__ import annotations

import asyncio
import logging

import pytest

from plugin.tasks import cancel_and_wait


async def test_every_task_is_cancelled_and_awaited() -> None:
    started = asyncio.Event()

    async def forever() -> None:
        started.set()
        await asyncio.sleep(3600)

    first, second = asyncio.create_task(forever()), asyncio.create_task(forever())
    await started.wait()
    await cancel_and_wait([first, None, second, first])
    assert first.cancelled() and second.cancelled()


async def test_a_failure_is_logged_with_its_task_never_raised(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def fails() -> None:
        raise RuntimeError("the writer broke")

    broken = asyncio.create_task(fails(), name="writer of table 7")
    await asyncio.sleep(0)
    with caplog.at_level(logging.ERROR, logger="autohost.tasks"):
        await cancel_and_wait([broken])
    assert [record.getMessage() for record in caplog.records] == [
        "writer of table 7 failed: RuntimeError('the writer broke')"
    ]
    assert caplog.records[0].exc_info is not None


async def test_a_task_that_cleans_up_slowly_is_waited_for() -> None:
    cleaned: list[str] = []

    async def slow_cleanup() -> None:
        try:
            await asyncio.sleep(3600)
        finally:
            await asyncio.sleep(0.05)
            cleaned.append("done")

    task = asyncio.create_task(slow_cleanup())
    await asyncio.sleep(0)
    await cancel_and_wait([task])
    assert cleaned == ["done"]


async def test_a_task_may_stop_the_component_that_owns_it() -> None:
    other_started = asyncio.Event()

    async def other() -> None:
        other_started.set()
        await asyncio.sleep(3600)

    sibling = asyncio.create_task(other())

    async def stopper() -> str:
        await other_started.wait()
        await cancel_and_wait([asyncio.current_task(), sibling])
        return "stopped"

    assert await asyncio.create_task(stopper()) == "stopped"
    assert sibling.cancelled()


async def test_the_callers_own_cancellation_goes_through() -> None:
    async def stubborn() -> None:
        try:
            await asyncio.sleep(3600)
        finally:
            await asyncio.sleep(3600)  # slow to stop

    child = asyncio.create_task(stubborn())
    await asyncio.sleep(0)
    caller = asyncio.create_task(cancel_and_wait([child]))
    await asyncio.sleep(0.01)
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    child.cancel()
    with pytest.raises(asyncio.CancelledError):
        await child
