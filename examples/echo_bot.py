"""Echo bot: sends every text message back.

    tgfast webhook examples/echo_bot.py:dp --fake       # try it, no token needed
    tgfast polling examples/echo_bot.py:dp              # with TGFAST_TOKEN set

``scripts/run.sh`` runs this bot under ``tgfast webhook --fake`` and talks to it.
"""

from __future__ import annotations

from tgfast import Dispatcher, F
from tgfast.types import Message

dp = Dispatcher()


@dp.message(F.text)
async def echo(message: Message) -> None:
    await message.answer(message.text or "")


@dp.message()
async def not_text(message: Message) -> None:
    await message.answer("I can only echo text.")
