"""The echo bot in tgfast, served by the ``tgfast`` command.

    tgfast webhook tgfast_echo:dp --host H --port P --path /webhook --secret S \
        --token T --api-url http://127.0.0.1:SINK
    tgfast polling tgfast_echo:dp --token T --api-url http://127.0.0.1:SINK

The same bot as ``aiogram_echo.py``: every text message is answered with its
own text after a 10 ms sleep.  Nothing else is configured here: the server's
defaults (fast acknowledgement, per-chat ordering, bounded in-flight work,
uvloop) are what is measured.
"""

from __future__ import annotations

import asyncio

from tgfast import Dispatcher, Router
from tgfast.types import Message

router = Router()


@router.message()
async def echo(message: Message) -> None:
    await asyncio.sleep(0.01)
    await message.answer(message.text or "")


dp = Dispatcher()
dp.include_router(router)
