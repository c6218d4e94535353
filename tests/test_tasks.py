"""cancel_and_wait: a task that swallows a cancellation (as Python 3.11's wait_for can,
under redis-py) is cancelled again until it ends, instead of being awaited forever."""

from __future__ import annotations

import asyncio

import pytest

from tgfast.tasks import cancel_and_wait, wait_unless


async def stubborn(swallowed: asyncio.Event) -> None:
    """Carries on after its first cancellation, the way a task does whose cancellation
    lands as ``asyncio.wait_for``'s inner future completes."""
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        swallowed.set()
    await asyncio.sleep(10)


async def test_a_task_that_swallows_a_cancellation_is_cancelled_again() -> None:
    swallowed = asyncio.Event()
    task = asyncio.ensure_future(stubborn(swallowed))
    await asyncio.sleep(0)
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=0.2)
    assert swallowed.is_set() and not done  # one cancel was not enough
    assert await asyncio.wait_for(cancel_and_wait(task), 2.0) == []
    assert task.cancelled()


async def test_the_exceptions_tasks_ended_with_are_returned() -> None:
    async def fails() -> None:
        raise ValueError("boom")

    async def sleeps() -> None:
        await asyncio.sleep(10)

    failed, sleeping = asyncio.ensure_future(fails()), asyncio.ensure_future(sleeps())
    await asyncio.sleep(0)
    errors = await cancel_and_wait(failed, sleeping)
    assert [type(e) for e in errors] == [ValueError]
    assert failed.done() and sleeping.cancelled()
    assert await cancel_and_wait() == []


async def test_a_cancellation_of_the_caller_propagates() -> None:
    ending = asyncio.Event()

    async def refuses_to_end() -> None:
        while not ending.is_set():  # swallows every cancellation until told
            try:
                await asyncio.sleep(10)
            except asyncio.CancelledError:
                continue

    refusing = asyncio.ensure_future(refuses_to_end())
    stopping = asyncio.ensure_future(cancel_and_wait(refusing))
    await asyncio.sleep(0.2)
    assert not stopping.done()  # still cancelling it, again and again
    stopping.cancel()
    with pytest.raises(asyncio.CancelledError):
        await stopping
    ending.set()
    assert await cancel_and_wait(refusing) == []
    assert refusing.done()


async def test_wait_unless_returns_when_a_task_ends_first() -> None:
    event = asyncio.Event()
    quick = asyncio.ensure_future(asyncio.sleep(0.01, "done"))
    slow = asyncio.ensure_future(asyncio.sleep(10))
    assert await wait_unless(event, quick, slow) is False
    assert quick.result() == "done" and not slow.done()  # the rest are left running
    await cancel_and_wait(slow)
    assert [t for t in asyncio.all_tasks() if t is not asyncio.current_task()] == []


async def test_wait_unless_returns_when_the_event_comes_first() -> None:
    event = asyncio.Event()
    slow = asyncio.ensure_future(asyncio.sleep(10))
    asyncio.get_running_loop().call_later(0.01, event.set)
    assert await wait_unless(event, slow) is True
    assert not slow.done()
    await cancel_and_wait(slow)
    event.set()  # set already: returns at once, even with no task
    assert await wait_unless(event) is True
    await asyncio.sleep(0)  # the cancelled waiter on the event has ended
    assert [t for t in asyncio.all_tasks() if t is not asyncio.current_task()] == []
