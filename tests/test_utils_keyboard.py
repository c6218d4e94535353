"""Keyboard builders: the same operations on aiogram's builders and on tgfast's give the
same markup, and the same mistakes raise on both."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import aiogram.filters.callback_data as a_cb
import aiogram.types as a_types
import aiogram.utils.keyboard as a_kb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tgfast.filters.callback_data as t_cb
import tgfast.types as t_types
import tgfast.utils.keyboard as t_kb
from tgfast import Bot
from tgfast.testing import FakeTelegram


class AiogramPage(a_cb.CallbackData, prefix="page"):
    number: int
    tag: str = "x"


class TgfastPage(t_cb.CallbackData, prefix="page"):
    number: int
    tag: str = "x"


@dataclass(eq=False)
class Side:
    """One framework: its builders, button types and callback data class."""

    kb: Any
    types: Any
    page: Any

    def builder(self, kind: str, markup: Any = None) -> Any:
        cls = self.kb.InlineKeyboardBuilder if kind == "inline" else self.kb.ReplyKeyboardBuilder
        return cls(markup=markup) if markup is not None else cls()

    def button(self, kind: str, text: str, **kwargs: Any) -> Any:
        if kind == "inline":
            return self.types.InlineKeyboardButton(text=text, callback_data=text, **kwargs)
        return self.types.KeyboardButton(text=text, **kwargs)

    def dump(self, markup: Any) -> dict[str, Any]:
        if self is AIOGRAM:
            result: dict[str, Any] = markup.model_dump(exclude_none=True)
            return result
        return markup.to_dict()  # type: ignore[no-any-return]


AIOGRAM = Side(a_kb, a_types, AiogramPage)
TGFAST = Side(t_kb, t_types, TgfastPage)
Ops = Callable[[Side, str], Any]


def same(ops: Ops, kind: str = "inline") -> dict[str, Any]:
    """Run ``ops`` on both sides; the markups must match (returned for more checks)."""
    ours, theirs = TGFAST.dump(ops(TGFAST, kind)), AIOGRAM.dump(ops(AIOGRAM, kind))
    assert ours == theirs
    return ours


def both_raise(ops: Ops, kind: str = "inline") -> str:
    with pytest.raises(ValueError):
        ops(AIOGRAM, kind)
    with pytest.raises(ValueError) as ours:
        ops(TGFAST, kind)
    return str(ours.value)


def _n_buttons(side: Side, kind: str, n: int, start: int = 0) -> Any:
    builder = side.builder(kind)
    for i in range(start, start + n):
        builder.button(text=f"b{i}", **({"callback_data": f"c{i}"} if kind == "inline" else {}))
    return builder


KINDS = ["inline", "reply"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("n", "sizes", "repeat"),
    [
        (0, (2,), False),
        (7, (), False),
        (7, (3,), False),
        (10, (1, 2, 3), False),
        (10, (1, 2, 3), True),
        (5, (3, 3, 3, 3), False),  # more sizes than rows
        (5, (4, 2, 2, 8), True),
        (30, (8,), False),
        (30, (1, 8), True),
        (25, (2, 1), False),
        (2, (2, 0), False),  # a size no row reaches is not checked (aiogram too)
    ],
)
def test_adjust_patterns(kind: str, n: int, sizes: tuple[int, ...], repeat: bool) -> None:
    def ops(side: Side, kind: str) -> Any:
        return _n_buttons(side, kind, n).adjust(*sizes, repeat=repeat).as_markup()

    dumped = same(ops, kind)
    rows = dumped["inline_keyboard" if kind == "inline" else "keyboard"]
    assert sum(len(row) for row in rows) == n


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("width", [None, 1, 3, 8])
def test_row_widths_and_add_filling(kind: str, width: int | None) -> None:
    def ops(side: Side, kind: str) -> Any:
        builder = _n_buttons(side, kind, 3)
        builder.row(*(side.button(kind, f"r{i}") for i in range(11)), width=width)
        builder.add(*(side.button(kind, f"a{i}") for i in range(13)))
        builder.row()  # no buttons: no row
        return builder.as_markup()

    same(ops, kind)


def test_reply_options_and_inline_ignores_them() -> None:
    def reply(side: Side, kind: str) -> Any:
        return _n_buttons(side, kind, 3).as_markup(
            resize_keyboard=True, one_time_keyboard=True, input_field_placeholder="Pick"
        )

    dumped = same(reply, "reply")
    assert dumped["resize_keyboard"] is True

    def inline(side: Side, kind: str) -> Any:
        return _n_buttons(side, kind, 3).as_markup(resize_keyboard=True)

    assert "resize_keyboard" not in same(inline, "inline")


@pytest.mark.parametrize("kind", KINDS)
def test_attach_copy_from_markup_round_trips(kind: str) -> None:
    def ops(side: Side, kind: str) -> Any:
        first = _n_buttons(side, kind, 5).adjust(2)
        second = _n_buttons(side, kind, 4, start=10).adjust(3)
        copied = first.copy()
        copied.attach(second)
        copied.adjust(3, 1)
        again = type(first).from_markup(copied.as_markup())
        again.button(text="last")
        # the originals are left as they were
        assert len(list(first.buttons)) == 5 and len(list(second.buttons)) == 4
        return again.attach(first).as_markup()

    same(ops, kind)


def test_export_and_buttons_are_copies() -> None:
    for side in (AIOGRAM, TGFAST):
        builder = _n_buttons(side, "inline", 2)
        builder.export()[0][0].text = "changed"
        next(builder.buttons).text = "changed"
        assert [b.text for b in builder.buttons] == ["b0", "b1"]


def test_callback_data_objects_are_packed() -> None:
    def ops(side: Side, kind: str) -> Any:
        builder = side.builder(kind)
        builder.button(text="one", callback_data=side.page(number=1))
        builder.button(text="two", callback_data=side.page(number=2, tag="y"))
        builder.button(text="plain", callback_data="plain")
        return builder.as_markup()

    dumped = same(ops)
    assert [b["callback_data"] for b in dumped["inline_keyboard"][0]] == [
        "page:1:x",
        "page:2:y",
        "plain",
    ]


def test_button_fields_pass_through() -> None:
    def inline(side: Side, kind: str) -> Any:
        builder = side.builder(kind)
        builder.button(text="u", url="https://example.com", style="danger")
        builder.button(text="w", web_app=side.types.WebAppInfo(url="https://example.com/app"))
        builder.button(text="s", switch_inline_query_current_chat="q")
        builder.button(text="p", pay=True)
        return builder.as_markup()

    same(inline)

    def reply(side: Side, kind: str) -> Any:
        builder = side.builder(kind)
        builder.button(text="c", request_contact=True)
        builder.button(text="l", request_location=True, icon_custom_emoji_id="5")
        return builder.as_markup()

    same(reply, "reply")


@pytest.mark.parametrize("kind", KINDS)
def test_unknown_button_fields_go_through_as_extra(kind: str) -> None:
    def ops(side: Side, kind: str) -> Any:
        builder = side.builder(kind)
        builder.button(text="new", future_field={"a": 1}, unset_field=None)
        return builder.as_markup()

    dumped = same(ops, kind)
    rows = dumped["inline_keyboard" if kind == "inline" else "keyboard"]
    assert rows == [[{"text": "new", "future_field": {"a": 1}}]]


@pytest.mark.parametrize(
    ("kind", "ops"),
    [
        ("inline", lambda s, k: _n_buttons(s, k, 1).row(s.button(k, "x"), width=9)),
        ("reply", lambda s, k: _n_buttons(s, k, 1).row(s.button(k, "x"), width=11)),
        ("inline", lambda s, k: _n_buttons(s, k, 3).adjust(0)),
        ("inline", lambda s, k: _n_buttons(s, k, 3).adjust(2, 9)),
        ("reply", lambda s, k: _n_buttons(s, k, 3).adjust(11, repeat=True)),
        ("inline", lambda s, k: _n_buttons(s, k, 3).adjust("2")),
        ("inline", lambda s, k: s.builder(k, [[s.button(k, str(i)) for i in range(9)]])),
        ("reply", lambda s, k: s.builder(k, [[s.button(k, str(i)) for i in range(11)]])),
        (
            "inline",
            lambda s, k: s.builder(k, [[s.button(k, "x")] * 8] * 12 + [[s.button(k, "y")] * 5]),
        ),
        ("reply", lambda s, k: s.builder(k, [[s.button(k, "x")] * 10] * 30 + [[s.button(k, "y")]])),
        (
            "inline",
            lambda s, k: s.kb.InlineKeyboardBuilder.from_markup(
                s.types.InlineKeyboardMarkup(inline_keyboard=[[s.button(k, "x")] * 8] * 13)
            ),
        ),
        ("inline", lambda s, k: s.builder(k, (s.button(k, "x"),))),
        ("inline", lambda s, k: s.builder(k).add(s.button("reply", "x"))),
        ("reply", lambda s, k: s.builder(k).row(s.button("inline", "x"))),
        ("inline", lambda s, k: s.builder(k).attach(s.builder("reply"))),
        ("inline", lambda s, k: s.builder(k).attach(object())),
    ],
)
def test_limits_and_mistakes_raise_on_both(kind: str, ops: Ops) -> None:
    both_raise(ops, kind)


def test_limit_messages_say_the_limit() -> None:
    msg = both_raise(lambda s, k: _n_buttons(s, k, 1).row(s.button(k, "x"), width=9))
    assert "1 to 8" in msg
    msg = both_raise(lambda s, k: s.builder(k, [[s.button(k, "x")] * 8] * 13))
    assert "104 buttons" in msg and "at most 100" in msg


def test_exactly_at_the_limits_is_fine() -> None:
    same(
        lambda s, k: s.builder(
            k, [[s.button(k, "x")] * 8] * 12 + [[s.button(k, "y")] * 4]
        ).as_markup()
    )
    same(lambda s, k: s.builder(k, [[s.button(k, "x")] * 10] * 30).as_markup(), "reply")


# --- random operation sequences, step by step against aiogram ---------------------------

OP = st.one_of(
    st.tuples(st.just("button"), st.integers(0, 0)),
    st.tuples(st.just("add"), st.integers(0, 20)),
    st.tuples(st.just("row"), st.integers(0, 20), st.one_of(st.none(), st.integers(0, 13))),
    st.tuples(st.just("adjust"), st.lists(st.integers(0, 13), max_size=4), st.booleans()),
    st.tuples(st.just("attach"), st.integers(0, 12), st.lists(st.integers(1, 8), max_size=2)),
    st.tuples(st.just("copy")),
    st.tuples(st.just("from_markup")),
)


def _apply(side: Side, kind: str, builder: Any, op: tuple[Any, ...], counter: list[int]) -> Any:
    def fresh(n: int) -> list[Any]:
        start = counter[0]
        counter[0] += n
        return [side.button(kind, f"b{i}") for i in range(start, start + n)]

    name = op[0]
    if name == "button":
        counter[0] += 1
        return builder.button(text=f"b{counter[0]}")
    if name == "add":
        return builder.add(*fresh(op[1]))
    if name == "row":
        return builder.row(*fresh(op[1]), width=op[2])
    if name == "adjust":
        return builder.adjust(*op[1], repeat=op[2])
    if name == "attach":
        other = side.builder(kind).add(*fresh(op[1]))
        if op[2]:
            other.adjust(*op[2])
        return builder.attach(other)
    if name == "copy":
        return builder.copy()
    return type(builder).from_markup(builder.as_markup())


@settings(max_examples=150, deadline=None)
@given(kind=st.sampled_from(KINDS), ops=st.lists(OP, max_size=12))
def test_random_operations_match_aiogram(kind: str, ops: list[tuple[Any, ...]]) -> None:
    builders = {side: side.builder(kind) for side in (AIOGRAM, TGFAST)}
    counters = {AIOGRAM: [0], TGFAST: [0]}
    for op in ops:
        outcome: dict[Side, Any] = {}
        for side in (AIOGRAM, TGFAST):
            try:
                builders[side] = _apply(side, kind, builders[side], op, counters[side])
                outcome[side] = side.dump(builders[side].as_markup())
            except ValueError:
                outcome[side] = ValueError
                # a failed build from rows leaves nothing: start over on both sides
                builders[side] = side.builder(kind)
        assert outcome[TGFAST] == outcome[AIOGRAM], op


# --- names, signatures, and a keyboard on the wire ------------------------------------


def test_every_aiogram_name_is_here() -> None:
    for name, value in vars(a_kb).items():
        if name.startswith("_"):
            continue
        if getattr(value, "__module__", "").startswith("aiogram") or isinstance(value, TypeVar):
            assert hasattr(t_kb, name), name


@pytest.mark.parametrize("cls", ["InlineKeyboardBuilder", "ReplyKeyboardBuilder"])
@pytest.mark.parametrize("method", ["button", "add", "row", "adjust", "attach", "as_markup"])
def test_signatures_take_aiogram_parameters(cls: str, method: str) -> None:
    theirs = inspect.signature(getattr(getattr(a_kb, cls), method)).parameters
    ours = inspect.signature(getattr(getattr(t_kb, cls), method)).parameters
    for name, param in theirs.items():
        assert name in ours, name
        assert ours[name].kind == param.kind, name
        assert (ours[name].default is inspect.Parameter.empty) == (
            param.default is inspect.Parameter.empty
        ), name


async def test_markup_reaches_telegram_as_aiogram_would_send_it(
    fake: FakeTelegram, bot: Bot
) -> None:
    def ops(side: Side, kind: str) -> Any:
        builder = _n_buttons(side, kind, 5).adjust(2, 1, repeat=True)
        return builder.button(text="page", callback_data=side.page(number=3)).as_markup()

    await bot.send_message(chat_id=1, text="pick", reply_markup=ops(TGFAST, "inline"))
    (call,) = fake.calls_to("sendMessage")
    assert call.params["reply_markup"] == AIOGRAM.dump(ops(AIOGRAM, "inline"))
