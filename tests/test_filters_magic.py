"""The magic filter ``F``: chains, operators, None-safety, ``as_`` injection."""

from __future__ import annotations

import operator
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tgfast import convert
from tgfast.filters import F, Filter, MagicFilter, as_filter, filter_is_async, filter_params
from tgfast.types import CallbackQuery, Message
from tgfast.types.enums import ContentType

USER = {"id": 42, "is_bot": False, "first_name": "Ann", "username": "ann"}
CHAT = {"id": 42, "type": "private", "first_name": "Ann"}
PHOTO = [
    {"file_id": "small", "file_unique_id": "s", "width": 90, "height": 90},
    {"file_id": "big", "file_unique_id": "b", "width": 800, "height": 800},
]


def message(**fields: Any) -> Message:
    return convert(Message, {"message_id": 1, "date": 1, "chat": CHAT, "from": USER, **fields})


TEXT = message(text="Hello World")
PHOTO_MSG = message(photo=PHOTO, caption="a cat")
NO_FROM = convert(Message, {"message_id": 2, "date": 1, "chat": CHAT, "text": "anon"})


class Obj:
    """A plain object for property tests on comparisons."""

    def __init__(self, **values: Any) -> None:
        self.__dict__.update(values)


def test_f_alone_is_the_event() -> None:
    assert F.check(TEXT) is True
    assert F.resolve(TEXT) is TEXT
    assert F.check(None) is False
    assert repr(F) == "F"


def test_attribute_chains() -> None:
    assert F.text.resolve(TEXT) == "Hello World"
    assert F.from_user.id.resolve(TEXT) == 42
    assert F.photo[-1].file_id.resolve(PHOTO_MSG) == "big"
    assert F.photo[0].width.resolve(PHOTO_MSG) == 90
    assert F.text.check(TEXT) is True
    assert F.text.check(PHOTO_MSG) is False
    assert F.photo.check(PHOTO_MSG) is True


def test_missing_links_resolve_to_none_without_raising() -> None:
    assert F.from_user.id.resolve(NO_FROM) is None
    assert F.reply_to_message.from_user.username.lower().resolve(TEXT) is None
    assert F.no_such_field.deeper.resolve(TEXT) is None
    assert F.photo[-1].file_id.resolve(TEXT) is None  # photo is None
    assert F.text[100].resolve(TEXT) is None  # IndexError
    assert F.text["key"].resolve(TEXT) is None  # TypeError
    assert (F.from_user.id == 42).check(NO_FROM) is False
    assert (F.from_user.id > 1).check(NO_FROM) is False
    assert F.from_user.username.startswith("a").check(NO_FROM) is False
    assert F.text.len().resolve(PHOTO_MSG) is None


def test_comparisons() -> None:
    assert (F.text == "Hello World").check(TEXT) is True
    assert (F.text == "hello").check(TEXT) is False
    assert (F.text != "hello").check(TEXT) is True
    assert (F.text != "Hello World").check(TEXT) is False
    assert (F.text != "x").check(PHOTO_MSG) is True  # None is not "x"
    assert (F.text == None).check(PHOTO_MSG) is True  # noqa: E711
    assert (F.from_user.id < 43).check(TEXT) is True
    assert (F.from_user.id <= 42).check(TEXT) is True
    assert (F.from_user.id > 42).check(TEXT) is False
    assert (F.from_user.id >= 42).check(TEXT) is True
    assert (F.text > 5).check(TEXT) is False  # str > int: no match, no TypeError
    assert ("Hello World" == F.text).check(TEXT) is True  # reflected
    assert (43 > F.from_user.id).check(TEXT) is True


def test_comparison_with_another_magic_filter() -> None:
    same = message(text="ann")
    assert (F.text == F.from_user.username).check(same) is True
    assert (F.text == F.from_user.username).check(TEXT) is False
    assert (F.text != F.from_user.username).check(TEXT) is True
    assert (F.from_user.id >= F.chat.id).check(TEXT) is True


@pytest.mark.parametrize(
    ("make", "op"),
    [
        (operator.eq, operator.eq),
        (operator.ne, operator.ne),
        (operator.lt, operator.lt),
        (operator.le, operator.le),
        (operator.gt, operator.gt),
        (operator.ge, operator.ge),
    ],
)
@given(a=st.integers() | st.floats(allow_nan=False), b=st.integers())
def test_comparisons_agree_with_python(make: Any, op: Any, a: Any, b: int) -> None:
    assert make(F.value, b).check(Obj(value=a)) is op(a, b)


@given(st.text(), st.text(max_size=3))
def test_string_tests_agree_with_python(text: str, part: str) -> None:
    obj = Obj(value=text)
    assert F.value.startswith(part).check(obj) is text.startswith(part)
    assert F.value.endswith(part).check(obj) is text.endswith(part)
    assert F.value.contains(part).check(obj) is (part in text)
    assert F.value.in_([part, "zz"]).check(obj) is (text in (part, "zz"))
    assert F.value.not_in([part, "zz"]).check(obj) is (text not in (part, "zz"))
    assert F.value.len().resolve(obj) == len(text)
    assert (F.value.lower() == text.lower()).check(obj) is True


def test_membership() -> None:
    assert F.from_user.id.in_([1, 42]).check(TEXT) is True
    assert F.from_user.id.in_({1, 2}).check(TEXT) is False
    assert F.from_user.id.in_(range(40, 50)).check(TEXT) is True
    assert F.from_user.id.not_in((1, 2)).check(TEXT) is True
    assert F.from_user.id.not_in([42]).check(TEXT) is False
    assert F.text.in_("xx Hello World yy").check(TEXT) is True  # substring of a str
    assert F.photo.in_([[1]]).check(PHOTO_MSG) is False  # an unhashable member: scanned
    assert F.text.in_([["unhashable"], "Hello World"]).check(TEXT) is True
    assert F.text.in_(x for x in ["Hello World"]).check(TEXT) is True  # consumed once
    assert F.text.in_(F.entities).check(TEXT) is False  # None container
    assert F.from_user.first_name.in_(F.chat.first_name).check(TEXT) is True
    assert F.text.contains("World").check(TEXT) is True
    assert F.photo.contains(5).check(PHOTO_MSG) is False
    assert F.from_user.id.contains(4).check(TEXT) is False  # int has no 'in': no match
    assert F.text.contains("x").check(PHOTO_MSG) is False


def test_mutable_containers_are_kept_by_reference() -> None:
    admins: list[int] = []
    allowed: set[int] = set()
    names: dict[str, int] = {}
    by_list, by_set = F.from_user.id.in_(admins), F.from_user.id.in_(allowed)
    by_dict, outside = F.text.in_(names), F.from_user.id.not_in(admins)
    assert not by_list.check(TEXT) and not by_set.check(TEXT) and not by_dict.check(TEXT)
    assert outside.check(TEXT)
    admins.append(42)
    allowed.add(42)
    names["Hello World"] = 1
    assert by_list.check(TEXT) and by_set.check(TEXT) and by_dict.check(TEXT)
    assert not outside.check(TEXT)
    admins.clear()
    assert not by_list.check(TEXT) and outside.check(TEXT)


def test_startswith_endswith_accept_tuples() -> None:
    assert F.text.startswith(("Bye", "Hello")).check(TEXT) is True
    assert F.text.endswith(("World", "x")).check(TEXT) is True
    assert F.text.startswith("World").check(TEXT) is False
    assert F.from_user.id.startswith("4").check(TEXT) is False  # not a str


def test_regexp() -> None:
    cb = convert(CallbackQuery, {"id": "1", "from": USER, "chat_instance": "c", "data": "page:17"})
    match = F.data.regexp(r"page:(\d+)").resolve(cb)
    assert isinstance(match, re.Match) and match.group(1) == "17"
    assert F.data.regexp(r"page:(\d+)").group(1).resolve(cb) == "17"
    assert (F.data.regexp(r"page:(\d+)").group(1).cast(int) > 10).check(cb) is True
    assert F.data.regexp(r"age").check(cb) is True  # search
    assert F.data.regexp(r"age", mode="match").check(cb) is False
    assert F.data.regexp(r"page:\d+", mode="fullmatch").check(cb) is True
    assert F.data.regexp(r"PAGE", flags=re.IGNORECASE).check(cb) is True
    assert F.data.regexp(re.compile("PAGE"), flags=re.IGNORECASE).check(cb) is True
    assert F.data.regexp(r"x(\d)").group(1).resolve(cb) is None  # no match: no group
    assert F.text.regexp(r".").check(PHOTO_MSG) is False
    with pytest.raises(ValueError, match="mode"):
        F.text.regexp("x", mode="findall")


def test_method_calls_on_values() -> None:
    assert (F.text.lower() == "hello world").check(TEXT) is True
    assert (F.text.split()[1] == "World").check(TEXT) is True
    assert (F.text.replace("World", "there") == "Hello there").check(TEXT) is True
    assert F.text.split(maxsplit=1).resolve(TEXT) == ["Hello", "World"]
    assert (F.text.lower() == "x").check(PHOTO_MSG) is False


def test_func_cast_is() -> None:
    assert F.text.func(str.isupper).check(TEXT) is False
    assert F.text.func(str.istitle).check(TEXT) is True
    assert F.text.func(lambda t, n: len(t) > n, 3).check(TEXT) is True
    calls: list[Any] = []
    assert F.text.func(calls.append).check(PHOTO_MSG) is False
    assert calls == []  # not called on None
    assert F.text.cast(int).resolve(TEXT) is None
    assert F.text.cast(int).resolve(message(text="12")) == 12
    assert F.reply_to_message.is_(None).check(TEXT) is True
    assert F.reply_to_message.is_not(None).check(TEXT) is False
    assert F.text.is_not(None).check(TEXT) is True
    with pytest.raises(ZeroDivisionError):  # errors of the user's own function surface
        F.text.func(lambda t: 1 / 0).check(TEXT)


def test_len() -> None:
    assert (F.text.len() == 11).check(TEXT) is True
    assert (F.photo.len() > 1).check(PHOTO_MSG) is True
    assert F.from_user.id.len().resolve(TEXT) is None


def test_logic() -> None:
    assert ((F.text == "Hello World") & (F.from_user.id == 42)).check(TEXT) is True
    assert ((F.text == "Hello World") & (F.from_user.id == 1)).check(TEXT) is False
    assert ((F.text == "nope") | F.photo).check(PHOTO_MSG) is True
    assert ((F.text == "nope") | F.photo).check(TEXT) is False
    assert (~F.text).check(PHOTO_MSG) is True
    assert (~F.text).check(TEXT) is False
    assert (~(F.text.startswith("Hello") & F.photo)).check(TEXT) is True
    assert (F.text | F.caption).resolve(PHOTO_MSG) == "a cat"
    assert (F.text | F.caption).resolve(TEXT) == "Hello World"


def test_and_stops_at_the_first_miss() -> None:
    seen: list[Any] = []
    f = F.photo & F.text.func(seen.append)
    assert f.check(TEXT) is False
    assert seen == []


def test_as_injects_truthy_values_only() -> None:
    assert F.from_user.id.as_("uid").check(TEXT) == {"uid": 42}
    assert F.photo[-1].as_("photo").check(PHOTO_MSG)["photo"].file_id == "big"
    assert F.photo[-1].as_("photo").check(TEXT) is False
    assert (F.text | F.caption).as_("body").check(PHOTO_MSG) == {"body": "a cat"}
    match = F.text.regexp(r"(\w+) (\w+)").as_("m").check(TEXT)
    assert isinstance(match, dict) and match["m"].group(2) == "World"
    merged = F.text.as_("t") & F.from_user.id.as_("uid")
    assert merged.check(TEXT) == {"t": "Hello World", "uid": 42}
    assert (F.text.as_("t") & F.from_user.id).check(TEXT) == {"t": "Hello World"}
    assert (F.text & F.from_user.id.as_("uid")).check(TEXT) == {"uid": 42}
    assert (F.text.as_("t") & F.photo).check(TEXT) is False
    assert (~F.text.as_("t")).check(TEXT) is False
    assert F.text.as_("t").resolve(TEXT) == {"t": "Hello World"}
    with pytest.raises(ValueError):
        F.text.as_("not a name")


def test_check_returns_bool_or_a_fresh_dict() -> None:
    assert F.from_user.username.check(TEXT) is True
    assert F.from_user.id.check(TEXT) is True
    first = F.text.as_("t").check(TEXT)
    assert isinstance(first, dict)
    first["t"] = "changed"
    assert F.text.as_("t").check(TEXT) == {"t": "Hello World"}


def test_content_type() -> None:
    assert (F.content_type == ContentType.PHOTO).check(PHOTO_MSG) is True
    assert (F.content_type == "text").check(TEXT) is True
    assert F.content_type.in_({ContentType.TEXT, ContentType.STICKER}).check(PHOTO_MSG) is False
    assert F.reply_to_message.content_type.resolve(TEXT) is None


def test_expressions_are_immutable_and_reusable() -> None:
    base = F.from_user
    by_id = base.id == 42
    by_name = base.username == "ann"
    assert repr(base) == "F.from_user"
    assert by_id.check(TEXT) and by_name.check(TEXT)
    assert by_id.check(NO_FROM) is False
    assert hash(by_id) == hash(by_id)  # usable as a dict key


def test_repr_shows_the_expression() -> None:
    assert repr(F.text == "x") == "F.text == 'x'"
    assert repr(F.photo[-1].file_id) == "F.photo[-1].file_id"
    assert repr(F.text.lower()) == "F.text.lower()"
    assert repr((F.a == 1) & ~F.b) == "(F.a == 1) & ~F.b"
    assert repr(F.data.regexp(r"\d").as_("m")) == "F.data.regexp('\\\\d').as_('m')"


def test_misuse_is_loud() -> None:
    with pytest.raises(TypeError, match="contains"):
        "x" in F.text  # noqa: B015
    with pytest.raises(TypeError):
        list(F.text)
    with pytest.raises(AttributeError):
        F._private  # noqa: B018
    with pytest.raises(AttributeError):
        F.text.__wrapped__  # noqa: B018
    with pytest.raises(TypeError, match="as_filter"):
        F.text(TEXT)  # a dispatcher that forgot as_filter: loud, not always-true
    with pytest.raises(TypeError, match="as_filter"):
        F.text(TEXT, bot=None)


def test_magic_filters_in_the_filter_protocol() -> None:
    f = F.text == "Hello World"
    check = as_filter(f)
    assert check(TEXT) is True
    assert filter_params(f) == ()
    assert filter_is_async(f) is False
    assert isinstance(f, MagicFilter) and not isinstance(f, Filter)


async def test_magic_combined_with_other_filters() -> None:
    def has_bot(message: Message, bot: str) -> dict[str, Any]:
        return {"seen_bot": bot}

    async def is_anna(message: Message) -> bool:
        return message.from_user is not None and message.from_user.id == 42

    combined = F.text.as_("t") & has_bot
    assert isinstance(combined, Filter) and filter_params(combined) == ("bot",)
    assert combined.check(TEXT, bot="b") == {"t": "Hello World", "seen_bot": "b"}
    reflected = has_bot & F.photo
    assert reflected.check(TEXT, bot="b") is False
    mixed = is_anna | F.photo
    assert mixed.is_async
    assert await mixed(TEXT) is True
    assert await mixed(NO_FROM) is False
    with pytest.raises(TypeError):
        F.text & 5  # type: ignore[operator]


def test_arithmetic_filters_as_aiogram_users_write_them() -> None:
    """``F.from_user.id % 2 == 0``: arithmetic on the value, then a test on the result."""
    assert (F.from_user.id % 2 == 0).check(TEXT) is True  # 42
    assert (F.from_user.id % 5 == 0).check(TEXT) is False
    assert (F.from_user.id + 1).resolve(TEXT) == 43
    assert (1 + F.from_user.id).resolve(TEXT) == 43
    assert (F.from_user.id - 2).resolve(TEXT) == 40
    assert (100 - F.from_user.id).resolve(TEXT) == 58
    assert (F.from_user.id * 2).resolve(TEXT) == 84
    assert (2 * F.from_user.id).resolve(TEXT) == 84
    assert (F.from_user.id / 4).resolve(TEXT) == 10.5
    assert (84 / F.from_user.id).resolve(TEXT) == 2
    assert (F.from_user.id // 4).resolve(TEXT) == 10
    assert (85 // F.from_user.id).resolve(TEXT) == 2
    assert (50 % F.from_user.id).resolve(TEXT) == 8
    assert (F.from_user.id**2).resolve(TEXT) == 1764
    assert (2**F.message_id).resolve(TEXT) == 2
    assert (-F.from_user.id).resolve(TEXT) == -42
    assert (F.from_user.id + F.message_id).resolve(TEXT) == 43
    assert repr(F.from_user.id % 2 == 0) == "(F.from_user.id % 2) == 0"


def test_arithmetic_on_a_missing_or_wrong_value_does_not_pass() -> None:
    assert (F.from_user.id % 2 == 0).check(NO_FROM) is False  # no from_user
    assert (F.from_user.id % 2).resolve(NO_FROM) is None
    assert (F.from_user.id / 0).resolve(TEXT) is None  # ZeroDivisionError
    assert (F.text - 1).resolve(TEXT) is None  # TypeError
    assert (-F.text).resolve(TEXT) is None
    assert (F.text + "!").resolve(TEXT) == "Hello World!"
