"""aiogram's dispatcher contract (issue #25, items 4 and 8).

``feed_update`` raises what a handler raised when no errors handler takes it, while the
webhook server and the poller catch, log and go on; ``@router.update()`` handlers,
``Router.emit_startup/emit_shutdown``, aiogram's include errors, a settable
``parent_router`` and aiogram's middleware-manager spellings.
"""

from __future__ import annotations

import asyncio
import logging
from types import ModuleType
from typing import Any

import orjson
import pytest

import tgfast
from tgfast import Bot
from tgfast.dispatcher import UNHANDLED, Dispatcher, ErrorEvent, Router
from tgfast.filters import ExceptionTypeFilter
from tgfast.server.processing import UpdateProcessor
from tgfast.types import Message, Update

OFFLINE_BOT = True  # the polling test makes its own bot on the fake


def update(text: str, update_id: int = 1) -> Update:
    msg = {"message_id": update_id, "date": 1, "text": text,
           "chat": {"id": 5, "type": "private", "first_name": "A"},
           "from": {"id": 5, "is_bot": False, "first_name": "A"}}  # fmt: skip
    return tgfast.convert(Update, {"update_id": update_id, "message": msg})


def failing_dispatcher(routing: ModuleType) -> Dispatcher:
    dp = Dispatcher(routing=routing)

    @dp.message()
    async def boom(message: Message) -> None:
        raise (KeyError if message.text == "key" else ValueError)(message.text)

    @dp.errors(ExceptionTypeFilter(ValueError))
    async def on_value(event: ErrorEvent) -> str:
        return f"recovered {event.exception}"

    return dp


async def test_feed_update_raises_what_no_errors_handler_takes(
    bot: Bot, routing: ModuleType
) -> None:
    dp = failing_dispatcher(routing)
    assert await dp.feed_update(bot, update("v")) == "recovered v"
    with pytest.raises(KeyError, match="key"):
        await dp.feed_update(bot, update("key", 2))
    raw = {"update_id": 3, "message": {"message_id": 3, "date": 1, "text": "key",
                                       "chat": {"id": 5, "type": "private"}}}  # fmt: skip
    with pytest.raises(KeyError):
        await dp.feed_raw_update(bot, orjson.dumps(raw))


async def test_an_errors_handler_that_raises_propagates(bot: Bot, routing: ModuleType) -> None:
    dp = Dispatcher(routing=routing)

    @dp.message()
    async def boom(message: Message) -> None:
        raise KeyError("first")

    @dp.errors()
    async def broken(event: ErrorEvent) -> None:
        raise RuntimeError("in the errors handler")

    with pytest.raises(RuntimeError, match="in the errors handler"):
        await dp.feed_update(bot, update("x"))


async def test_the_processing_server_logs_and_goes_on(
    bot: Bot, routing: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    dp = failing_dispatcher(routing)
    handled: list[str] = []

    @dp.message.outer_middleware()
    async def note(handler: Any, event: Message, data: dict[str, Any]) -> Any:
        handled.append(event.text or "")
        return await handler(event, data)

    processor = UpdateProcessor(dp, bot)
    await processor.start()
    with caplog.at_level(logging.ERROR):
        for i, text in enumerate(["key", "v", "key", "v"]):
            assert (await processor.submit(update(text, 10 + i), None, b"")).taken
        await asyncio.wait_for(processor.drain(), 5)
    assert handled == ["key", "v", "key", "v"]
    assert processor.metrics.failed["message"] == 2
    assert processor.metrics.handled["message"] == 2
    assert sum("KeyError" in r.getMessage() or r.exc_info is not None for r in caplog.records)


# -- item 8: routers ------------------------------------------------------------------------


async def test_update_handlers_take_updates_of_no_known_kind(bot: Bot, routing: ModuleType) -> None:
    dp = Dispatcher(routing=routing)
    child = Router()
    dp.include_router(child)
    seen: list[int] = []

    @dp.message()
    async def on_message(message: Message) -> str:
        return "message"

    @child.update(lambda u: u.update_id > 100)
    async def on_update(update: Update, bot: Bot) -> str:
        seen.append(update.update_id)
        return "update"

    future = tgfast.convert(Update, {"update_id": 101, "brand_new_kind": {"x": 1}})
    assert await dp.feed_update(bot, update("hi")) == "message"  # a known kind: not here
    assert await dp.feed_update(bot, future) == "update"
    old = tgfast.convert(Update, {"update_id": 7, "brand_new_kind": {"x": 1}})
    assert await dp.feed_update(bot, old) is UNHANDLED  # the filter rejects it
    assert seen == [101]


async def test_update_handlers_errors_go_to_errors_handlers(bot: Bot, routing: ModuleType) -> None:
    dp = Dispatcher(routing=routing)

    @dp.update()
    async def boom(update: Update) -> None:
        raise (LookupError if update.update_id == 1 else ValueError)("unknown kind")

    @dp.errors(ExceptionTypeFilter(ValueError))
    async def handled(event: ErrorEvent) -> str:
        return "handled"

    assert await dp.feed_update(bot, tgfast.convert(Update, {"update_id": 2, "new": {}})) == (
        "handled"
    )
    with pytest.raises(LookupError):  # not taken by an errors handler: raised
        await dp.feed_update(bot, tgfast.convert(Update, {"update_id": 1, "new": {}}))


async def test_routers_emit_their_own_startup_and_shutdown() -> None:
    parent, child = Router(), Router()
    parent.include_router(child)
    got: list[tuple[str, str]] = []

    @parent.startup()
    async def up_parent(router: Router) -> None:
        got.append(("up", router.name))

    @child.startup()
    def up_child(router: Router, extra: int) -> None:
        got.append(("up", f"{router.name}:{extra}"))

    @child.shutdown()
    async def down_child() -> None:
        got.append(("down", "child"))

    child.name, parent.name = "child", "parent"
    await child.emit_startup(extra=1)
    await parent.emit_startup(extra=2)
    await parent.emit_shutdown()
    assert got == [("up", "child:1"), ("up", "parent"), ("up", "child:2"), ("down", "child")]


def test_include_errors_are_aiogrames() -> None:
    a, b, c = Router(), Router(), Router()
    with pytest.raises(RuntimeError, match="Self-referencing"):
        a.include_router(a)
    a.include_router(b)
    with pytest.raises(RuntimeError, match="already attached"):
        c.include_router(b)
    b.include_router(c)
    with pytest.raises(RuntimeError, match="Circular"):
        c.include_router(a)
    with pytest.raises(ValueError, match="instance of Router not 'int'"):
        a.include_router(5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="At least one router"):
        a.include_routers()
    with pytest.raises(RuntimeError):
        Router().include_router(Dispatcher())
    assert a.sub_routers == [b] and b.sub_routers == [c] and c.parent_router is b
    assert list(a.chain_tail) == [a, b, c] and list(c.chain_head) == [c, b, a]  # properties


def test_parent_router_is_settable() -> None:
    parent, child = Router(), Router()
    child.parent_router = parent
    assert child.parent_router is parent and parent.sub_routers == [child]
    with pytest.raises(ValueError):
        Router().parent_router = object()  # type: ignore[assignment]
    with pytest.raises(RuntimeError):
        Dispatcher().parent_router = Router()


def test_middleware_managers_speak_aiogram() -> None:
    router = Router()

    async def mw(handler: Any, event: Any, data: dict[str, Any]) -> Any:
        return await handler(event, data)

    async def other(handler: Any, event: Any, data: dict[str, Any]) -> Any:
        return await handler(event, data)

    assert router.message.outer_middleware.register(mw) is mw
    assert mw in router.message.outer_middleware and other not in router.message.outer_middleware
    router.message.middleware(other)
    assert list(router.message.middleware) == [other] and len(router.message.middleware) == 1
    assert router.message.outer_middleware[0] is mw
    router.message.outer_middleware.unregister(mw)
    assert mw not in router.message.outer_middleware
    with pytest.raises(TypeError):
        router.message.outer_middleware.register(5)  # type: ignore[type-var]


async def test_start_polling_asks_get_me_first(fake: Any, caplog: pytest.LogCaptureFixture) -> None:
    from tgfast.client import NO_RETRY

    dp = Dispatcher()
    order: list[str] = []

    @dp.startup()
    async def started(bot: Bot) -> None:
        order.append("startup")
        asyncio.get_running_loop().call_later(
            0.05, lambda: asyncio.ensure_future(dp.stop_polling())
        )

    async with Bot(fake.token, server=fake.url, rate_limiter=None, retry=NO_RETRY) as bot:
        with caplog.at_level(logging.INFO, "tgfast.dispatcher"):
            await dp.start_polling(bot, handle_signals=False, close_bot_session=False,
                                   polling_timeout=1)  # fmt: skip
        methods = [call.method for call in fake.calls]
        assert methods.index("getMe") < methods.index("getUpdates")  # as aiogram: first
        assert bot._me is not None and order == ["startup"]
    assert any("polling: bot @" in r.getMessage() for r in caplog.records)
