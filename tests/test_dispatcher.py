"""Routers, the dispatcher, middlewares, injection and errors: routing semantics."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tgfast import Bot, DecodeError
from tgfast.dispatcher import (
    UNHANDLED,
    BaseMiddleware,
    Dispatcher,
    ErrorEvent,
    Router,
    RouterFrozenError,
    SkipHandler,
)
from tgfast.dispatcher._kinds import UPDATE_KINDS
from tgfast.filters import Command, CommandObject, ExceptionTypeFilter, F
from tgfast.methods import SendMessage
from tgfast.testing import FakeTelegram, updates
from tgfast.types import CallbackQuery, Message, Update


def message_update(text: str, update_id: int = 1, chat_id: int = 1, **extra: Any) -> Update:
    sent = updates.message(text, chat_id=chat_id, user_id=7, message_id=update_id, **extra)
    return updates.decoded(updates.update(update_id=update_id, message=sent))


def callback_update(data: str) -> Update:
    query = updates.callback_query(data, user_id=7, query_id="q")
    return updates.decoded(updates.update(update_id=9, callback_query=query))


# the conftest `bot` never connects here: these tests only dispatch
OFFLINE_BOT = True


def test_an_observer_for_every_update_kind() -> None:
    kinds = [attr for _k, attr, _t, _r in Update.__tg_fields__ if attr != "update_id"]
    assert list(UPDATE_KINDS) == kinds
    router = Router()
    for kind in kinds:
        assert router.observers[kind] is getattr(router, kind)
        assert getattr(router, kind).kind == kind


async def test_first_matching_handler_in_declared_order(bot: Bot) -> None:
    dp, child, grandchild = Dispatcher(), Router(name="child"), Router(name="grandchild")
    dp.include_router(child)
    child.include_router(grandchild)

    @grandchild.message()
    async def deep(message: Message) -> str:
        return "grandchild"

    @child.message(F.text == "b")
    async def child_b(message: Message) -> str:
        return "child b"

    @dp.message(F.text == "a")
    async def root_a(message: Message) -> str:
        return "root a"

    @child.message(F.text == "a")
    async def child_a(message: Message) -> str:
        return "child a"

    assert await dp.feed_update(bot, message_update("a")) == "root a"
    assert await dp.feed_update(bot, message_update("b")) == "child b"
    assert await dp.feed_update(bot, message_update("c")) == "grandchild"
    assert await dp.feed_update(bot, callback_update("x")) is UNHANDLED


async def test_commands_mixed_with_other_filters_keep_declared_order(bot: Bot) -> None:
    router, seen = Router(), []
    dp = Dispatcher()
    dp.include_router(router)

    @router.message(F.text.startswith("/cmd1"))
    async def prefix(message: Message) -> None:
        seen.append("prefix")

    @router.message(Command("cmd1"))
    async def cmd1(message: Message) -> None:
        seen.append("cmd1")

    @router.message(Command("cmd2"), F.chat.id == 5)
    async def cmd2_chat5(message: Message) -> None:
        seen.append("cmd2 in chat 5")

    @router.message(F.text)
    async def any_text(message: Message) -> None:
        seen.append("any text")

    @router.message(Command("cmd2"))
    async def cmd2(message: Message) -> None:
        seen.append("cmd2")

    await dp.feed_update(bot, message_update("/cmd1"))
    await dp.feed_update(bot, message_update("/cmd2", chat_id=5))
    await dp.feed_update(bot, message_update("/cmd2"))  # any_text comes before cmd2
    await dp.feed_update(bot, message_update("/CMD2"))  # case matters by default
    await dp.feed_update(bot, message_update("hello"))
    assert seen == ["prefix", "cmd2 in chat 5", "any text", "any text", "any text"]


async def test_command_objects_and_case_and_prefixes(bot: Bot) -> None:
    dp, got = Dispatcher(), []

    @dp.message(Command("start", "help", prefix="/!", ignore_case=True))
    async def start(message: Message, command: CommandObject) -> None:
        got.append((command.prefix, command.command, command.args))

    for text in ("/start a b", "!HELP", "/Start", "#start", "/started"):
        await dp.feed_update(bot, message_update(text))
    assert got == [("/", "start", "a b"), ("!", "HELP", None), ("/", "Start", None)]


async def test_router_filters_gate_the_router_and_its_children(bot: Bot) -> None:
    dp, private, inner = Dispatcher(), Router(), Router()
    dp.include_router(private)
    private.include_router(inner)
    private.message.filter(F.chat.type == "private")

    @inner.message()
    async def handled(message: Message) -> str:
        return "private only"

    assert await dp.feed_update(bot, message_update("x", chat_id=3)) == "private only"
    assert await dp.feed_update(bot, message_update("x", chat_id=-3)) is UNHANDLED


async def test_injection_gives_only_declared_values(bot: Bot) -> None:
    dp = Dispatcher(config="cfg")
    dp["db"] = "database"
    got: dict[str, Any] = {}

    @dp.message(Command("go"), F.text.as_("the_text"))
    async def go(message: Message, command: CommandObject, the_text: str, bot: Bot,
                 config: str, event_from_user: Any, event_chat: Any) -> None:  # fmt: skip
        got.update(command=command.command, text=the_text, bot=bot, config=config,
                   user=event_from_user.id, chat=event_chat.id)  # fmt: skip

    @dp.callback_query()
    async def everything(query: CallbackQuery, **data: Any) -> None:
        got["keys"] = set(data)

    await dp.feed_update(bot, message_update("/go now"))
    assert got == {"command": "go", "text": "/go now", "bot": bot, "config": "cfg",
                   "user": 7, "chat": 1}  # fmt: skip
    await dp.feed_update(bot, callback_update("x"), extra="value")
    keys = {"bot", "update", "db", "config", "dispatcher", "extra", "event_from_user"}
    assert keys <= got["keys"]


async def test_sync_handlers_and_filters(bot: Bot) -> None:
    dp = Dispatcher()
    dp.message.register(lambda message: message.text.upper(), lambda message: len(message.text) > 2)
    assert await dp.feed_update(bot, message_update("abc")) == "ABC"
    assert await dp.feed_update(bot, message_update("ab")) is UNHANDLED


async def test_skip_handler_passes_to_the_next(bot: Bot) -> None:
    dp = Dispatcher()

    @dp.message()
    async def first(message: Message) -> None:
        raise SkipHandler

    @dp.message()
    async def second(message: Message) -> str:
        return "second"

    assert await dp.feed_update(bot, message_update("x")) == "second"


async def test_middleware_order_data_and_short_circuit(bot: Bot) -> None:
    dp, child, order = Dispatcher(), Router(), []
    dp.include_router(child)

    def tagged(name: str) -> Any:
        async def middleware(handler: Any, event: Any, data: dict[str, Any]) -> Any:
            order.append(f"{name}>")
            data[name] = True
            if event.text == f"stop at {name}" if hasattr(event, "text") else False:
                return "stopped"
            result = await handler(event, data)
            order.append(f"<{name}")
            return result

        return middleware

    dp.update.outer_middleware(tagged("update"))
    dp.message.outer_middleware(tagged("dp-outer"))
    dp.message.middleware(tagged("dp-inner"))
    child.message.outer_middleware(tagged("child-outer"))
    child.message.middleware(tagged("child-inner"))

    class Counter(BaseMiddleware):
        async def __call__(self, handler: Any, event: Any, data: dict[str, Any]) -> Any:
            data["counted"] = True
            return await handler(event, data)

    child.message.middleware(Counter())

    @child.message(F.text != "skip")
    async def handler(message: Message, update: bool, counted: bool) -> str:
        order.append("handler")
        return "done"

    assert await dp.feed_update(bot, message_update("go")) == "done"
    assert order == [
        "update>", "dp-outer>", "child-outer>", "dp-inner>", "child-inner>", "handler",
        "<child-inner", "<dp-inner", "<child-outer", "<dp-outer", "<update",
    ]  # fmt: skip
    order.clear()
    assert await dp.feed_update(bot, message_update("skip")) is UNHANDLED
    assert order == ["update>", "dp-outer>", "child-outer>", "<child-outer", "<dp-outer", "<update"]
    order.clear()
    assert await dp.feed_update(bot, message_update("stop at dp-outer")) == "stopped"
    assert order == ["update>", "dp-outer>", "<update"]


async def test_errors_handlers_and_unhandled_errors_are_logged(
    bot: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    dp, child = Dispatcher(), Router()
    dp.include_router(child)
    seen: list[Any] = []

    @child.message(F.text == "value")
    async def bad_value(message: Message) -> None:
        raise ValueError("bad value")

    @child.message(F.text == "key")
    async def bad_key(message: Message) -> None:
        raise KeyError("missing")

    @child.errors(ExceptionTypeFilter(ValueError))
    async def on_value_error(event: ErrorEvent, exception: Exception) -> str:
        seen.append((event.update.update_id, exception))
        return "recovered"

    assert await dp.feed_update(bot, message_update("value", update_id=11)) == "recovered"
    assert seen[0][0] == 11 and isinstance(seen[0][1], ValueError)
    with pytest.raises(KeyError, match="missing"):  # not taken by an errors handler
        await dp.feed_update(bot, message_update("key", update_id=12))
    # the dispatcher goes on after an error
    assert await dp.feed_update(bot, message_update("value", update_id=13)) == "recovered"


async def test_registration_after_start_is_an_error(bot: Bot) -> None:
    dp, child = Dispatcher(), Router()
    dp.include_router(child)
    await dp.feed_update(bot, message_update("x"))
    with pytest.raises(RouterFrozenError, match="started"):
        child.message.register(lambda m: None)
    with pytest.raises(RouterFrozenError):
        dp.include_router(Router())
    with pytest.raises(RouterFrozenError):
        child.message.outer_middleware(BaseMiddleware())


def test_router_tree_mistakes_are_refused() -> None:
    a, b = Router(name="a"), Router(name="b")
    a.include_router(b)
    with pytest.raises(RuntimeError, match="already attached"):  # aiogram's error types
        Router().include_router(b)
    with pytest.raises(RuntimeError, match="cycle"):
        b.include_router(a)
    with pytest.raises(RuntimeError, match="root"):
        a.include_router(Dispatcher())
    with pytest.raises(TypeError):
        a.message.register("not callable")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        a.message.register(lambda m: None, "not a filter")


async def test_used_update_types(bot: Bot) -> None:
    dp, child = Dispatcher(), Router()
    dp.include_router(child)
    child.callback_query.register(lambda q: None)
    dp.message.register(lambda m: None)
    assert dp.resolve_used_update_types() == ["callback_query", "message"]  # sorted, as aiogram


async def test_feed_raw_update(bot: Bot) -> None:
    dp = Dispatcher()
    dp.message.register(lambda m: m.text)
    body = orjson.dumps({"update_id": 5, "message": {"message_id": 1, "date": 1,
                         "chat": {"id": 1, "type": "private"}, "text": "raw"}})  # fmt: skip
    assert await dp.feed_raw_update(bot, body) == "raw"
    # by keyword, in aiogram's names
    assert await dp.feed_raw_update(bot=bot, update=orjson.loads(body)) == "raw"
    with pytest.raises(DecodeError):
        await dp.feed_raw_update(bot, b"{not json")


async def test_startup_and_shutdown_get_what_they_declare(bot: Bot) -> None:
    dp, child, calls = Dispatcher(name_of_thing="x"), Router(), []
    dp.include_router(child)

    @dp.startup()
    async def up(bot: Bot, name_of_thing: str) -> None:
        calls.append(("up", bot, name_of_thing))

    @child.shutdown()
    def down() -> None:
        calls.append(("down",))

    await dp.emit_startup(bot=bot)
    await dp.emit_shutdown(bot=bot)
    assert calls == [("up", bot, "x"), ("down",)]


async def test_shortcuts_in_handlers_use_the_update_bot() -> None:
    async with FakeTelegram() as fake, Bot(fake.token, server=fake.url, rate_limiter=None) as bot:
        dp = Dispatcher()

        @dp.message(Command("start"))
        async def start(message: Message) -> SendMessage:
            await message.answer("hello")
            assert message.reply_to_message is None
            return SendMessage(chat_id=message.chat.id, text="as a reply")

        result = await dp.feed_update(bot, message_update("/start", chat_id=77))
        assert isinstance(result, SendMessage)
        assert result.as_webhook_reply() == {
            "method": "sendMessage",
            "chat_id": 77,
            "text": "as a reply",
        }
        assert [m["text"] for m in fake.sent_messages(77)] == ["hello"]
        assert fake.errors == []


async def test_a_filter_returning_an_empty_dict_passes(bot: Bot) -> None:
    dp = Dispatcher()
    dp.message.register(lambda m: "taken", lambda m: {})
    assert await dp.feed_update(bot, message_update("x")) == "taken"
