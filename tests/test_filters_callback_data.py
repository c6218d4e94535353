"""The callback data factory: fields, pack/unpack, limits, the filter."""

from __future__ import annotations

import copy
import enum
import pickle
from decimal import Decimal
from typing import Any, ClassVar, Optional
from uuid import UUID

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tgfast import TgfastError, convert
from tgfast.filters import (
    MAX_CALLBACK_DATA,
    CallbackData,
    CallbackDataError,
    CallbackDataFilter,
    F,
    filter_is_async,
    filter_params,
)
from tgfast.types import CallbackQuery


class Action(str, enum.Enum):
    VIEW = "view"
    DELETE = "del"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 10


class Page(CallbackData, prefix="page"):
    number: int
    query: str | None = None


class Item(CallbackData, prefix="it"):
    id: int
    action: Action
    level: Optional[Level] = None  # noqa: UP045 - the typing spelling works too
    flag: bool = False
    note: str | None = None


class Precise(CallbackData, prefix="p", sep="|"):
    ratio: float
    amount: Decimal
    ref: UUID
    maybe: int | None = None


class Ping(CallbackData, prefix="ping"):
    pass


def query(data: str | None) -> CallbackQuery:
    raw: dict[str, Any] = {
        "id": "1",
        "from": {"id": 1, "is_bot": False, "first_name": "A"},
        "chat_instance": "c",
    }
    if data is not None:
        raw["data"] = data
    return convert(CallbackQuery, raw)


def test_pack_and_unpack() -> None:
    assert Page(number=2).pack() == "page:2:"
    assert Page(number=-3, query="cats").pack() == "page:-3:cats"
    assert Page.unpack("page:2:") == Page(number=2)
    assert Page.unpack("page:-3:cats") == Page(number=-3, query="cats")
    item = Item(id=7, action=Action.DELETE, level=Level.HIGH, flag=True)
    assert item.pack() == "it:7:del:10:1:"
    assert Item.unpack("it:7:del:10:1:") == item
    assert Item(id=1, action="view").action is Action.VIEW  # a value is taken as its member
    assert Ping().pack() == "ping" and Ping.unpack("ping") == Ping()


def test_other_types_and_separator() -> None:
    ref = UUID("12345678-1234-5678-1234-567812345678")
    value = Precise(ratio=0.5, amount=Decimal("10.25"), ref=ref)
    packed = value.pack()
    assert packed == "p|0.5|10.25|12345678123456781234567812345678|"
    back = Precise.unpack(packed)
    assert back == value and back.ref == ref and back.maybe is None
    assert isinstance(back.amount, Decimal) and isinstance(back.ratio, float)
    assert Precise(ratio=1, amount=3, ref=ref).ratio == 1.0  # ints accepted for float/Decimal


def test_equality_hash_repr_immutability() -> None:
    a, b = Page(number=1), Page(number=1)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != Page(number=2)
    assert a != Item(id=1, action=Action.VIEW)
    assert repr(Page(number=1, query="x")) == "Page(number=1, query='x')"
    with pytest.raises(AttributeError):
        a.number = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del a.number
    assert not hasattr(a, "__dict__")
    assert pickle.loads(pickle.dumps(a)) == a
    assert copy.deepcopy(Item(id=3, action=Action.VIEW)) == Item(id=3, action=Action.VIEW)
    assert Page.__match_args__ == ("number", "query")
    match Page(number=4):
        case Page(number, query):
            assert (number, query) == (4, None)


def test_constructor_checks_values() -> None:
    with pytest.raises(TypeError, match="number"):
        Page()
    with pytest.raises(TypeError, match="number"):
        Page(number="2x")
    with pytest.raises(TypeError, match="number"):
        Page(number=True)  # a bool is not an int here
    with pytest.raises(TypeError, match="None"):
        Page(number=None)
    with pytest.raises(TypeError, match="nope"):
        Page(number=1, nope=2)
    with pytest.raises(TypeError, match="action"):
        Item(id=1, action="unknown")
    with pytest.raises(TypeError, match="flag"):
        Item(id=1, action=Action.VIEW, flag=1)
    with pytest.raises(TypeError):
        CallbackData()


INT_TEXTS = [
    "42", " 42 ", "+42", "-7", "4_2", "42.0", "42.00", "0042", "-0", "\t42\n", " +4_2 ",
    "42.", "42.5", "42.01", "0x10", "", "  ", "+", "\u0664\u0662", "1e3", "abc", "4__2", "_42",
    "42_", ".5",
]  # fmt: skip


@pytest.mark.parametrize("text", INT_TEXTS)
def test_an_int_field_takes_int_text_as_aiogram(text: str) -> None:
    """aiogram's callback data page builds ``MyCallback(foo="demo", bar="42")`` for
    ``bar: int``: pydantic takes an int written as text, and so does tgfast."""
    from aiogram.filters.callback_data import CallbackData as AiogramCallbackData

    class Theirs(AiogramCallbackData, prefix="page"):
        number: int
        query: str | None = None

    try:
        expected: int | None = Theirs(number=text).number  # type: ignore[arg-type]
    except ValueError:  # pydantic's ValidationError
        expected = None
    if expected is None:
        with pytest.raises(TypeError, match="number"):
            Page(number=text)
    else:
        page = Page(number=text)
        assert page.number == expected and type(page.number) is int
        assert page.pack() == Theirs(number=text).pack()  # type: ignore[arg-type]


def test_limit_of_64_bytes() -> None:
    assert MAX_CALLBACK_DATA == 64
    fits = Page(number=1, query="x" * 57)  # "page:1:" is 7 bytes
    assert len(fits.pack()) == 64
    with pytest.raises(CallbackDataError, match="is 65 bytes; Telegram allows at most 64"):
        Page(number=1, query="x" * 58).pack()
    with pytest.raises(CallbackDataError, match="is 65 bytes"):  # bytes, not characters
        Page(number=1, query="é" * 29).pack()


def test_separator_in_a_value() -> None:
    with pytest.raises(CallbackDataError, match="separator"):
        Page(number=1, query="a:b").pack()
    with pytest.raises(CallbackDataError, match="separator"):
        _DotSep(value=1.5).pack()  # "1.5" holds the separator "."
    assert _DotSep.unpack("d.2") == _DotSep(value=2)  # the separator splits, then float()


class _DotSep(CallbackData, prefix="d", sep="."):
    value: float


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ("pages:2:", "prefix"),
        ("item:2:", "prefix"),
        ("page:2", "1 values for 2 fields"),
        ("page:2::", "3 values for 2 fields"),
        ("page:two:", "number = 'two' is not a valid int"),
        ("page::", "number = '' is not a valid int"),
    ],
)
def test_unpack_errors(data: str, reason: str) -> None:
    with pytest.raises(CallbackDataError, match=reason) as info:
        Page.unpack(data)
    assert isinstance(info.value, TgfastError) and isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    "data", ["it:1:view:3::", "it:1:edit:::", "it:1:view::yes:", "it:x:view:::"]
)
def test_unpack_rejects_bad_values(data: str) -> None:
    with pytest.raises(CallbackDataError):
        Item.unpack(data)


def test_unpack_other_bad_input() -> None:
    with pytest.raises(CallbackDataError):
        Page.unpack(None)  # type: ignore[arg-type]
    with pytest.raises(CallbackDataError):
        Precise.unpack("p|x|1|" + "0" * 32 + "|")
    with pytest.raises(CallbackDataError):
        Precise.unpack("p|1|x|" + "0" * 32 + "|")
    with pytest.raises(CallbackDataError):
        Precise.unpack("p|1|1|not-a-uuid|")


def test_a_lone_surrogate_is_a_clear_error() -> None:
    with pytest.raises(CallbackDataError, match="not valid UTF-8"):
        Item(id=0, action=Action.VIEW, level=None, flag=False, note="\ud800").pack()


@given(
    id=st.integers(min_value=-(10**12), max_value=10**12),
    action=st.sampled_from(Action),
    level=st.none() | st.sampled_from(Level),
    flag=st.booleans(),
    note=st.none()
    | st.text(
        alphabet=st.characters(blacklist_characters=":", blacklist_categories=("Cs",)),
        max_size=20,
    ),
)
def test_round_trip(
    id: int, action: Action, level: Level | None, flag: bool, note: str | None
) -> None:
    item = Item(id=id, action=action, level=level, flag=flag, note=note)
    try:
        packed = item.pack()
    except CallbackDataError as exc:
        assert len(f"it:{id}:{action.value}:{level or ''}:1:{note}".encode()) > 64, exc
        return
    assert len(packed.encode()) <= 64
    back = Item.unpack(packed)
    if note == "":
        assert back.note is None  # the empty string is how None is written
        assert back == Item(id=id, action=action, level=level, flag=flag)
    else:
        assert back == item
    assert back.pack() == packed


@given(st.text(max_size=70))
def test_str_fields_round_trip_or_refuse(text: str) -> None:
    page = Page(number=0, query=text)
    if ":" in text:
        with pytest.raises(CallbackDataError, match="separator"):
            page.pack()
    elif len(f"page:0:{text}".encode()) > 64:
        with pytest.raises(CallbackDataError, match="bytes"):
            page.pack()
    else:
        back = Page.unpack(page.pack())
        assert back.query == (text or None)


def test_class_definition_errors() -> None:
    with pytest.raises(TypeError, match="prefix"):

        class NoPrefix(CallbackData):
            x: int

    with pytest.raises(TypeError, match="separator"):

        class BadPrefix(CallbackData, prefix="a:b"):
            x: int

    with pytest.raises(TypeError, match="cannot be callback data"):

        class BadType(CallbackData, prefix="b"):
            x: list[int]

    with pytest.raises(TypeError, match="cannot be callback data"):

        class BadUnion(CallbackData, prefix="b"):
            x: int | str

    with pytest.raises(TypeError, match="name"):

        class BadName(CallbackData, prefix="b"):
            pack: int

    with pytest.raises(TypeError, match="x"):

        class BadDefault(CallbackData, prefix="b"):
            x: int = "zero"  # type: ignore[assignment]

    class Floaty(enum.Enum):
        A = 1.5

    with pytest.raises(TypeError, match="str or int values"):

        class BadEnum(CallbackData, prefix="b"):
            x: Floaty

    with pytest.raises(TypeError, match="resolve"):

        class Unresolvable(CallbackData, prefix="b"):
            x: NoSuchType  # type: ignore[name-defined]  # noqa: F821


def test_local_classes_classvars_and_inheritance() -> None:
    class Color(enum.Enum):  # local: resolved from the defining frame
        RED = "r"
        BLUE = "b"

    class Paint(CallbackData, prefix="paint"):
        color: Color
        kind: ClassVar[str] = "not a field"

    class Bucket(Paint, prefix="bucket"):
        litres: int = 1

    assert Paint.__fields__.keys() == {"color"}
    assert Paint.kind == "not a field"
    assert Paint(color=Color.BLUE).pack() == "paint:b"
    bucket = Bucket(color=Color.RED, litres=5)
    assert bucket.pack() == "bucket:r:5"
    assert Bucket.unpack("bucket:r:5") == bucket
    with pytest.raises(CallbackDataError):
        Paint.unpack("bucket:r:5")


def test_filter_on_callback_queries() -> None:
    f = Page.filter()
    assert isinstance(f, CallbackDataFilter)
    assert f.check(query("page:3:")) == {"callback_data": Page(number=3)}
    assert f.check(query("pages:3:")) is False
    assert f.check(query("page:x:")) is False  # bad value: no match, no exception
    assert f.check(query("page:1:2:3")) is False
    assert f.check(query("other")) is False
    assert f.check(query(None)) is False
    assert Ping.filter().check(query("ping")) == {"callback_data": Ping()}
    assert Ping.filter().check(query("pingpong")) is False
    assert filter_params(f) == () and filter_is_async(f) is False
    assert repr(Page.filter(F.number > 1)) == "Page.filter(F.number > 1)"


def test_filter_rules() -> None:
    big = Page.filter(F.number > 1)
    assert big.check(query("page:2:")) == {"callback_data": Page(number=2)}
    assert big.check(query("page:1:")) is False
    injected = Page.filter(F.query.as_("q"))
    assert injected.check(query("page:1:cats")) == {
        "callback_data": Page(number=1, query="cats"),
        "q": "cats",
    }
    assert injected.check(query("page:1:")) is False
    plain = Page.filter(lambda page: page.number % 2 == 0)
    assert plain.check(query("page:4:")) == {"callback_data": Page(number=4)}
    assert plain.check(query("page:5:")) is False

    async def async_rule(page: Page) -> bool:
        return True

    with pytest.raises(TypeError, match="synchronous"):
        Page.filter(async_rule)
