"""The echo bot in tgfast, served by the ``tgfast`` command.

    tgfast webhook tgfast_echo:dp --host H --port P --path /webhook --secret S \
        --token T --api-url http://127.0.0.1:SINK
    tgfast polling tgfast_echo:dp --token T --api-url http://127.0.0.1:SINK

The same bot as ``aiogram_echo.py``: every text message is answered with its
own text after a 10 ms sleep.  Nothing else is configured here: the server's
defaults (fast acknowledgement, per-chat ordering, bounded in-flight work,
uvloop) are what is measured.

``$E2E_BURN_MS`` (the harness's ``--burn``): the handler first burns that much CPU
time, so that the bot saturates at a rate the harness can overload (``--overload``).
"""

from __future__ import annotations

import asyncio
import os
import time

from tgfast import Dispatcher, Router
from tgfast.types import Message

BURN = float(os.environ.get("E2E_BURN_MS") or 0) / 1000
router = Router()


def burn(seconds: float) -> None:
    """Spin for ``seconds`` of this thread's CPU time (not wall time: a busy neighbour
    does not shorten it)."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


@router.message()
async def echo(message: Message) -> None:
    if BURN:
        burn(BURN)
    await asyncio.sleep(0.01)
    await message.answer(message.text or "")


dp = Dispatcher()
dp.include_router(router)
