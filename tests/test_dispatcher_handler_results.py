"""What a handler returns is never silently dropped, in both routing twins.

A method object (``return message.answer("hi")``) comes back from ``feed_update`` for
the caller to send: the webhook server and the poller send it (as the webhook answer
in reply mode). A coroutine returned without being awaited (``return
bot.send_message(...)``) is awaited in the handler's place, inside the handler's
error handling, and what it gives is the handler's result: a method object it gives
is sent like any other.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Awaitable, Callable
from types import ModuleType
from typing import Any

import aiohttp
import orjson
import pytest
from server_support import message, post, served

import tgfast
from tgfast import Bot, Dispatcher
from tgfast.dispatcher import ErrorEvent, SkipHandler
from tgfast.filters import F
from tgfast.methods import SendMessage
from tgfast.server import Poller
from tgfast.testing import FakeTelegram
from tgfast.types import Message, Update


def update(text: str, update_id: int = 1, chat_id: int = 5) -> Update:
    return tgfast.convert(Update, message(update_id, chat_id, text))


async def test_a_returned_shortcut_is_a_bound_method_object(
    routing: ModuleType, bot: Bot, fake: FakeTelegram
) -> None:
    dp = Dispatcher(routing=routing)

    @dp.message()
    async def hello(message: Message) -> SendMessage:
        return message.answer(f"hi {message.text}")

    result = await dp.feed_update(bot, update("Ann"))
    assert isinstance(result, SendMessage)
    assert result.to_dict() == {"chat_id": 5, "text": "hi Ann"}
    assert result.bot is bot
    assert fake.calls == []  # feed_update hands it back; the caller sends it
    assert (await result).text == "hi Ann"


async def test_a_returned_coroutine_is_awaited(
    routing: ModuleType, bot: Bot, fake: FakeTelegram
) -> None:
    dp = Dispatcher(routing=routing)

    @dp.message(F.text == "async")
    async def forgot_await(message: Message) -> Awaitable[Message]:
        return bot.send_message(message.chat.id, "sent anyway")

    @dp.message(F.text == "sync")
    def sync_handler(message: Message) -> Awaitable[Message]:
        return bot.send_message(message.chat.id, "from a sync handler")

    gc.collect()  # a "never awaited" warning would be an error (filterwarnings = error)
    sent = await dp.feed_update(bot, update("async"))
    assert isinstance(sent, Message) and sent.text == "sent anyway"
    sent = await dp.feed_update(bot, update("sync", 2))
    assert isinstance(sent, Message) and sent.text == "from a sync handler"
    assert [m["text"] for m in fake.sent_messages(5)] == ["sent anyway", "from a sync handler"]
    gc.collect()


async def test_a_coroutine_that_gives_a_method_object_gives_it(
    routing: ModuleType, bot: Bot
) -> None:
    dp = Dispatcher(routing=routing)

    async def later(message: Message) -> SendMessage:
        await asyncio.sleep(0)
        return message.reply("later")

    @dp.message()
    def handler(message: Message) -> Awaitable[SendMessage]:
        return later(message)

    result = await dp.feed_update(bot, update("x"))
    assert isinstance(result, SendMessage)
    assert result.to_dict() == {
        "chat_id": 5,
        "text": "later",
        "reply_parameters": {"message_id": 1, "chat_id": 5},
    }


async def test_what_a_returned_coroutine_raises_is_the_handlers_error(
    routing: ModuleType, bot: Bot
) -> None:
    dp = Dispatcher(routing=routing)
    seen: list[str] = []

    async def fails() -> None:
        raise ValueError("inside the returned coroutine")

    async def skips() -> None:
        raise SkipHandler

    @dp.message(F.text == "skip")
    async def skipping(message: Message) -> Awaitable[None]:
        return skips()

    @dp.message()
    async def failing(message: Message) -> Awaitable[None]:
        if message.text == "skip":
            return asyncio.sleep(0, "the next handler took it")  # type: ignore[return-value]
        return fails()

    @dp.errors()
    async def on_error(event: ErrorEvent) -> Awaitable[str]:
        seen.append(str(event.exception))
        return asyncio.sleep(0, "errors handler's answer")

    assert await dp.feed_update(bot, update("boom")) == "errors handler's answer"
    assert seen == ["inside the returned coroutine"]
    assert await dp.feed_update(bot, update("skip", 2)) == "the next handler took it"


async def test_middlewares_see_what_the_returned_coroutine_gave(
    routing: ModuleType, bot: Bot
) -> None:
    dp = Dispatcher(routing=routing)
    seen: list[Any] = []

    @dp.message.middleware()
    async def record(
        handler: Callable[[Any, dict[str, Any]], Awaitable[Any]],
        event: Any,
        data: dict[str, Any],
    ) -> Any:
        result = await handler(event, data)
        seen.append(result)
        return result

    async def compute() -> int:
        return 42

    @dp.message()
    async def handler(message: Message) -> Awaitable[int]:
        return compute()

    assert await dp.feed_update(bot, update("x")) == 42
    assert seen == [42]


# -- the serving paths send it -------------------------------------------------------------


async def test_webhook_sends_a_returned_shortcut_and_a_returned_coroutine(
    bot: Bot, fake: FakeTelegram, http: aiohttp.ClientSession
) -> None:
    dp = Dispatcher()

    async def make_answer(message: Message) -> SendMessage:
        return message.answer("via a coroutine")

    @dp.message(F.text == "coro")
    def coro(message: Message) -> Awaitable[SendMessage]:
        return make_answer(message)

    @dp.message()
    async def shortcut(message: Message) -> SendMessage:
        return message.answer("a shortcut")

    async with served(dp, bot) as server:
        assert (await post(http, server.url or "", message(1, 8, "x")))[0:2] == (200, b"")
        assert (await post(http, server.url or "", message(2, 8, "coro")))[0:2] == (200, b"")
        await server.drain()
    calls = fake.calls_to("sendMessage")
    assert [c.params for c in calls] == [
        {"chat_id": 8, "text": "a shortcut"},
        {"chat_id": 8, "text": "via a coroutine"},
    ]
    assert server.metrics.handled["message"] == 2


async def test_reply_mode_answers_with_a_returned_shortcut(
    bot: Bot, fake: FakeTelegram, http: aiohttp.ClientSession
) -> None:
    dp = Dispatcher()

    @dp.message()
    async def hello(message: Message) -> SendMessage:
        return message.answer(f"re: {message.text}")

    async with served(dp, bot, reply_mode=True) as server:
        status, body, _ = await post(http, server.url or "", message(1, 3, "hi"))
    assert status == 200
    assert orjson.loads(body) == {"method": "sendMessage", "chat_id": 3, "text": "re: hi"}
    assert fake.calls == []  # Telegram performs it from the answer: no call of our own


async def test_polling_sends_a_returned_shortcut(bot: Bot, fake: FakeTelegram) -> None:
    dp = Dispatcher()

    @dp.message()
    async def hello(message: Message) -> Awaitable[SendMessage]:
        async def answer() -> SendMessage:
            return message.answer(f"polled {message.text}")

        return answer()

    for text in ("a", "b"):
        update = message(0, 4, text)
        del update["update_id"]
        fake.add_update(update)
    poller = Poller(dp, bot, timeout=1)
    running = asyncio.ensure_future(poller.run())
    for _ in range(400):
        if len(fake.sent_messages(4)) == 2:
            break
        await asyncio.sleep(0.01)
    poller.stop()
    await running
    assert [m["text"] for m in fake.sent_messages(4)] == ["polled a", "polled b"]


@pytest.mark.parametrize("bound", [True, False])
async def test_a_method_object_from_another_object_is_sent_by_the_serving_bot(
    bot: Bot, fake: FakeTelegram, http: aiohttp.ClientSession, bound: bool
) -> None:
    """A hand-made method object (unbound) is sent as well as a shortcut's."""
    dp = Dispatcher()

    @dp.message()
    async def hello(message: Message) -> SendMessage:
        method = SendMessage(chat_id=message.chat.id, text="hand-made")
        return method.as_(bot) if bound else method

    async with served(dp, bot) as server:
        await post(http, server.url or "", message(1, 9, "x"))
        await server.drain()
    assert [m["text"] for m in fake.sent_messages(9)] == ["hand-made"]
