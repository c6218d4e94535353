"""Talk to the Bot API: Telegram's with a token, else the built-in FakeTelegram.

    python examples/client_demo.py                  # against FakeTelegram
    TGFAST_TOKEN=123:abc python examples/client_demo.py   # getMe against Telegram

Against the fake it sends, replies, edits, uploads and downloads, meets a refusal, and
lists the calls the fake recorded.
"""

from __future__ import annotations

import asyncio
import os

import tgfast
from tgfast import Bot
from tgfast.testing import FakeTelegram
from tgfast.types import BufferedInputFile


async def against_telegram(token: str) -> None:
    async with Bot(token) as bot:
        me = await bot.me()
        print(f"{bot!r} is @{me.username}")


async def against_fake() -> None:
    async with FakeTelegram() as fake, Bot(fake.token, server=fake.url) as bot:
        me = await bot.me()
        print(f"FakeTelegram at {fake.url}; the bot is @{me.username}")
        first = await bot.send_message(42, "Hello from tgfast")
        await first.reply("and a reply")
        await first.edit_text("Hello from tgfast (edited)")
        photo = await bot.send_photo(42, BufferedInputFile(b"\x89PNG fake", "dot.png"))
        data = (await bot.download(photo.photo[-1].file_id)).read() if photo.photo else b""
        print(f"downloaded the photo back: {data!r}")
        fake.fail(
            "sendMessage", error_code=403, description="Forbidden: bot was blocked by the user"
        )
        try:
            await bot.send_message(43, "blocked?")
        except tgfast.TelegramForbidden as error:
            print(f"an error, token-free: {error}")
        for call in fake.calls:
            print(f"  {call.method:<16} {call.params}")


def main() -> None:
    build = "compiled" if tgfast.__speedups__ else "pure-Python"
    print(f"tgfast {tgfast.__version__} ({build} build), Bot API {tgfast.API_VERSION}")
    token = os.environ.get("TGFAST_TOKEN") or os.environ.get("BOT_TOKEN")
    asyncio.run(against_telegram(token) if token else against_fake())


if __name__ == "__main__":
    main()
