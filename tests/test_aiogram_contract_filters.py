"""aiogram's filter and FSM contract (issue #25, items 3, 5 and 6).

Every tgfast filter is awaitable as aiogram's are (bot authors' tests call them so),
while the dispatcher calls its synchronous twin; a subclass that overrides
``__call__`` is called through it. States, groups and storages behave as aiogram's do
where bots' tests and stored records depend on it.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable
from types import ModuleType
from typing import Any

import pytest

import tgfast
from tgfast import F
from tgfast.dispatcher import UNHANDLED, Dispatcher
from tgfast.exceptions import DataNotDictLikeError
from tgfast.filters import (
    ChatMemberUpdatedFilter,
    Command,
    CommandStart,
    ExceptionMessageFilter,
    ExceptionTypeFilter,
    Filter,
    MagicData,
    StateFilter,
    and_f,
    invert_f,
    or_f,
)
from tgfast.filters.callback_data import CallbackData
from tgfast.filters.chat_member_updated import JOIN_TRANSITION
from tgfast.filters.logic import _AndFilter, _InvertFilter, _OrFilter
from tgfast.fsm import FSMContext, MemoryStorage, State, StatesGroup
from tgfast.fsm.storage import StorageKey
from tgfast.types import CallbackQuery, ChatMemberUpdated, Message, Update

OFFLINE_BOT = True

USER = {"id": 7, "is_bot": False, "first_name": "Ann"}
CHAT = {"id": 5, "type": "group", "title": "g"}


def message(text: str) -> Message:
    return tgfast.convert(Message, {"message_id": 1, "date": 1, "chat": CHAT, "from": USER,
                                    "text": text})  # fmt: skip


def update(text: str, update_id: int = 1) -> Update:
    msg = {"message_id": update_id, "date": 1, "chat": CHAT, "from": USER, "text": text}
    return tgfast.convert(Update, {"update_id": update_id, "message": msg})


class Page(CallbackData, prefix="page"):
    number: int


class Form(StatesGroup):
    name = State()
    age = State()


class ErrorEvent:
    def __init__(self, exception: BaseException) -> None:
        self.exception = exception


# -- item 3: awaitable filters --------------------------------------------------------


async def test_every_filter_is_awaitable() -> None:
    query = tgfast.convert(
        CallbackQuery, {"id": "1", "from": USER, "chat_instance": "c", "data": "page:3"}
    )
    assert await Page.filter()(query) == {"callback_data": Page(number=3)}
    assert await Page.filter(F.number > 5)(query) is False
    assert await MagicData(F.event.text == "hi")(message("hi")) is True
    result = await MagicData(F.func(lambda d: d[0] + d.x).as_("sum"))(None, 1, x=2)
    assert result == {"sum": 3}  # aiogram: positional extras are data under 0, 1, ...
    assert await Command("go")(message("/go now")) == {
        "command": tgfast.filters.CommandObject("/", "go", None, "now")
    }
    assert await StateFilter(Form.name)(obj=None, raw_state="Form:name") is True
    assert await StateFilter(Form)(None, raw_state="Other:x") is False
    assert await ExceptionTypeFilter(KeyError)(ErrorEvent(KeyError())) is True
    matched = await ExceptionMessageFilter("boo+m")(ErrorEvent(ValueError("a booom")))
    assert isinstance(matched, dict) and matched["match_exception"].group() == "booom"
    joined = tgfast.convert(ChatMemberUpdated, {
        "chat": CHAT, "from": USER, "date": 1,
        "old_chat_member": {"status": "left", "user": USER},
        "new_chat_member": {"status": "member", "user": USER},
    })  # fmt: skip
    assert await ChatMemberUpdatedFilter(JOIN_TRANSITION)(joined) is True
    assert repr(ChatMemberUpdatedFilter(JOIN_TRANSITION)).startswith(
        "ChatMemberUpdatedFilter(member_status_changed="
    )
    from tgfast.filters import chat_member_updated as statuses  # aiogram's private names

    assert isinstance(JOIN_TRANSITION, statuses._MemberStatusTransition)
    assert isinstance(statuses.IS_MEMBER, statuses._MemberStatusGroupMarker)
    assert isinstance(statuses.MEMBER, statuses._MemberStatusMarker)
    for f in (Command("x"), Page.filter(), StateFilter(None), MagicData(F.x)):
        assert isinstance(f, Awaitable)


async def test_combinators_are_awaitable_and_keep_aiogram_class_names() -> None:
    assert await and_f(lambda t: {"t": t}, lambda t: t is True)(True) == {"t": True}
    assert await or_f(lambda t: t is False, lambda t: {"t": t})(True) == {"t": True}
    assert await invert_f(lambda t: t is False)(True) is True
    assert await (StateFilter(Form.age) & MagicData(F.event == 1))(1, raw_state="Form:age")
    assert isinstance(and_f(Command("a"), Command("b")), _AndFilter)
    assert isinstance(or_f(Command("a"), Command("b")), _OrFilter)
    assert isinstance(~Command("a"), _InvertFilter)


class Even(Filter):
    """A user filter overriding the synchronous twin of a tgfast filter."""

    def __call__(self, event: int) -> bool:
        return event % 2 == 0


class LoudState(StateFilter):
    """Overrides ``__call__`` (aiogram's extension point): the router must call it."""

    async def __call__(self, obj: Any, raw_state: str | None = None) -> bool:
        return raw_state == "Form:age"  # ignores the states it was built with


def test_the_router_gets_the_synchronous_twin() -> None:
    from tgfast.filters.base import as_filter, filter_is_async

    plain = StateFilter(Form.name)
    check = as_filter(plain)
    assert check == plain.check and filter_is_async(plain) is False
    assert filter_is_async(and_f(plain, Even())) is False
    overridden = LoudState(Form.name)
    assert as_filter(overridden) is overridden and filter_is_async(overridden) is True


async def test_dispatch_uses_twins_and_honours_overrides(bot: Any, routing: ModuleType) -> None:
    dp = Dispatcher(routing=routing)
    seen: list[str] = []

    @dp.message(Form.name, F.text == "a")
    async def named(message: Message) -> str:
        seen.append("named")
        return "named"

    @dp.message(LoudState(Form.name))
    async def loud(message: Message) -> str:
        return "loud"

    key = StorageKey(bot.id, 5, 7)
    await dp.storage.set_state(key, Form.name)
    assert await dp.feed_update(bot, update("a")) == "named"
    assert await dp.feed_update(bot, update("b", 2)) is UNHANDLED  # LoudState wants Form:age
    await dp.storage.set_state(key, Form.age)
    assert await dp.feed_update(bot, update("b", 3)) == "loud"


# -- item 6: commands -------------------------------------------------------------------


async def test_command_start_deep_link_has_three_values() -> None:
    assert await CommandStart()(message("/start ref")) is not False  # None: either
    assert await CommandStart()(message("/start")) is not False
    assert await CommandStart(deep_link=False)(message("/start ref")) is False
    assert await CommandStart(deep_link=False)(message("/start")) is not False
    assert await CommandStart(deep_link=True)(message("/start")) is False


def test_command_errors_are_value_errors() -> None:
    with pytest.raises(ValueError):
        Command()
    with pytest.raises(ValueError):
        Command(commands=5)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Command(object())  # type: ignore[arg-type]
    f = Command(re.compile(r"item(\d+)"), "Test", ignore_case=True)
    assert f.commands == (f.patterns[0], "test")


# -- item 5: FSM surface ------------------------------------------------------------------


def test_states_outside_groups_are_stored_as_aiogram_stores_them() -> None:
    assert State("x").state == "@:x"
    assert State("x", group_name="g").state == "g:x"
    assert State().state is None and State("*").state == "*"
    assert str(State("x", group_name="g")) == "<State 'g:x'>"
    assert State("x", group_name="g")(None, "g:x") is True
    with pytest.raises(RuntimeError):
        State("x").group  # noqa: B018 - aiogram raises outside a group
    with pytest.raises(ValueError):
        State("x", group_name="")

    class Named(StatesGroup):
        step = State("step", group_name="legacy")

    assert Named.step.state == "legacy:step" and Named.step.group is Named


def test_a_states_group_instance_is_a_filter() -> None:
    group = Form()
    assert group(None, "Form:age") is True and group(None, "Other:age") is False
    assert Form.get_root() is Form
    with pytest.raises((ValueError, RuntimeError)):

        class NotAGroup:
            step = State()


async def test_a_group_instance_filters_in_the_dispatcher(bot: Any, routing: ModuleType) -> None:
    dp = Dispatcher(routing=routing)

    @dp.message(Form())
    async def in_form(message: Message) -> str:
        return "in form"

    assert await dp.feed_update(bot, update("x")) is UNHANDLED
    await dp.fsm.get_context(bot=bot, chat_id=5, user_id=7).set_state(Form.age)
    assert await dp.feed_update(bot, update("x", 2)) == "in form"
    context = dp.fsm.get_context(bot=bot, chat_id=5, user_id=7)
    assert context.key == dp.fsm.get_context(bot.id, 5, 7).key
    assert context.key == dp.fsm.get_context(bot_id=bot.id, chat_id=5, user_id=7).key
    with pytest.raises(TypeError):
        dp.fsm.get_context(chat_id=5, user_id=7)


@pytest.mark.parametrize("bad", [[("a", 1)], "text", 42, None])
async def test_non_dict_data_is_refused_by_every_path(bad: Any) -> None:
    storage = MemoryStorage()
    key = StorageKey(1, 2, 3)
    with pytest.raises(DataNotDictLikeError):
        await storage.set_data(key, bad)
    with pytest.raises(DataNotDictLikeError):
        await FSMContext(storage, key).set_data(bad)
    if bad is not None:
        with pytest.raises(DataNotDictLikeError):
            await FSMContext(storage, key).update_data(bad)
    assert await storage.get_data(key) == {}
    await storage.set_state(key, Form.name)  # a State object, as aiogram's storages take
    assert await storage.get_state(key) == "Form:name"


def test_group_names_and_middleware_spellings_of_aiogram() -> None:
    from tgfast.fsm.middleware import FSMContextMiddleware
    from tgfast.fsm.storage.memory import SimpleEventIsolation
    from tgfast.fsm.strategy import FSMStrategy

    class Outer(StatesGroup):
        one = State()

        class Inner(StatesGroup):
            two = State()

    assert Outer.__state_names__ == ("Outer:one",)
    assert Outer.__all_states_names__ == ("Outer:one", "Outer.Inner:two")
    assert Outer.__all_childs__ == (Outer.Inner,) and Outer.Inner.get_root() is Outer
    assert str(Outer) == "<StatesGroup 'Outer'>"
    isolation = SimpleEventIsolation()
    mw = FSMContextMiddleware(MemoryStorage(), events_isolation=isolation,
                              strategy=FSMStrategy.CHAT)  # fmt: skip
    assert mw.isolation is isolation and mw.strategy is FSMStrategy.CHAT
    context = mw.resolve_context(bot=42, chat_id=-100, user_id=None)
    assert context is not None and context.key.chat_id == context.key.user_id == -100
    user_mw = FSMContextMiddleware(MemoryStorage(), isolation, FSMStrategy.GLOBAL_USER)
    assert user_mw.isolation is isolation and user_mw.strategy is FSMStrategy.GLOBAL_USER
    assert user_mw.resolve_context(bot=42, chat_id=-100, user_id=None) is None
