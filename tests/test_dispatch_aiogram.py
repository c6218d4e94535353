"""What aiogram users expect of the dispatcher, in both builds (run the file once as it
is and once with ``TGFAST_NO_EXTENSIONS=1``): containers kept by reference, loud
mistakes instead of silent no-ops, middleware decorators, handler flags, aiogram's
names for injected values."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest

import tgfast
from tgfast import Bot
from tgfast.dispatcher import UNHANDLED, Dispatcher, Router
from tgfast.filters import F
from tgfast.types import Message, Update


def message_update(text: str, user_id: int = 7, update_id: int = 1) -> Update:
    message = {"message_id": update_id, "date": 1, "text": text,
               "chat": {"id": user_id, "type": "private"},
               "from": {"id": user_id, "is_bot": False, "first_name": "Ann"}}  # fmt: skip
    return tgfast.decode_update(orjson.dumps({"update_id": update_id, "message": message}))


@pytest.fixture
async def bot() -> AsyncIterator[Bot]:
    async with Bot("42:test-token", rate_limiter=None) as b:
        yield b


async def test_a_list_filled_after_registration_is_seen(bot: Bot) -> None:
    admins: list[int] = []
    dp = Dispatcher()

    @dp.message(F.from_user.id.in_(admins))
    async def admin(message: Message) -> str:
        return "admin"

    assert await dp.feed_update(bot, message_update("hi", user_id=7)) is UNHANDLED
    admins.append(7)
    assert await dp.feed_update(bot, message_update("hi", user_id=7)) == "admin"
    assert await dp.feed_update(bot, message_update("hi", user_id=8)) is UNHANDLED


async def test_a_router_filter_sees_a_set_filled_later(bot: Bot) -> None:
    banned: set[int] = set()
    dp, child = Dispatcher(), Router()
    dp.include_router(child)
    child.message.filter(F.from_user.id.not_in(banned))
    child.message.register(lambda message: "served")
    assert await dp.feed_update(bot, message_update("hi")) == "served"
    banned.add(7)
    assert await dp.feed_update(bot, message_update("hi")) is UNHANDLED
