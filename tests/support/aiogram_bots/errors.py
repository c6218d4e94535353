"""Middlewares, flags, error handlers and the workflow data of a dispatcher."""

from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware, Bot, Dispatcher, F, Router, flags
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.dispatcher.flags import get_flag
from aiogram.filters import Command, ExceptionTypeFilter
from aiogram.types import ErrorEvent, Message, TelegramObject

router = Router()


def make_bot(api_url: str) -> Bot:
    return Bot("42:TEST", session=AiohttpSession(api=TelegramAPIServer.from_base(api_url)))


class Counter(BaseMiddleware):
    def __init__(self) -> None:
        self.seen = 0

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        self.seen += 1
        data["seen"] = self.seen
        data["label"] = get_flag(data, "label", default="none")
        return await handler(event, data)


class Broken(Exception):
    pass


@router.message(Command("count"))
@flags.label("counting")
async def count(message: Message, seen: int, label: str, greeting: str) -> None:
    await message.answer(f"{greeting}: update {seen}, flag {label}")


@router.message(Command("fail"))
async def fail(message: Message) -> None:
    raise Broken(message.text)


@router.message(Command("crash"))
async def crash(message: Message) -> None:
    raise ValueError("crash")


@router.message(F.text)
async def other(message: Message, seen: int, label: str) -> None:
    await message.answer(f"text {seen} {label}")


@router.errors(ExceptionTypeFilter(Broken), F.update.message.as_("message"))
async def on_broken(event: ErrorEvent, message: Message) -> None:
    await message.answer(f"broken: {event.exception}")


@router.errors()
async def on_other(event: ErrorEvent) -> None:
    assert event.update.message is not None
    await event.update.message.answer(f"{type(event.exception).__name__}: {event.exception}")


dp = Dispatcher(greeting="Hello")
dp["unused"] = 1
dp.message.middleware(Counter())
dp.include_router(router)

UPDATES = [
    {"message": {"text": "/count"}},
    {"message": {"text": "hello"}},
    {"message": {"text": "/fail now"}},
    {"message": {"text": "/crash"}},
    {"message": {"text": "/count"}},
]
