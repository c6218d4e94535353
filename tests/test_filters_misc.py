"""Content, chat-type, text and exception filters, and the filter protocol itself:
``Filter``, ``and_f``/``or_f``/``invert_f``, ``filter_params``, ``filter_is_async``."""

from __future__ import annotations

import functools
import re
from typing import Any

import pytest

from tgfast import TelegramBadRequest, TgfastError, convert
from tgfast.filters import (
    ANY,
    UNKNOWN,
    ChatTypeFilter,
    ContentTypeFilter,
    ExceptionMessageFilter,
    ExceptionTypeFilter,
    F,
    Filter,
    TextFilter,
    and_f,
    as_filter,
    content_type_of,
    filter_is_async,
    filter_params,
    invert_f,
    or_f,
    passes,
)
from tgfast.types import CallbackQuery, ChatMemberUpdated, InlineQuery, Message
from tgfast.types.enums import ChatType, ContentType

USER = {"id": 5, "is_bot": False, "first_name": "Ann"}
PRIVATE = {"id": 5, "type": "private", "first_name": "Ann"}
GROUP = {"id": -100, "type": "supergroup", "title": "G"}
SIZE = {"file_id": "f", "file_unique_id": "u", "width": 1, "height": 1}
DOC = {"file_id": "d", "file_unique_id": "du"}


def message(chat: dict[str, Any] = PRIVATE, **fields: Any) -> Message:
    return convert(Message, {"message_id": 1, "date": 1, "chat": chat, "from": USER, **fields})


# -- content types ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"text": "hi"}, ContentType.TEXT),
        ({"photo": [SIZE], "caption": "c"}, ContentType.PHOTO),
        ({"document": DOC}, ContentType.DOCUMENT),
        # Telegram fills document for an animation too: the animation wins
        (
            {"animation": {**DOC, "width": 1, "height": 1, "duration": 1}, "document": DOC},
            ContentType.ANIMATION,
        ),
        (
            {
                "venue": {
                    "location": {"latitude": 1, "longitude": 2},
                    "title": "t",
                    "address": "a",
                },
                "location": {"latitude": 1, "longitude": 2},
            },
            ContentType.VENUE,
        ),
        ({"new_chat_members": [USER]}, ContentType.NEW_CHAT_MEMBERS),
        ({"delete_chat_photo": True}, ContentType.DELETE_CHAT_PHOTO),
        ({"dice": {"emoji": "🎲", "value": 3}}, ContentType.DICE),
        ({}, UNKNOWN),
    ],
)
def test_content_type_of(fields: dict[str, Any], expected: ContentType) -> None:
    assert content_type_of(message(**fields)) == expected
    assert content_type_of(message(**fields)) == expected.value  # a str enum


def test_content_type_of_unknown_and_other_objects() -> None:
    assert UNKNOWN == "unknown" and ANY == "any"
    future = convert(Message, {"message_id": 1, "date": 1, "chat": PRIVATE, "hologram": {"x": 1}})
    assert content_type_of(future) is UNKNOWN
    assert content_type_of(object()) is UNKNOWN


def test_content_type_filter() -> None:
    photo = message(photo=[SIZE])
    text = message(text="hi")
    f = ContentTypeFilter(ContentType.PHOTO, "document")
    assert f.check(photo) is True and f.check(text) is False
    assert f.check(message(document=DOC)) is True
    assert ContentTypeFilter("any").check(text) is True
    assert ContentTypeFilter(ANY).check(message()) is True
    assert ContentTypeFilter("unknown").check(message()) is True
    assert f.content_types == {"photo", "document"}
    with pytest.raises(ValueError, match="photos"):
        ContentTypeFilter("photos")
    with pytest.raises(TypeError):
        ContentTypeFilter()
    with pytest.raises(TypeError):
        ContentTypeFilter(1)  # type: ignore[arg-type]


# -- chat types ------------------------------------------------------------------------


def test_chat_type_filter() -> None:
    private_only = ChatTypeFilter(ChatType.PRIVATE)
    groups = ChatTypeFilter("group", "supergroup")
    assert private_only.check(message()) is True and groups.check(message()) is False
    assert groups.check(message(chat=GROUP)) is True
    query = convert(
        CallbackQuery,
        {
            "id": "1",
            "from": USER,
            "chat_instance": "c",
            "message": {"message_id": 1, "date": 1, "chat": GROUP, "text": "x"},
        },
    )
    assert groups.check(query) is True and private_only.check(query) is False
    inline = convert(
        InlineQuery, {"id": "1", "from": USER, "query": "", "offset": "", "chat_type": "sender"}
    )
    assert ChatTypeFilter("sender").check(inline) is True and private_only.check(inline) is False
    member = {"user": USER, "status": "member"}
    updated = convert(
        ChatMemberUpdated,
        {
            "chat": GROUP,
            "from": USER,
            "date": 1,
            "old_chat_member": member,
            "new_chat_member": member,
        },
    )
    assert groups.check(updated) is True
    inline_query_no_chat = convert(CallbackQuery, {"id": "1", "from": USER, "chat_instance": "c"})
    assert groups.check(inline_query_no_chat) is False
    with pytest.raises(TypeError):
        ChatTypeFilter()


# -- text ------------------------------------------------------------------------------


def test_text_filter_modes() -> None:
    hello = message(text="Hello World")
    assert TextFilter(equals="Hello World").check(hello) is True
    assert TextFilter(equals=["hi", "Hello World"]).check(hello) is True
    assert TextFilter(equals="hello world").check(hello) is False
    assert TextFilter(equals="hello world", ignore_case=True).check(hello) is True
    assert TextFilter(startswith="Hell").check(hello) is True
    assert TextFilter(startswith=("x", "HELL"), ignore_case=True).check(hello) is True
    assert TextFilter(endswith="World").check(hello) is True
    assert TextFilter(endswith="world").check(hello) is False
    assert TextFilter(contains="o W").check(hello) is True
    assert TextFilter(contains=["zz", "lo"]).check(hello) is True
    assert TextFilter(contains="zz").check(hello) is False
    assert TextFilter(startswith="Hello", endswith="!").check(hello) is False  # all must hold


def test_text_filter_regexp_injects_the_match() -> None:
    result = TextFilter(regexp=r"(\w+) (\w+)").check(message(text="Hello World"))
    assert isinstance(result, dict) and result["match"].group(2) == "World"
    assert TextFilter(regexp=r"^world").check(message(text="Hello World")) is False
    folded = TextFilter(regexp=re.compile("WORLD"), ignore_case=True).check(
        message(text="Hello World")
    )
    assert isinstance(folded, dict) and folded["match"].group(0) == "World"


def test_text_filter_sources() -> None:
    f = TextFilter(equals="go")
    assert f.check(message(photo=[SIZE], caption="go")) is True
    assert f.check(message(photo=[SIZE])) is False  # no text at all
    query = convert(CallbackQuery, {"id": "1", "from": USER, "chat_instance": "c", "data": "go"})
    assert f.check(query) is True
    inline = convert(InlineQuery, {"id": "1", "from": USER, "query": "go", "offset": ""})
    assert f.check(inline) is True
    with pytest.raises(TypeError):
        TextFilter()
    with pytest.raises(TypeError):
        TextFilter(equals=[1])  # type: ignore[list-item]
    assert (
        repr(TextFilter(equals="a", ignore_case=True))
        == "TextFilter(equals=('a',), ignore_case=True)"
    )


# -- exceptions ------------------------------------------------------------------------


class ErrorEvent:
    """The shape of the dispatcher's ErrorEvent, as the filters see it."""

    __slots__ = ("exception", "update")

    def __init__(self, exception: BaseException) -> None:
        self.update = None
        self.exception = exception


def test_exception_type_filter() -> None:
    bad_request = ErrorEvent(TelegramBadRequest("sendMessage", 400, "Bad Request: chat not found"))
    f = ExceptionTypeFilter(TgfastError, KeyError)
    assert f.check(bad_request) is True
    assert f.check(ErrorEvent(KeyError("k"))) is True
    assert f.check(ErrorEvent(ValueError("v"))) is False
    assert f.check(object()) is False
    assert repr(f) == "ExceptionTypeFilter(TgfastError, KeyError)"
    with pytest.raises(ValueError):  # aiogram's error type
        ExceptionTypeFilter()
    with pytest.raises(TypeError):
        ExceptionTypeFilter("KeyError")  # type: ignore[arg-type]


def test_exception_message_filter() -> None:
    event = ErrorEvent(TelegramBadRequest("sendMessage", 400, "Bad Request: chat not found"))
    result = ExceptionMessageFilter(r"chat (\w+) found").check(event)
    assert isinstance(result, dict) and result["match_exception"].group(1) == "not"
    assert ExceptionMessageFilter("blocked").check(event) is False
    assert isinstance(ExceptionMessageFilter(re.compile("CHAT", re.IGNORECASE)).check(event), dict)
    assert ExceptionMessageFilter("x").check(object()) is False


# -- the protocol: Filter, combinators, params -------------------------------------------


class IsEven(Filter):
    __slots__ = ()

    def __call__(self, event: int) -> bool:
        return event % 2 == 0


class AsyncPositive(Filter):
    __slots__ = ()

    async def __call__(self, event: int) -> bool:
        return event > 0


class Inject(Filter):
    __slots__ = ("data",)

    def __init__(self, **data: Any) -> None:
        self.data = data

    def __call__(self, event: Any) -> dict[str, Any]:
        return dict(self.data)


def test_filter_subclasses_know_if_they_are_async() -> None:
    assert IsEven.is_async is False and IsEven().is_async is False
    assert AsyncPositive.is_async is True
    assert filter_is_async(IsEven()) is False and filter_is_async(AsyncPositive()) is True
    with pytest.raises(TypeError):
        Filter()  # type: ignore[abstract]


def test_passes() -> None:
    assert passes({}) is True  # a dict always passes
    assert passes({"a": 1}) is True
    assert passes(True) is True and passes("x") is True
    assert passes(False) is False and passes(None) is False and passes(0) is False


def test_sync_combinations() -> None:
    both = IsEven() & (lambda n: n > 2)
    assert both.is_async is False
    assert both.check(4) is True and both.check(2) is False and both.check(3) is False
    either = IsEven() | (lambda n: n == 3)
    assert either.check(3) is True and either.check(4) is True and either.check(5) is False
    assert (~IsEven()).check(3) is True and (~IsEven()).check(4) is False
    assert invert_f(lambda n: None).check(1) is True


def test_dict_merging() -> None:
    merged = and_f(Inject(a=1, b=1), Inject(b=2), IsEven())
    assert merged.check(2) == {"a": 1, "b": 2}
    assert merged.check(3) is False
    assert and_f(Inject(), IsEven()).check(2) == {}  # an empty dict still passes
    first = or_f(IsEven(), Inject(x=1), Inject(y=2))
    assert first.check(3) == {"x": 1}
    assert first.check(2) is True
    assert invert_f(Inject(a=1)).check(0) is False


def test_and_or_stop_early() -> None:
    seen: list[int] = []

    def record(n: int) -> bool:
        seen.append(n)
        return True

    assert and_f(IsEven(), record).check(3) is False
    assert or_f(IsEven(), record).check(2) is True
    assert seen == []


async def test_async_combinations() -> None:
    async def small(n: int) -> bool:
        return n < 10

    both = IsEven() & AsyncPositive() & small
    assert both.is_async is True and filter_is_async(both) is True
    assert await both(4) is True
    assert await both(-2) is False
    assert await both(12) is False
    either = or_f(small, IsEven())
    assert await either(12) is True and await either(11) is False
    inverted = ~AsyncPositive()
    assert inverted.is_async is True
    assert await inverted(-1) is True and await inverted(1) is False

    async def tagged(n: int) -> dict[str, Any]:
        return {"tag": n}

    assert await and_f(tagged, Inject(z=0))(7) == {"tag": 7, "z": 0}
    assert await or_f(IsEven(), tagged)(7) == {"tag": 7}


def test_combinations_flatten_and_show() -> None:
    chain = IsEven() & AsyncPositive() & F.real
    assert len(chain.filters) == 3  # type: ignore[attr-defined]
    text = repr(IsEven() | F.real)
    assert text.startswith("(") and " | " in text


async def test_kwargs_forwarded_by_declared_names() -> None:
    got: dict[str, Any] = {}

    def wants_bot(event: int, bot: str) -> bool:
        got["bot"] = bot
        return True

    def wants_state(event: int, *, state: str = "none") -> bool:
        got["state"] = state
        return True

    def wants_all(event: int, **data: Any) -> bool:
        got["all"] = dict(data)
        return True

    async def wants_nothing(event: int) -> bool:
        return True

    combined = and_f(wants_bot, wants_state, wants_all, wants_nothing)
    assert filter_params(combined) is None  # one part takes **data
    await combined(1, bot="B", update="U")
    assert got == {"bot": "B", "state": "none", "all": {"bot": "B", "update": "U"}}
    narrow = and_f(wants_bot, wants_state, IsEven())
    assert filter_params(narrow) == ("bot", "state")
    assert narrow.check(2, bot="B2", state="S") is True
    assert got["bot"] == "B2" and got["state"] == "S"


def test_filter_params() -> None:
    def positional(event: Any, bot: Any, update: Any) -> bool:
        return True

    def keyword_only(event: Any, *, state: Any, raw_state: Any = None) -> bool:
        return True

    def positional_only(event: Any, /, extra: Any = None) -> bool:
        return True

    def star_args(*args: Any) -> bool:
        return True

    def nothing() -> bool:
        return True

    class Method:
        def check(self, event: Any, bot: Any) -> bool:
            return True

    assert filter_params(positional) == ("bot", "update")
    assert filter_params(keyword_only) == ("state", "raw_state")
    assert filter_params(positional_only) == ("extra",)
    assert filter_params(star_args) == ()
    assert filter_params(lambda m, **kw: True) is None
    assert filter_params(Method().check) == ("bot",)
    assert filter_params(functools.partial(positional, bot=1)) == ("bot", "update")
    assert filter_params(IsEven()) == ()
    assert filter_params(F.text) == ()
    assert filter_params(len) == ()
    with pytest.raises(TypeError, match="first positional"):
        filter_params(nothing)


def test_as_filter() -> None:
    f = IsEven()
    assert as_filter(f) is f
    assert as_filter(F.real)(3) is True
    with pytest.raises(TypeError, match="Command"):
        as_filter("start")
    with pytest.raises(TypeError):
        and_f(IsEven(), 5)
    with pytest.raises(TypeError):
        and_f()


def test_content_type_has_aiogram_unknown_and_any_members() -> None:
    """``ContentType.ANY`` / ``ContentType.UNKNOWN`` are members, as in aiogram's enum."""
    assert ContentType.ANY == "any" and ContentType("any") is ContentType.ANY
    assert ContentType.UNKNOWN == "unknown" and ContentType("unknown") is ContentType.UNKNOWN
    anything = convert(Message, {"message_id": 1, "date": 1, "chat": {"id": 1, "type": "private"}})
    assert content_type_of(anything) is ContentType.UNKNOWN
    assert ContentTypeFilter(ContentType.ANY).check(anything) is True
    assert ContentTypeFilter(ContentType.UNKNOWN).check(anything) is True
    assert ContentTypeFilter(ContentType.TEXT).check(anything) is False
    text = convert(
        Message,
        {"message_id": 1, "date": 1, "chat": {"id": 1, "type": "private"}, "text": "hi"},
    )
    assert content_type_of(text) is ContentType.TEXT
    assert ContentTypeFilter(ContentType.UNKNOWN).check(text) is False
