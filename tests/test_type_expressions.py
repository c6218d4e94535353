"""Python types as type expressions (``expr_of``), for the decoder and for a method's
result, and back again (``result_type``): the two readings must agree."""

from __future__ import annotations

from types import ModuleType
from typing import Any, List, Optional, Union  # noqa: UP035 - the typing spellings are the point

import pytest

import tgfast.methods as tm
from tgfast._speedups._decode_shared import expr_of
from tgfast.methods.base import result_type
from tgfast.types import _types as T

EXPRESSIONS: list[tuple[Any, str]] = [
    (T.Message, "Message"),
    (int, "int"),
    (bool, "bool"),
    (str, "str"),
    (float, "float"),
    (list[T.Message], "[Message]"),
    (list[list[int]], "[[int]]"),
    (T.Message | bool, "Message|bool"),
    (list[T.MessageId] | bool, "[MessageId]|bool"),
    (list[T.Message | bool], "[Message|bool]"),
    (T.ChatMember, "ChatMember"),
]
"""Types without ``None``: the same expression for the decoder and for a result."""

WITH_NONE: list[tuple[Any, str]] = [
    (None, ""),
    (type(None), ""),
    (Optional[T.Message], "Message"),  # noqa: UP045
    (T.Message | None, "Message"),
    (T.Message | bool | None, "Message|bool"),
    (list[T.Message | None], "[Message]"),
]
"""Types with ``None``: a result's ``None`` is ``""``, left out of a union."""


@pytest.mark.parametrize(("tp", "expr"), EXPRESSIONS + WITH_NONE)
def test_a_result_type_becomes_its_expression(tp: Any, expr: str) -> None:
    assert expr_of(tp, result=True) == expr


def test_typing_s_spellings_are_read_too() -> None:
    for result in (False, True):
        assert expr_of(List[T.Message], result=result) == "[Message]"  # noqa: UP006
        assert expr_of(Union[T.Message, bool], result=result) == "Message|bool"  # noqa: UP007


@pytest.mark.parametrize(("tp", "expr"), EXPRESSIONS)
def test_the_decoder_reads_the_same_expressions(tp: Any, expr: str) -> None:
    assert expr_of(tp) == expr
    assert expr_of(expr) == expr  # an expression is already one


@pytest.mark.parametrize(("tp", "expr"), EXPRESSIONS)
def test_a_result_type_round_trips(tp: Any, expr: str) -> None:
    assert result_type(expr) == tp
    assert expr_of(result_type(expr), result=True) == expr


def test_every_generated_method_s_result_round_trips() -> None:
    methods = [
        cls
        for cls in vars(tm).values()
        if isinstance(cls, type) and issubclass(cls, tm.TelegramMethod) and cls.__api_method__
    ]
    assert len(methods) > 150
    returns = {cls.__returns__ for cls in methods}
    assert {"Message|bool", "[Message]", "bool"} <= returns
    for expr in returns:
        assert expr_of(result_type(expr), result=True) == expr


@pytest.mark.parametrize("tp", [type(None), None, Optional[T.Message], list[int | None]])  # noqa: UP045
def test_the_decoder_refuses_none(tp: Any) -> None:
    with pytest.raises(TypeError, match="^cannot decode into"):
        expr_of(tp)


@pytest.mark.parametrize(
    ("tp", "named"),
    [(dict, "<class 'dict'>"), (list[dict], "<class 'dict'>"), ("Message", "'Message'"),
     (tuple[int], "tuple"), (5, "5")],
)  # fmt: skip
def test_a_result_type_that_is_none_of_these_is_refused(tp: Any, named: str) -> None:
    with pytest.raises(TypeError, match=f"^a method cannot return {named}"):
        expr_of(tp, result=True)


def test_a_method_declared_with_a_union_result() -> None:
    class EditNote(tm.TelegramMethod[Any]):
        __api_method__ = "editNote"
        __returning__ = Optional[T.Message | bool]  # noqa: UP045

    assert EditNote.__returns__ == EditNote.__tg_returns__.expr == "Message|bool"
    with pytest.raises(TypeError, match="^a method cannot return <class 'dict'>"):

        class _Bad(tm.TelegramMethod[Any]):
            __api_method__ = "bad"
            __returning__ = list[dict]  # type: ignore[type-arg]


def test_unions_decode_through_both_builds(decoder: ModuleType) -> None:
    assert decoder.decode(T.Message | bool, b"true") is True
    ids = decoder.convert(Union[list[T.MessageId], bool], [{"message_id": 7}])  # noqa: UP007
    assert [type(m) for m in ids] == [T.MessageId] and ids[0].message_id == 7
    raw = b'[{"message_id": 1, "date": 0, "chat": {"id": 5, "type": "private"}}]'
    assert decoder.decode(List[T.Message], raw)[0].chat.id == 5  # noqa: UP006
    with pytest.raises(TypeError, match="cannot decode into"):
        decoder.decode(T.Message | None, b"null")
