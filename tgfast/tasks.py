"""Stopping a task for sure, and waiting on a task unless an event comes first.

``task.cancel()`` then ``await task`` can wait forever: on Python 3.11,
``asyncio.wait_for`` (which redis-py uses to write a command) returns the result of
an inner future that completes in the same step as the cancellation, and the task
carries on as if it had never been cancelled. A lease renewal or a handler cancelled
at that instant would keep running, and whoever awaits it would hang.
"""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["cancel_and_wait", "wait_unless"]

_AGAIN_AFTER = 0.05  # seconds a cancelled task gets before it is cancelled again


async def cancel_and_wait(*tasks: asyncio.Future[Any]) -> list[BaseException]:
    """Cancel ``tasks`` and return once each has ended, cancelling again any that keeps
    running. Returns the exceptions other than cancellation they ended with (retrieved,
    so none is reported as never retrieved). A cancellation of the caller propagates."""
    pending = {task for task in tasks if not task.done()}
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=_AGAIN_AFTER)
    return [exc for task in tasks if not task.cancelled() and (exc := task.exception())]


async def wait_unless(event: asyncio.Event, *tasks: asyncio.Future[Any]) -> bool:
    """Wait until one of ``tasks`` is done or ``event`` is set, whichever comes first;
    True when ``event`` is set. The tasks are left as they are (done or running): the
    caller decides what becomes of them."""
    setting = asyncio.ensure_future(event.wait())
    try:
        await asyncio.wait((*tasks, setting), return_when=asyncio.FIRST_COMPLETED)
    finally:
        setting.cancel()
    return event.is_set()
