"""ChatActionSender and ChatActionMiddleware as aiogram documents them.

Each handler works a little (0.3 s, far below the 5 s interval) before it answers, so
exactly one action is sent per block, and it has been sent before the answer: the
calls are the same on both frameworks, in the same order."""

import asyncio

from aiogram import Bot, Dispatcher, F, flags
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.filters import Command
from aiogram.types import Message
from aiogram.utils.chat_action import ChatActionMiddleware, ChatActionSender

dp = Dispatcher()
dp.message.middleware(ChatActionMiddleware())

WORK = 0.3


def make_bot(api_url: str) -> Bot:
    return Bot("42:TEST", session=AiohttpSession(api=TelegramAPIServer.from_base(api_url)))


@dp.message(Command("report"))
@flags.chat_action("upload_document")
async def report(message: Message) -> None:
    await asyncio.sleep(WORK)
    await message.answer("report ready")


@dp.message(Command("voice"))
@flags.chat_action(action="record_voice", interval=30)
async def voice(message: Message) -> None:
    await asyncio.sleep(WORK)
    await message.answer("voice ready")


@dp.message(Command("photo"))
@flags.chat_action(initial_sleep=60)
async def photo(message: Message, bot: Bot) -> None:
    # the middleware's action waits a minute (never sent); this block sends its own
    async with ChatActionSender.upload_photo(bot=bot, chat_id=message.chat.id):
        await asyncio.sleep(WORK)
    await message.answer("photo ready")


@dp.message(F.text)
async def echo(message: Message) -> None:
    await asyncio.sleep(WORK)
    await message.answer(message.text or "")


UPDATES = [
    {"message": {"text": "/report"}},
    {"message": {"text": "/voice"}},
    {"message": {"text": "/photo"}},
    {"message": {"text": "hello"}},
    {
        "message": {
            "text": "in a topic",
            "chat": {"id": -100123, "type": "supergroup", "title": "Forum", "is_forum": True},
            "message_thread_id": 7,
            "is_topic_message": True,
        }
    },
]
