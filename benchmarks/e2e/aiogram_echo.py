"""The echo bot in aiogram 3, served the way aiogram's documentation serves it.

    python aiogram_echo.py webhook --port P --path /webhook --secret S --token T --api-url URL
    python aiogram_echo.py polling --token T --api-url URL

Webhook: aiogram's own aiohttp integration, ``SimpleRequestHandler`` (its
default ``handle_in_background=True``: 200 at once, the handler in a task)
registered on the path, ``setup_application`` for start-up and shutdown.
Polling: ``Dispatcher.start_polling`` with its defaults.  The ``Bot`` talks
to the sink through ``AiohttpSession(api=TelegramAPIServer.from_base(url))``.
Logging is left unconfigured (WARNING), as for every contender.
"""

from __future__ import annotations

import asyncio
import sys

import botcli
from aiogram import Bot, Dispatcher, Router
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.types import Message
from aiogram.webhook.aiohttp_server import SimpleRequestHandler, setup_application
from aiohttp import web

router = Router()


@router.message()
async def echo(message: Message) -> None:
    await asyncio.sleep(0.01)
    await message.answer(message.text or "")


def make_bot(token: str, api_url: str) -> Bot:
    return Bot(token, session=AiohttpSession(api=TelegramAPIServer.from_base(api_url)))


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in ("webhook", "polling"):
        sys.exit("usage: aiogram_echo.py {webhook,polling} [options]")
    mode, rest = argv[0], argv[1:]
    args = botcli.parser(f"aiogram echo bot, {mode} mode").parse_args(rest)
    dp = Dispatcher()
    dp.include_router(router)

    async def webhook() -> None:
        bot = make_bot(args.token, args.api_url)
        app = web.Application()
        SimpleRequestHandler(dispatcher=dp, bot=bot, secret_token=args.secret or None).register(
            app, path=args.path
        )
        setup_application(app, dp, bot=bot)
        await botcli.serve(app, args.host, args.port)

    async def polling() -> None:
        bot = make_bot(args.token, args.api_url)
        await dp.start_polling(bot)  # stops on SIGTERM/SIGINT, closes the session

    botcli.run(webhook if mode == "webhook" else polling, args.loop)


if __name__ == "__main__":
    main()
