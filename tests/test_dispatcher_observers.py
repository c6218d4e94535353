"""aiogram's observer contract on tgfast: ``event_router`` in the data (put there only
where something asks, in both routing runtimes), ``HandlerObject`` / ``FilterObject``
and their ``check``/``call``, ``Router.propagate_event`` and ``Observer.trigger``
(routing without a dispatcher), ``EventObserver``, ``MiddlewareManager`` on its own,
``UserContextMiddleware`` and the Dispatcher's argument checks."""

from __future__ import annotations

import asyncio
import logging
from types import ModuleType, SimpleNamespace
from typing import Any

import orjson
import pytest

import tgfast
from tgfast import Bot
from tgfast.client.context_controller import BotContextController
from tgfast.dispatcher import UNHANDLED, Dispatcher, ErrorEvent, Router, SkipHandler
from tgfast.dispatcher.callables import CallableObject, FilterObject, HandlerObject
from tgfast.dispatcher.middlewares.user_context import EventContext, UserContextMiddleware
from tgfast.dispatcher.observer import EventObserver, MiddlewareManager
from tgfast.errors import Recommendation
from tgfast.filters import Command, F
from tgfast.methods import Request, SendMessage
from tgfast.types import Message, Update

OFFLINE_BOT = True  # the conftest `bot` never connects: these tests only dispatch


def message_update(text: str = "hi", update_id: int = 1) -> Update:
    message = {"message_id": update_id, "date": 1, "text": text,
               "chat": {"id": 7, "type": "private"},
               "from": {"id": 7, "is_bot": False, "first_name": "Ann"}}  # fmt: skip
    return tgfast.decode_update(orjson.dumps({"update_id": update_id, "message": message}))


# -- event_router ------------------------------------------------------------------------


async def test_event_router_is_the_router_whose_handler_runs(bot: Bot, routing: ModuleType) -> None:
    dp = Dispatcher(routing=routing)
    middle, leaf, spliced = Router(name="middle"), Router(name="leaf"), Router(name="spliced")
    dp.include_router(middle)
    middle.include_router(leaf)
    dp.include_router(spliced)
    middle.message.filter(F.text != "never")  # a node of its own in the table
    seen: list[tuple[str, Router]] = []

    def leaf_filter(message: Message, event_router: Router) -> bool:
        seen.append(("filter", event_router))
        return message.text == "leaf"

    @leaf.message(leaf_filter)
    async def in_leaf(message: Message, event_router: Router) -> Router:
        return event_router

    @spliced.message(Command("spliced"))
    async def in_spliced(message: Message, **data: Any) -> Router:
        return data["event_router"]  # type: ignore[no-any-return]

    @dp.message(F.text == "other")  # the root's handlers come before its children's
    async def at_root(message: Message, event_router: Router) -> Router:
        return event_router

    assert await dp.feed_update(bot, message_update("leaf")) is leaf
    assert seen == [("filter", leaf)]
    assert await dp.feed_update(bot, message_update("/spliced")) is spliced
    assert await dp.feed_update(bot, message_update("other")) is dp


async def test_event_router_only_where_asked(bot: Bot, routing: ModuleType) -> None:
    dp = Dispatcher(routing=routing)
    child = Router()
    dp.include_router(child)
    got: dict[str, Any] = {}

    @child.message.outer_middleware
    async def outer(handler: Any, event: Any, data: dict[str, Any]) -> Any:
        got["outer"] = data["event_router"]
        result = await handler(event, data)
        got["outer_after"] = data["event_router"]  # its own dict: a child's router never leaks
        return result

    @child.message.middleware
    async def inner(handler: Any, event: Any, data: dict[str, Any]) -> Any:
        got["inner"] = data["event_router"]
        return await handler(event, data)

    @child.message()
    async def handler(message: Message, bot: Bot) -> str:  # asks for no router
        return "done"

    assert await dp.feed_update(bot, message_update()) == "done"
    assert got == {"outer": child, "inner": child, "outer_after": child}


async def test_event_router_in_errors_and_update_handlers(bot: Bot, routing: ModuleType) -> None:
    dp = Dispatcher(routing=routing)
    child = Router()
    dp.include_router(child)

    @child.message()
    async def boom(message: Message) -> None:
        raise ValueError("boom")

    @child.errors()
    async def caught(event: ErrorEvent, event_router: Router) -> Any:
        return event_router

    assert await dp.feed_update(bot, message_update()) is child


async def test_skipping_a_handler_gives_the_next_its_own_router(
    bot: Bot, routing: ModuleType
) -> None:
    dp = Dispatcher(routing=routing)
    first, second = Router(), Router()
    dp.include_routers(first, second)

    @first.message.middleware
    async def inner(handler: Any, event: Any, data: dict[str, Any]) -> Any:
        return await handler(event, data)

    @first.message()
    async def skip(message: Message) -> None:
        raise SkipHandler

    @second.message()
    async def take(message: Message, event_router: Router) -> Router:
        return event_router

    assert await dp.feed_update(bot, message_update()) is second


# -- handler objects ---------------------------------------------------------------------


async def test_handler_object_checks_its_filters_and_calls_with_what_it_takes() -> None:
    def handler(event: int, foo: int) -> tuple[int, int]:
        return event, foo

    obj = HandlerObject(handler, [lambda event: True, lambda event: {"foo": event * 2}])
    assert [type(f) for f in obj.filters] == [FilterObject, FilterObject]
    passed, data = await obj.check(21, spam=1)
    assert passed and data == {"spam": 1, "foo": 42}
    assert await obj.call(21, **data) == (21, 42)
    assert not obj.awaitable and obj.params == {"event", "foo"}
    rejected = HandlerObject(handler, [lambda event: {"foo": 1}, lambda event: False])
    assert (await rejected.check(1))[0] is False


def test_a_handler_object_of_a_callable_taking_no_event_is_refused_when_registered() -> None:
    obj = HandlerObject(lambda: True, flags={"test": True})  # a stand-in for middleware tests
    assert obj.flags == {"test": True}
    with pytest.raises(TypeError, match="event"):
        Router().message.register(lambda: True)


async def test_filter_object_of_a_magic_filter_resolves_it() -> None:
    magic = F.text == "hi"
    obj = FilterObject(magic)
    assert obj.callback == magic.resolve and obj.magic is magic
    assert await obj.call(SimpleNamespace(text="hi")) is True
    assert await CallableObject(lambda event, **kw: kw).call(1, a=2) == {"a": 2}


def test_a_foreign_magic_filter_is_resolved_with_a_recommendation() -> None:
    magic_filter = pytest.importorskip("magic_filter")
    with pytest.warns(Recommendation, match="tgfast's F"):
        obj = FilterObject(magic_filter.F.text == "hi")
    assert obj.injection.fn(SimpleNamespace(text="hi")) is True
    assert obj.injection.fn(SimpleNamespace(text="no")) is False


def test_flags_kept_where_aiogram_keeps_them_are_read() -> None:
    def handler(message: Message) -> None: ...

    handler.aiogram_flag = {"chat_action": "typing"}  # type: ignore[attr-defined]
    assert HandlerObject(handler).flags == {"chat_action": "typing"}


# -- routing without a dispatcher --------------------------------------------------------


async def test_propagate_event_walks_a_router_tree_as_the_table_does() -> None:
    root, child, other = Router(), Router(), Router()
    root.include_routers(child, other)
    root.observers["custom"] = tgfast.dispatcher.Observer(root, "custom")
    child.observers["custom"] = tgfast.dispatcher.Observer(child, "custom")
    child.observers["custom"].filter(lambda event: event > 0)
    child.observers["custom"].register(lambda event, event_router: ("child", event_router))
    order: list[str] = []

    @root.observers["custom"].outer_middleware
    async def outer(handler: Any, event: Any, data: dict[str, Any]) -> Any:
        order.append("outer")
        return await handler(event, data)

    assert await root.propagate_event("custom", 1) == ("child", child)
    assert await root.propagate_event("custom", -1) is UNHANDLED  # child's filter refuses
    assert await other.propagate_event("custom", 1) is UNHANDLED  # no such observer there
    assert order == ["outer", "outer"]


async def test_trigger_runs_inner_middlewares_from_the_root_and_skips() -> None:
    root, child = Router(), Router()
    root.include_router(child)
    stack: list[str] = []

    @root.message.middleware
    async def outermost(handler: Any, event: Any, data: dict[str, Any]) -> Any:
        stack.append("root")
        return await handler(event, data)

    @child.message.middleware
    async def innermost(handler: Any, event: Any, data: dict[str, Any]) -> Any:
        stack.append("child")
        return await handler(event, data)

    def skipping(event: Any) -> None:
        raise SkipHandler

    child.message.register(skipping)
    child.message.register(lambda event, handler: handler.callback.__name__)
    assert await child.message.trigger(1) == "<lambda>"
    assert stack == ["root", "child", "root", "child"]


async def test_event_observer_calls_every_callback_with_what_it_takes() -> None:
    observer = EventObserver()
    calls: list[Any] = []
    assert observer.register(lambda: calls.append("bare")) is None
    observer()(lambda bot: calls.append(bot))
    await observer.trigger(bot="the bot", other=1)
    assert calls == ["bare", "the bot"]


async def test_a_middleware_manager_of_its_own_wraps_a_handler() -> None:
    manager = MiddlewareManager()

    @manager
    async def first(handler: Any, event: Any, data: dict[str, Any]) -> Any:
        data["seen"] = ["first"]
        return await handler(event, data)

    assert first in manager and len(manager) == 1

    async def target(event: Any, **data: Any) -> Any:
        return event, data

    assert await manager.wrap_middlewares(list(manager), target)(1, {}) == (1, {"seen": ["first"]})
    manager.unregister(first)
    assert len(manager) == 0


# -- user context, dispatcher arguments, late webhook answers -----------------------------


async def test_user_context_middleware_puts_the_whole_context_in_the_data() -> None:
    update = message_update()
    data: dict[str, Any] = {}

    async def handler(event: Any, data: dict[str, Any]) -> Any:
        return data

    await UserContextMiddleware()(handler, update, data)
    context = data["event_context"]
    assert isinstance(context, EventContext)
    assert (context.chat_id, context.user_id, context.thread_id) == (7, 7, None)
    assert data["event_from_user"] is update.message.from_user  # type: ignore[union-attr]
    with pytest.raises(RuntimeError, match="update middleware"):
        await UserContextMiddleware()(handler, object(), {})


def test_a_storage_that_is_not_one_is_refused() -> None:
    with pytest.raises(TypeError, match="BaseStorage"):
        Dispatcher(storage=object())  # type: ignore[arg-type]


async def test_a_method_returned_after_the_webhook_answer_is_called_quietly(
    bot: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    dp = Dispatcher()
    called: list[Any] = []

    @dp.message()
    async def slow(message: Message) -> SendMessage:
        await asyncio.sleep(0.05)
        return SendMessage(chat_id=7, text="late")

    async def record(bot: Bot, result: Any) -> None:
        called.append(result)

    dp.silent_call_request = record  # type: ignore[method-assign]
    raw = {"update_id": 1, "message": message_update().message.to_dict()}  # type: ignore[union-attr]
    assert await dp.feed_webhook_update(bot, raw, _timeout=0.01) is None
    await asyncio.sleep(0.1)
    assert [m.text for m in called] == ["late"]
    with caplog.at_level(logging.ERROR, logger="tgfast"):
        await Dispatcher.silent_call_request(bot, SendMessage(chat_id=7, text="x"))
    assert "sendMessage" in caplog.text  # the offline bot cannot connect: logged, not raised


def test_a_bot_context_controller_model_keeps_its_fields_and_bot(bot: Bot) -> None:
    class Order(BotContextController):
        id: int
        note: str = "none"

    order = Order.model_validate({"id": 1, "later": True}, context={"bot": bot})
    assert (order.id, order.note, order.later, order.bot) == (1, "none", True, bot)
    assert Order(id=1).as_(bot)._bot is bot and Order(id=1)._bot is None
    assert Order(id=2, note="x").model_dump() == {"id": 2, "note": "x"}
    assert Order(id=2) == Order(id=2) != Order(id=3)
    with pytest.raises(TypeError, match="'id'"):
        Order()


def test_request_holds_a_call_as_data() -> None:
    request = Request("sendMessage", {"chat_id": 1, "text": "hi"})
    assert (request.method, request.data["text"], request.files) == ("sendMessage", "hi", None)
