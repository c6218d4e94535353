"""``feed_update`` behaves as an ``async def`` would, in both builds.

The compiled build returns a hand-written coroutine that drives the handler's own
coroutine (``_routing._Feed``); these tests hold it to the protocol: tasks,
cancellation, ``throw``/``close``, awaiting twice, nothing run before the first await,
``current_bot`` set while handling and restored after, and every way of leaving the
fast path (``SkipHandler``, errors, suspending handlers, async filters, middlewares).
"""

from __future__ import annotations

import asyncio
import collections.abc
from typing import Any

import pytest

import tgfast
from tgfast import Bot, DecodeError
from tgfast.dispatcher import UNHANDLED, Dispatcher, ErrorEvent, Router, SkipHandler
from tgfast.filters import Command, CommandObject, F
from tgfast.testing import updates
from tgfast.types import Message, Update
from tgfast.types.binding import current_bot


def body(text: str, update_id: int = 1, chat_id: int = 5) -> bytes:
    sent = updates.message(text, chat_id=chat_id, message_id=update_id)
    return updates.encoded(updates.update(update_id=update_id, message=sent))


def update(text: str, update_id: int = 1) -> Update:
    return tgfast.decode_update(body(text, update_id))


# the conftest `bot` never connects here: these tests only dispatch
OFFLINE_BOT = True


async def test_it_is_a_coroutine_that_does_nothing_until_awaited(bot: Bot) -> None:
    ran: list[str] = []
    dp = Dispatcher()

    @dp.message(Command("go"))
    async def go(message: Message) -> str:
        ran.append(message.text or "")
        return "done"

    pending = dp.feed_update(bot, update("/go"))
    assert isinstance(pending, collections.abc.Coroutine)
    assert ran == []
    assert await pending == "done"
    assert ran == ["/go"]
    with pytest.raises(RuntimeError):
        await pending  # awaited twice, as with any coroutine
    never = dp.feed_update(bot, update("/go", 2))
    never.close()  # closing an unstarted one runs nothing
    assert ran == ["/go"]


async def test_as_a_task_and_through_gather(bot: Bot) -> None:
    dp = Dispatcher()

    @dp.message(Command("n"))
    async def n(message: Message, command: CommandObject) -> int:
        await asyncio.sleep(0)  # suspends: the task drives it through send()
        return int(command.args or 0) * 2

    task = asyncio.create_task(dp.feed_update(bot, update("/n 21")))
    assert await task == 42
    results = await asyncio.gather(*(dp.feed_update(bot, update(f"/n {i}", i)) for i in range(5)))
    assert results == [0, 2, 4, 6, 8]


async def test_suspending_handlers_interleave(bot: Bot) -> None:
    dp = Dispatcher()
    order: list[str] = []

    @dp.message()
    async def slow(message: Message) -> str:
        order.append(f"start {message.text}")
        await asyncio.sleep(0.01 if message.text == "a" else 0)
        order.append(f"end {message.text}")
        return message.text or ""

    assert await asyncio.gather(
        dp.feed_update(bot, update("a", 1)), dp.feed_update(bot, update("b", 2))
    ) == ["a", "b"]
    assert order == ["start a", "start b", "end b", "end a"]


async def test_cancellation_reaches_the_handler_and_restores_current_bot(bot: Bot) -> None:
    dp = Dispatcher()
    started = asyncio.Event()
    cleaned: list[bool] = []

    @dp.message()
    async def forever(message: Message) -> None:
        started.set()
        try:
            await asyncio.sleep(3600)
        finally:
            cleaned.append(current_bot.get() is bot)

    async def run() -> Any:
        result = await dp.feed_update(bot, update("x"))
        return result

    task = asyncio.create_task(run())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cleaned == [True]  # the handler saw the bot while being cancelled
    assert current_bot.get() is None


async def test_throw_and_close_by_hand(bot: Bot) -> None:
    dp = Dispatcher()
    seen: list[str] = []

    @dp.message()
    async def waits(message: Message) -> str:
        try:
            await asyncio.sleep(3600)
        except KeyError:
            seen.append("KeyError")
            return "recovered"
        finally:
            seen.append("finally")
        return "slept"

    coro = dp.feed_update(bot, update("x"))
    fut = coro.send(None)  # the sleep's future
    assert isinstance(fut, asyncio.Future)
    with pytest.raises(StopIteration) as stop:
        coro.throw(KeyError("k"))
    assert stop.value.value == "recovered"
    assert seen == ["KeyError", "finally"]

    coro = dp.feed_update(bot, update("y", 2))
    fut = coro.send(None)
    coro.close()
    assert seen[-1] == "finally"
    assert current_bot.get() is None
    fut.cancel()

    fresh = dp.feed_update(bot, update("z", 3))
    with pytest.raises(ValueError, match="thrown"):
        fresh.throw(ValueError("thrown"))  # into an unstarted coroutine: raised as is


async def test_current_bot_is_set_while_handling_and_restored(bot: Bot) -> None:
    dp = Dispatcher()

    @dp.message()
    async def which(message: Message) -> Any:
        return current_bot.get(), message._bot  # type: ignore[attr-defined]

    token = current_bot.set(None)
    try:
        assert await dp.feed_update(bot, update("x")) == (bot, bot)
        assert current_bot.get() is None
    finally:
        current_bot.reset(token)


async def test_current_bot_already_this_bot_is_left_alone(bot: Bot) -> None:
    """A serving task sets current_bot once; feeding then neither sets nor restores it,
    and another bot's update still gets its own bot and gives the first one back."""
    dp = Dispatcher()

    @dp.message()
    async def which(message: Message) -> Any:
        return current_bot.get()

    other = Bot("43:other-token", rate_limiter=None)
    token = current_bot.set(bot)
    try:
        assert await dp.feed_update(bot, update("x")) is bot
        assert current_bot.get() is bot
        assert await dp.feed_update(other, update("y", 2)) is other
        assert current_bot.get() is bot
    finally:
        current_bot.reset(token)
        await other.session.close()  # close() is the Bot API method now


async def test_skip_handler_goes_on_with_the_next_match(bot: Bot) -> None:
    dp = Dispatcher()
    child = dp.include_router(Router())
    calls: list[str] = []

    @dp.message(Command("go"))
    async def first(message: Message) -> None:
        calls.append("first")
        raise SkipHandler

    @dp.message(F.text.startswith("/go"))
    def second(message: Message) -> None:  # a sync handler that skips too
        calls.append("second")
        raise SkipHandler

    @child.message(Command("go"))
    async def third(message: Message, command: CommandObject) -> str:
        calls.append("third")
        await asyncio.sleep(0)
        return f"third {command.args}"

    assert await dp.feed_update(bot, update("/go now")) == "third now"
    assert calls == ["first", "second", "third"]


async def test_errors_from_every_stage_reach_the_errors_handlers(bot: Bot) -> None:
    dp = Dispatcher()
    seen: list[tuple[int, str]] = []

    def broken_filter(message: Message) -> bool:
        if message.text == "filter":
            raise ValueError("filter broke")
        return False

    @dp.message(broken_filter)
    async def never(message: Message) -> None:
        raise AssertionError("unreachable")

    @dp.message(F.text == "sync")
    def sync_fails(message: Message) -> None:
        raise ValueError("sync broke")

    @dp.message(F.text == "async")
    async def async_fails(message: Message) -> None:
        await asyncio.sleep(0)
        raise ValueError("async broke")

    @dp.errors()
    async def on_error(event: ErrorEvent, exception: Exception, bot: Bot) -> str:
        seen.append((event.update.update_id, str(exception)))
        return "handled"

    for i, text in enumerate(["filter", "sync", "async"]):
        assert await dp.feed_update(bot, update(text, i)) == "handled"
    assert seen == [(0, "filter broke"), (1, "sync broke"), (2, "async broke")]


async def test_failed_unhandled_and_decode_errors(bot: Bot) -> None:
    dp = Dispatcher()

    @dp.message(F.text == "boom")
    async def boom(message: Message) -> None:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):  # no errors handler: raised, as aiogram
        await dp.feed_update(bot, update("boom"))
    assert await dp.feed_update(bot, update("quiet")) is UNHANDLED
    pending = dp.feed_raw_update(bot, b"{not json")  # raises only when awaited
    with pytest.raises(DecodeError):
        await pending
    with pytest.raises(RuntimeError, match="boom"):
        await dp.feed_raw_update(bot, body("boom", 7))


async def test_async_filters_middlewares_and_kwargs(bot: Bot) -> None:
    dp = Dispatcher(greeting="hi")
    router = dp.include_router(Router())
    order: list[str] = []

    async def slow_filter(message: Message) -> dict[str, Any]:
        await asyncio.sleep(0)
        return {"length": len(message.text or "")}

    @router.message.middleware
    async def inner(handler: Any, event: Any, data: dict[str, Any]) -> Any:
        order.append("inner")
        return await handler(event, data)

    @router.message(Command("x"), slow_filter)
    async def x(message: Message, length: int, greeting: str, extra: str) -> str:
        return f"{greeting} {length} {extra}"

    assert await dp.feed_update(bot, update("/x abc"), extra="more") == "hi 6 more"
    assert order == ["inner"]


async def test_mentions_ask_for_the_bot_username(bot: Bot) -> None:
    dp = Dispatcher()
    bot._me = tgfast.convert(  # what getMe answered earlier
        tgfast.types.User, {"id": 42, "is_bot": True, "first_name": "B", "username": "MyBot"}
    )

    @dp.message(Command("start"))
    async def start(message: Message, command: CommandObject) -> str | None:
        return command.mention

    assert await dp.feed_update(bot, update("/start@mybot")) == "mybot"
    assert await dp.feed_update(bot, update("/start@other_bot", 2)) is UNHANDLED
    assert await dp.feed_update(bot, update("/start", 3)) is None
