"""States, groups and state filters; strategies; MemoryStorage; FSMContext; the FSM
middleware in a real dispatcher."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

import tgfast
from tgfast import Bot
from tgfast.dispatcher import UNHANDLED, Dispatcher, Router
from tgfast.filters import Command, F, and_f, as_filter, filter_params, invert_f
from tgfast.fsm import (
    FSMContext,
    FSMContextMiddleware,
    FSMStrategy,
    MemoryStorage,
    State,
    StateFilter,
    StatesGroup,
    StorageKey,
    any_state,
    default_state,
)
from tgfast.fsm.storage.memory import MemoryStorageRecord
from tgfast.fsm.strategy import apply_strategy
from tgfast.types import Message, Update


class Form(StatesGroup):
    name = State()
    age = State()

    class Address(StatesGroup):
        city = State()
        zip = State("postcode")


class Other(StatesGroup):
    step = State()


# -- State and StatesGroup ------------------------------------------------------------


def test_state_strings_follow_the_group_path() -> None:
    assert Form.name.state == "Form:name"
    assert Form.Address.city.state == "Form.Address:city"
    assert Form.Address.zip.state == "Form.Address:postcode"
    assert Form.Address.__full_group_name__ == "Form.Address"
    assert Form.Address.__parent__ is Form and Form.__parent__ is None
    assert Form.name.group is Form and Form.Address.city.group is Form.Address
    assert State("loose").state == "@:loose"  # aiogram's string for a state outside a group
    with pytest.raises(RuntimeError, match="not in any StatesGroup"):
        State("loose").group  # noqa: B018


def test_states_keep_aiograms_private_parts() -> None:
    """``_state`` is the name as given, ``_group_name`` and ``_group`` as in aiogram (tests
    written for aiogram read them)."""
    alone = State("test", group_name="Test")
    assert (alone._state, alone._group_name, alone._group, alone.state) == (
        "test", "Test", None, "Test:test",
    )  # fmt: skip
    assert (Form.name._state, Form.name._group, Form.Address.zip._state) == (
        "name", Form, "postcode",
    )  # fmt: skip
    assert (State()._state, default_state.state) == (None, None)


def test_all_states_and_membership() -> None:
    assert Form.__states__ == (Form.name, Form.age)
    assert Form.__all_states__ == (Form.name, Form.age, Form.Address.city, Form.Address.zip)
    assert list(Form) == list(Form.__all_states__)
    assert Form.__children__ == (Form.Address,)
    assert Form.name in Form and Form.Address.city in Form
    assert "Form.Address:postcode" in Form and "Form:nope" not in Form
    assert Form.name not in Form.Address and Other.step not in Form
    assert Form.Address in Form and Form not in Form.Address and Form not in Form
    assert 42 not in Form


def test_state_equality_and_hash() -> None:
    assert Form.name == "Form:name" and Form.name != Form.age
    assert Form.name == State("name", group_name="Form")
    assert {Form.name: 1}["Form:name"] == 1
    assert default_state == None  # noqa: E711 - a state compares with None on purpose
    assert repr(Form.name) == "<State 'Form:name'>" and str(Form.age) == "<State 'Form:age'>"


def test_group_mistakes_are_clear() -> None:
    assert Form()(None, "Form:name") is True  # an instance is a filter, as in aiogram
    with pytest.raises(ValueError, match="matches any state"):

        class Bad(StatesGroup):
            anything = State("*")

    shared = Other.step
    with pytest.raises(ValueError, match="already belongs to Other"):

        class Stealing(StatesGroup):
            step = shared

    with pytest.raises(ValueError, match="must not be empty"):
        State("")
    with pytest.raises(TypeError, match="str or None"):
        State(3)  # type: ignore[arg-type]


def test_state_as_a_filter() -> None:
    assert filter_params(Form.name) == ("raw_state",)
    assert Form.name(None, raw_state="Form:name") is True
    assert Form.name(None, raw_state="Form:age") is False
    assert Form.name(None) is False  # no FSM middleware: no state
    assert any_state(None, raw_state=None) and any_state(None, raw_state="x:y")
    assert default_state(None, raw_state=None) and not default_state(None, raw_state="Form:age")


def test_group_as_a_filter_through_the_hook() -> None:
    check = as_filter(Form)
    assert check.__self__.__class__ is StateFilter  # its synchronous twin, bound
    assert filter_params(Form) == ("raw_state",)
    assert check(None, raw_state="Form.Address:city") is True
    assert check(None, raw_state="Other:step") is False
    assert check(None, raw_state=None) is False
    # combinations convert the group too
    both = and_f(Form.Address, F.text == "hi")
    msg = message("hi")
    assert both.check(msg, raw_state="Form.Address:postcode") is True
    assert both.check(msg, raw_state="Form:name") is False
    assert invert_f(Form).check(msg, raw_state=None) is True


def test_as_filter_hook_is_looked_up_on_the_type() -> None:
    class Hooked:
        def __init__(self) -> None:
            self.__tgfast_filter__ = "instance attributes are not the hook"

        def __call__(self, event: object) -> bool:
            return True

    plain = Hooked()
    assert as_filter(plain) is plain

    class WithHook:
        def __tgfast_filter__(self) -> Any:
            return lambda event: "converted"

    assert as_filter(WithHook())(None) == "converted"
    assert as_filter(WithHook) is WithHook  # the class itself has no hook on its type


def test_state_filter() -> None:
    f = StateFilter(Form.name, Other, "Legacy:step")
    assert filter_params(f) == ("raw_state",)
    assert f.check(None, raw_state="Form:name") and f.check(None, raw_state="Other:step")
    assert f.check(None, raw_state="Legacy:step")
    assert not f.check(None, raw_state="Form:age") and not f.check(None, raw_state=None)
    assert StateFilter(None).check(None, raw_state=None) is True
    assert StateFilter(None).check(None, raw_state="Form:name") is False
    assert StateFilter("*").check(None, raw_state=None) is True
    assert StateFilter(any_state).check(None, raw_state="anything") is True
    assert (~StateFilter(None)).check(None, raw_state="Form:name") is True
    assert repr(f) == "StateFilter('Form:name', Other, 'Legacy:step')"
    with pytest.raises(ValueError, match="at least one state"):  # aiogram's error type
        StateFilter()
    with pytest.raises(TypeError, match="not 3"):
        StateFilter(3)  # type: ignore[arg-type]


def test_state_filter_takes_a_states_group_instance_as_its_group() -> None:
    """aiogram users pass ``MyGroup()`` as well as ``MyGroup``: both mean the group."""
    by_instance, by_class = StateFilter(Other()), StateFilter(Other)
    assert by_instance.check(None, raw_state="Other:step") is True
    assert by_instance.check(None, raw_state="Form:name") is False
    assert by_instance.check(None, raw_state=None) is False
    assert by_instance._names == by_class._names


# -- strategies -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("strategy", "chat", "user", "thread", "expected"),
    [
        (FSMStrategy.USER_IN_CHAT, -100, 7, 5, (-100, 7, None)),
        (FSMStrategy.USER_IN_CHAT, None, 7, None, (7, 7, None)),  # inline query
        (FSMStrategy.USER_IN_CHAT, -100, None, None, None),  # channel post
        (FSMStrategy.CHAT, -100, 7, 5, (-100, -100, None)),
        (FSMStrategy.CHAT, -100, None, None, (-100, -100, None)),
        (FSMStrategy.CHAT, None, 7, None, None),
        (FSMStrategy.GLOBAL_USER, -100, 7, 5, (7, 7, None)),
        (FSMStrategy.GLOBAL_USER, -100, None, None, None),
        (FSMStrategy.USER_IN_TOPIC, -100, 7, 5, (-100, 7, 5)),
        (FSMStrategy.USER_IN_TOPIC, -100, 7, None, (-100, 7, None)),
        (FSMStrategy.CHAT_TOPIC, -100, 7, 5, (-100, -100, 5)),
        (FSMStrategy.CHAT_TOPIC, None, 7, 5, None),
    ],
)
def test_strategies(
    strategy: FSMStrategy, chat: int | None, user: int | None, thread: int | None, expected: Any
) -> None:
    assert apply_strategy(strategy, chat, user, thread) == expected


def test_strategy_accepts_its_value() -> None:
    assert FSMContextMiddleware(MemoryStorage(), "chat").strategy is FSMStrategy.CHAT  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        FSMContextMiddleware(MemoryStorage(), "per_moon")  # type: ignore[arg-type]


# -- MemoryStorage and FSMContext -----------------------------------------------------


async def test_memory_storage_round_trip() -> None:
    storage = MemoryStorage()
    key, other = StorageKey(1, 2, 3), StorageKey(2, 2, 3)  # another bot, same chat/user
    assert await storage.get_state(key) is None and await storage.get_data(key) == {}
    await storage.set_state(key, "Form:name")
    assert await storage.get_state(key) == "Form:name" and await storage.get_state(other) is None
    assert await storage.update_data(key, {"a": 1}) == {"a": 1}
    assert await storage.update_data(key, {"b": [1]}) == {"a": 1, "b": [1]}
    got = await storage.get_data(key)
    got["a"] = 99  # a copy: the stored data does not change
    assert await storage.get_data(key) == {"a": 1, "b": [1]}
    await storage.set_data(key, {"c": 3})
    assert await storage.get_data(key) == {"c": 3} and await storage.get_data(other) == {}
    assert await storage.update_data(other, {}) == {} and len(storage) == 1
    await storage.clear(key)
    assert await storage.get_state(key) is None and await storage.get_data(key) == {}
    assert len(storage) == 0
    await storage.close()


async def test_memory_storage_records_are_aiogram_records() -> None:
    """``storage.storage`` maps keys to ``MemoryStorageRecord``s, as aiogram's does:
    what a test writes into a record is what the storage reads, and back."""
    storage = MemoryStorage()
    records = storage.storage
    key, other = StorageKey(1, 2, 3), StorageKey(1, 2, 4)
    record = records[key]  # a record for any key, as aiogram's defaultdict gives
    assert isinstance(record, MemoryStorageRecord)
    assert record == MemoryStorageRecord() and record.data == {} and record.state is None
    record.state, record.data = "Form:name", {"a": 1}
    assert await storage.get_state(key) == "Form:name"
    assert await storage.get_data(key) == {"a": 1} and len(storage) == 1
    record.data["b"] = 2  # the stored dict itself, as in aiogram
    assert await storage.update_data(key, {"c": 3}) == {"a": 1, "b": 2, "c": 3}
    assert records[key] == MemoryStorageRecord(data={"a": 1, "b": 2, "c": 3}, state="Form:name")
    assert repr(records[key]) == repr(MemoryStorageRecord({"a": 1, "b": 2, "c": 3}, "Form:name"))
    assert records.get(other) is None and other not in records and list(records) == [key]
    records[other] = MemoryStorageRecord(state="Form:age")
    assert await storage.get_state(other) == "Form:age" and len(records) == 2
    await storage.set_state(other, None)  # no state, no data: the record is gone
    assert other not in records and len(storage) == 1
    record.state = None
    assert await storage.get_state(key) is None and len(storage) == 1  # the data stays
    del records[key]
    assert await storage.get_data(key) == {} and dict(records) == {} and len(storage) == 0
    with pytest.raises(KeyError):
        del records[key]
    with pytest.raises(TypeError):
        record.data = [1]  # type: ignore[assignment]


async def test_fsm_context() -> None:
    storage = MemoryStorage()
    context = FSMContext(storage, StorageKey(1, 2, 3))
    await context.set_state(Form.name)
    assert await context.get_state() == "Form:name"
    await context.set_state("Other:step")
    assert await context.get_state() == Other.step
    assert await context.update_data({"a": 1}, b=2) == {"a": 1, "b": 2}
    assert await context.update_data(c=3) == {"a": 1, "b": 2, "c": 3}
    assert await context.update_data({"a": 0}) == {"a": 0, "b": 2, "c": 3}
    assert await context.update_data() == {"a": 0, "b": 2, "c": 3}
    # aiogram's own middlewares pass the mapping by keyword
    assert await context.update_data(data={"d": 4}) == {"a": 0, "b": 2, "c": 3, "d": 4}
    await context.set_data({"x": 1})
    assert await context.get_data() == {"x": 1}
    await context.set_state(None)
    assert await context.get_state() is None and await context.get_data() == {"x": 1}
    await context.set_state(Form.age)
    await context.clear()
    assert await context.get_state() is None and await context.get_data() == {}
    with pytest.raises(ValueError, match="cannot be set"):
        await context.set_state(any_state)
    with pytest.raises(TypeError, match="not int"):
        await context.set_state(5)  # type: ignore[arg-type]


# -- the middleware in a dispatcher ---------------------------------------------------


def message(text: str, chat: dict[str, Any] | None = None, **extra: Any) -> Message:
    return tgfast.convert(Message, _message(text, chat, **extra))


def _message(text: str, chat: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "message_id": 1, "date": 1, "text": text,
        "chat": chat or {"id": 7, "type": "private"},
        "from": {"id": 7, "is_bot": False, "first_name": "Ann"}, **extra,
    }  # fmt: skip


def update(**fields: Any) -> Update:
    return tgfast.decode_update(orjson.dumps({"update_id": 1, **fields}))


# the conftest `bot` never connects here: these tests only dispatch
OFFLINE_BOT = True


def form_dispatcher(storage: MemoryStorage, **kwargs: Any) -> Dispatcher:
    dp = Dispatcher()
    dp.update.outer_middleware(FSMContextMiddleware(storage, **kwargs))
    router = Router()
    dp.include_router(router)

    @router.message(Command("form"))
    async def start(msg: Message, state: FSMContext) -> str:
        await state.set_state(Form.name)
        return "asked name"

    @router.message(Form.name)
    async def got_name(msg: Message, state: FSMContext) -> str:
        await state.update_data(name=msg.text)
        await state.set_state(Form.age)
        return "asked age"

    @router.message(Form.age, F.text.regexp(r"^\d+$"))
    async def got_age(msg: Message, state: FSMContext) -> dict[str, Any]:
        data = await state.update_data(age=int(msg.text or 0))
        await state.clear()
        return data

    @router.message(Form.age)
    async def bad_age(msg: Message) -> str:
        return "age must be a number"

    @router.message(StateFilter(None))
    async def idle(msg: Message, raw_state: str | None) -> str:
        return f"idle {raw_state}"

    @router.callback_query(Form)
    async def button(query: Any, raw_state: str) -> str:
        return f"button in {raw_state}"

    return dp


async def test_conversation_through_the_dispatcher(bot: Bot) -> None:
    storage = MemoryStorage()
    dp = form_dispatcher(storage)
    feed = dp.feed_update
    assert await feed(bot, update(message=_message("hello"))) == "idle None"
    assert await feed(bot, update(message=_message("/form"))) == "asked name"
    assert await storage.get_state(StorageKey(42, 7, 7)) == "Form:name"
    assert await feed(bot, update(message=_message("Ann"))) == "asked age"
    assert await feed(bot, update(message=_message("old"))) == "age must be a number"
    assert await feed(bot, update(message=_message("33"))) == {"name": "Ann", "age": 33}
    assert await feed(bot, update(message=_message("again"))) == "idle None"
    assert len(storage) == 0


async def test_records_are_per_bot_and_per_user(bot: Bot) -> None:
    storage = MemoryStorage()
    dp = form_dispatcher(storage)
    await dp.feed_update(bot, update(message=_message("/form")))
    ben = {**_message("Ben"), "from": {"id": 8, "is_bot": False, "first_name": "Ben"}}
    assert await dp.feed_update(bot, update(message=ben)) == "idle None"
    async with Bot("43:other-bot", rate_limiter=None) as other:
        assert await dp.feed_update(other, update(message=_message("Ann"))) == "idle None"
    assert await dp.feed_update(bot, update(message=_message("Ann"))) == "asked age"


async def test_callback_query_uses_the_chat_of_its_message(bot: Bot) -> None:
    storage = MemoryStorage()
    dp = form_dispatcher(storage)
    group = {"id": -100, "type": "supergroup", "title": "G"}
    await dp.feed_update(bot, update(message=_message("/form", group)))
    assert await storage.get_state(StorageKey(42, -100, 7)) == "Form:name"
    query = {
        "id": "q", "chat_instance": "c", "data": "x",
        "from": {"id": 7, "is_bot": False, "first_name": "Ann"},
        "message": {"message_id": 5, "date": 1, "chat": group, "text": "pick"},
    }  # fmt: skip
    assert await dp.feed_update(bot, update(callback_query=query)) == "button in Form:name"
    query["message"] = {**query["message"], "chat": {"id": 7, "type": "private"}}
    assert await dp.feed_update(bot, update(callback_query=query)) is UNHANDLED


async def test_topics_and_business_connections_key_apart(bot: Bot) -> None:
    storage = MemoryStorage()
    dp = form_dispatcher(storage, strategy=FSMStrategy.USER_IN_TOPIC)
    forum = {"id": -100, "type": "supergroup", "title": "F", "is_forum": True}
    in_topic = {"message_thread_id": 11, "is_topic_message": True}
    await dp.feed_update(bot, update(message=_message("/form", forum, **in_topic)))
    assert await storage.get_state(StorageKey(42, -100, 7, 11)) == "Form:name"
    other_topic = {"message_thread_id": 12, "is_topic_message": True}
    assert await dp.feed_update(bot, update(message=_message("x", forum, **other_topic))) == (
        "idle None"
    )
    # a reply thread outside a forum topic is not a topic
    reply_thread = {"message_thread_id": 11}
    assert await dp.feed_update(bot, update(message=_message("x", forum, **reply_thread))) == (
        "idle None"
    )
    assert await dp.feed_update(bot, update(message=_message("Ann", forum, **in_topic))) == (
        "asked age"
    )

    business = {**_message("/form"), "business_connection_id": "bc:1"}
    await dp.feed_update(bot, update(business_message=business))
    assert await storage.get_state(StorageKey(42, 7, 7, None, "bc:1")) is None  # no handler
    plain = FSMContextMiddleware(storage)
    key = plain.resolve_key(42, update(business_message=business), None, None)
    assert key is None  # the dispatcher supplies the user; without one, no record
    key = plain.resolve_key(
        42, update(business_message=business), message("x").chat, message("x").from_user
    )
    assert key == StorageKey(42, 7, 7, None, "bc:1")


async def test_no_record_without_chat_or_user(bot: Bot) -> None:
    storage = MemoryStorage()
    dp = Dispatcher()
    dp.update.outer_middleware(FSMContextMiddleware(storage))
    seen: list[dict[str, Any]] = []

    @dp.poll()
    async def on_poll(poll: Any, **data: Any) -> None:
        seen.append(data)

    @dp.channel_post()
    async def on_post(post: Message, **data: Any) -> None:
        seen.append(data)

    @dp.poll_answer()
    async def on_answer(answer: Any, state: FSMContext) -> StorageKey:
        return state.key

    poll = {"id": "p", "question": "?", "options": [], "total_voter_count": 0,
            "is_closed": False, "is_anonymous": True, "type": "regular",
            "allows_multiple_answers": False, "allows_revoting": False,
            "members_only": False}  # fmt: skip
    await dp.feed_update(bot, update(poll=poll))
    channel = {"message_id": 1, "date": 1, "chat": {"id": -5, "type": "channel"}, "text": "x"}
    await dp.feed_update(bot, update(channel_post=channel))
    for data in seen:
        assert "state" not in data and data["raw_state"] is None
        assert data["fsm_storage"] is storage

    answer = {"poll_id": "p", "option_ids": [0], "option_persistent_ids": ["a"],
              "user": {"id": 9, "is_bot": False, "first_name": "Cy"}}  # fmt: skip
    assert await dp.feed_update(bot, update(poll_answer=answer)) == StorageKey(42, 9, 9)

    chat_dp = Dispatcher()
    chat_dp.update.outer_middleware(FSMContextMiddleware(storage, FSMStrategy.CHAT))

    @chat_dp.channel_post()
    async def chat_post(post: Message, state: FSMContext) -> StorageKey:
        return state.key

    assert await chat_dp.feed_update(bot, update(channel_post=channel)) == StorageKey(42, -5, -5)


async def test_get_context_outside_a_handler() -> None:
    storage = MemoryStorage()
    middleware = FSMContextMiddleware(storage, FSMStrategy.GLOBAL_USER)
    context = middleware.get_context(42, -100, 7, destiny="quiz")
    assert context.key == StorageKey(42, 7, 7, None, None, "quiz")
    await context.set_state(Form.name)
    assert await storage.get_state(StorageKey(42, 7, 7, destiny="quiz")) == "Form:name"
    assert await storage.get_state(StorageKey(42, 7, 7)) is None
    with pytest.raises(ValueError, match="GLOBAL_USER needs"):
        middleware.get_context(42, -100, None)
