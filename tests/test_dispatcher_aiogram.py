"""What aiogram users expect of the dispatcher, in both builds (run the file once as it
is and once with ``TGFAST_NO_EXTENSIONS=1``): containers kept by reference, loud
mistakes instead of silent no-ops, middleware decorators, handler flags, aiogram's
names for injected values."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

import tgfast
from tgfast import Bot
from tgfast.dispatcher import (
    UNHANDLED,
    BaseMiddleware,
    Dispatcher,
    ErrorEvent,
    HandlerObject,
    Router,
    SkipHandler,
    get_flag,
)
from tgfast.filters import Command, CommandObject, ExceptionMessageFilter, F
from tgfast.types import Message, Update


def message_update(text: str, user_id: int = 7, update_id: int = 1) -> Update:
    message = {"message_id": update_id, "date": 1, "text": text,
               "chat": {"id": user_id, "type": "private"},
               "from": {"id": user_id, "is_bot": False, "first_name": "Ann"}}  # fmt: skip
    return tgfast.decode_update(orjson.dumps({"update_id": update_id, "message": message}))


# the conftest `bot` never connects here: these tests only dispatch
OFFLINE_BOT = True


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


async def passthrough(handler: Any, event: Any, data: dict[str, Any]) -> Any:
    return await handler(event, data)


def test_update_middlewares_on_a_plain_router_are_refused() -> None:
    router = Router(name="child")
    with pytest.raises(TypeError, match=r"child\.update\.outer_middleware\(\) would never run"):
        router.update.outer_middleware(passthrough)
    with pytest.raises(TypeError, match=r"router\.message\.middleware"):
        router.update.middleware(passthrough)
    with pytest.raises(TypeError, match="would never run"):
        router.update.outer_middleware()(passthrough)  # the decorator form too
    assert router.update.outer_middlewares == [] and router.update.middlewares == []


async def test_inner_update_middleware_runs_inside_the_outer_ones(bot: Bot) -> None:
    dp, order = Dispatcher(), []

    def tagged(name: str) -> Any:
        async def middleware(handler: Any, event: Any, data: dict[str, Any]) -> Any:
            assert isinstance(event, Update)
            order.append(name)
            data[name] = True
            return await handler(event, data)

        return middleware

    dp.update.middleware(tagged("inner"))
    dp.update.outer_middleware(tagged("outer"))

    @dp.message()
    async def handler(message: Message, outer: bool, inner: bool) -> str:
        order.append("handler")
        return "done"

    assert await dp.feed_update(bot, message_update("hi")) == "done"
    assert order == ["outer", "inner", "handler"]


async def test_middleware_decorators_with_and_without_parentheses(bot: Bot) -> None:
    dp, order = Dispatcher(), []

    @dp.message.outer_middleware()
    async def outer_called(handler: Any, event: Any, data: dict[str, Any]) -> Any:
        order.append("outer()")
        return await handler(event, data)

    @dp.message.outer_middleware
    async def outer_bare(handler: Any, event: Any, data: dict[str, Any]) -> Any:
        order.append("outer")
        return await handler(event, data)

    @dp.message.middleware()
    async def inner_called(handler: Any, event: Any, data: dict[str, Any]) -> Any:
        order.append("inner()")
        return await handler(event, data)

    @dp.message.middleware
    async def inner_bare(handler: Any, event: Any, data: dict[str, Any]) -> Any:
        order.append("inner")
        return await handler(event, data)

    @dp.update.outer_middleware()
    async def update_called(handler: Any, event: Any, data: dict[str, Any]) -> Any:
        order.append("update()")
        return await handler(event, data)

    @dp.message()
    async def handler(message: Message) -> str:
        order.append("handler")
        return "done"

    assert callable(outer_called) and callable(inner_bare)  # the decorators return them
    assert await dp.feed_update(bot, message_update("hi")) == "done"
    assert order == ["update()", "outer()", "outer", "inner()", "inner", "handler"]
    with pytest.raises(TypeError, match="must be callable"):
        Router().message.middleware("not a middleware")  # type: ignore[call-overload]


async def test_inner_middlewares_see_the_handler_and_its_flags(bot: Bot) -> None:
    dp, child, seen = Dispatcher(), Router(), []
    dp.include_router(child)

    @dp.message.outer_middleware
    async def outer(handler: Any, event: Any, data: dict[str, Any]) -> Any:
        seen.append(("outer", get_flag(data, "chat_action", "none"), "handler" in data))
        return await handler(event, data)

    class ChatAction(BaseMiddleware):
        async def __call__(self, handler: Any, event: Any, data: dict[str, Any]) -> Any:
            seen.append(("inner", get_flag(data, "chat_action"), data["handler"].callback))
            return await handler(event, data)

    dp.message.middleware(ChatAction())

    @child.message(Command("typing"), flags={"chat_action": "typing"})
    async def typing(message: Message) -> str:
        return "typed"

    async def plain(message: Message) -> str:
        return "plain"

    child.message.register(plain, F.text == "plain")
    child.message.register(lambda m: "photo", F.text == "photo", flags={"chat_action": "photo"})

    assert await dp.feed_update(bot, message_update("/typing")) == "typed"
    assert await dp.feed_update(bot, message_update("plain")) == "plain"
    assert await dp.feed_update(bot, message_update("photo")) == "photo"
    assert seen[:4] == [
        ("outer", "none", False), ("inner", "typing", typing),
        ("outer", "none", False), ("inner", None, plain),
    ]  # fmt: skip
    assert seen[5][1] == "photo"


async def test_the_handler_object_of_a_skipped_handler_is_replaced(bot: Bot) -> None:
    dp, seen = Dispatcher(), []

    @dp.message.middleware
    async def record(handler: Any, event: Any, data: dict[str, Any]) -> Any:
        found = data["handler"]
        assert isinstance(found, HandlerObject)
        seen.append(found.flags)
        return await handler(event, data)

    @dp.message(flags={"n": 1})
    async def first(message: Message) -> None:
        raise SkipHandler

    @dp.message(flags={"n": 2})
    async def second(message: Message) -> str:
        return "second"

    assert await dp.feed_update(bot, message_update("hi")) == "second"
    assert seen == [{"n": 1}, {"n": 2}]


def test_flags_must_be_a_mapping() -> None:
    with pytest.raises(TypeError, match="flags must be a dict"):
        Router().message.register(lambda m: None, flags=["typing"])  # type: ignore[arg-type]
    assert get_flag({}, "x", 5) == 5
    assert get_flag({"handler": None}, "x") is None


async def test_event_update_is_the_update(bot: Bot) -> None:
    dp = Dispatcher()
    seen: list[Any] = []

    @dp.message.outer_middleware
    async def outer(handler: Any, event: Any, data: dict[str, Any]) -> Any:
        seen.append(data["event_update"])
        return await handler(event, data)

    @dp.message()
    async def handler(message: Message, event_update: Update, update: Update) -> None:
        seen.extend((event_update, update))

    sent = message_update("hi")
    await dp.feed_update(bot, sent)
    assert seen == [sent, sent, sent]


async def test_state_filter_from_tgfast_filters(bot: Bot) -> None:
    import tgfast.filters
    from tgfast.filters import StateFilter
    from tgfast.fsm import FSMContext, State, StatesGroup
    from tgfast.fsm import StateFilter as FsmStateFilter

    assert StateFilter is FsmStateFilter and "StateFilter" in tgfast.filters.__all__
    with pytest.raises(AttributeError):
        tgfast.filters.NoSuchFilter  # noqa: B018

    class Form(StatesGroup):
        name = State()

    dp = Dispatcher()

    @dp.message(Command("go"))
    async def go(message: Message, state: FSMContext) -> str:
        await state.set_state(Form.name)
        return "asking"

    @dp.message(StateFilter(Form.name))
    async def named(message: Message) -> str:
        return f"hello {message.text}"

    assert await dp.feed_update(bot, message_update("Ann")) is UNHANDLED
    assert await dp.feed_update(bot, message_update("/go")) == "asking"
    assert await dp.feed_update(bot, message_update("Ann")) == "hello Ann"


async def test_command_magic_through_the_dispatcher(bot: Bot) -> None:
    dp = Dispatcher()

    @dp.message(Command("ban", magic=F.args.cast(int).as_("user_id")))
    async def ban(message: Message, command: CommandObject) -> str:
        return f"ban {command.magic_result['user_id']}"

    @dp.message(Command("ban"))
    async def usage(message: Message) -> str:
        return "usage: /ban <id>"

    assert await dp.feed_update(bot, message_update("/ban 42")) == "ban 42"
    assert await dp.feed_update(bot, message_update("/ban bob")) == "usage: /ban <id>"
    assert await dp.feed_update(bot, message_update("/ban")) == "usage: /ban <id>"
    assert await dp.feed_update(bot, message_update("/bank 1")) is UNHANDLED


async def test_include_routers_keeps_their_order(bot: Bot) -> None:
    dp, a, b, c = Dispatcher(), Router(name="a"), Router(name="b"), Router(name="c")
    a.message.register(lambda m: "a", F.text == "a")
    b.message.register(lambda m: "b", F.text.in_(("a", "b")))
    b.include_routers(c)
    c.message.register(lambda m: "c")
    assert dp.include_routers(a, b) is None
    assert dp.sub_routers == [a, b] and a.parent is dp and b.parent is dp
    assert await dp.feed_update(bot, message_update("a")) == "a"
    assert await dp.feed_update(bot, message_update("b")) == "b"
    assert await dp.feed_update(bot, message_update("z")) == "c"
    with pytest.raises(RuntimeError, match="already attached"):  # aiogram's error type
        Router().include_routers(Router(), a)


async def test_an_inner_middleware_that_short_circuits(bot: Bot) -> None:
    dp, child, called = Dispatcher(), Router(), []
    dp.include_router(child)

    @child.message.middleware
    async def only_admins(handler: Any, event: Any, data: dict[str, Any]) -> Any:
        if event.from_user.id != 1:
            return "denied"  # the handler is not called, its result is the update's
        return await handler(event, data)

    @child.message(Command("admin"))
    async def admin(message: Message) -> str:
        called.append(message.text)
        return "ok"

    @dp.message(F.text == "open")
    async def open_to_all(message: Message) -> str:
        return "open"

    assert await dp.feed_update(bot, message_update("/admin", user_id=2)) == "denied"
    assert called == []
    assert await dp.feed_update(bot, message_update("/admin", user_id=1)) == "ok"
    assert called == ["/admin"]
    assert await dp.feed_update(bot, message_update("open", user_id=2)) == "open"
    # a filter miss never reaches the inner middleware
    assert await dp.feed_update(bot, message_update("/other", user_id=2)) is UNHANDLED


async def test_exception_message_filter_through_the_errors_observer(
    bot: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    dp, child = Dispatcher(), Router()
    dp.include_router(child)

    @child.message()
    async def fail(message: Message) -> None:
        raise RuntimeError(f"quota exceeded for {message.text}")

    @child.errors(ExceptionMessageFilter(r"quota exceeded for (\w+)"))
    async def on_quota(event: ErrorEvent, match_exception: Any, update: Update) -> str:
        assert event.update is update
        return f"over quota: {match_exception.group(1)}"

    assert await dp.feed_update(bot, message_update("ann")) == "over quota: ann"
    with pytest.raises(RuntimeError, match="quota exceeded for !?"):  # no match: raised
        await dp.feed_update(bot, message_update("!?"))
