"""``decode(tp, ...)`` and ``convert(tp, ...)`` find the converter of a type met before
without building its expression again: the client decodes every Bot API result so."""

from __future__ import annotations

from types import ModuleType

import pytest

import tgfast.types as tt

MESSAGE = b'{"message_id":1,"date":2,"chat":{"id":3,"type":"private"},"text":"hi"}'


def test_a_type_met_before_needs_no_expression(
    decoder: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = decoder.decode(tt.Message, MESSAGE)
    decoder.decode(list[tt.Message], b"[]")

    def refuse(tp: object) -> str:
        raise AssertionError(f"expr_of({tp!r}) called again")

    monkeypatch.setattr(decoder, "expr_of", refuse)
    again = decoder.decode(tt.Message, MESSAGE)
    assert again == first and again is not first
    raw = {"message_id": 1, "date": 2, "chat": {"id": 3, "type": "private"}, "text": "hi"}
    assert decoder.convert(tt.Message, raw) == first
    assert decoder.decode(list[tt.Message], b"[" + MESSAGE + b"]") == [first]


def test_a_type_it_cannot_decode_into_fails_every_time(decoder: ModuleType) -> None:
    for _ in range(2):
        with pytest.raises(TypeError, match="cannot decode into"):
            decoder.decode(dict, b"{}")
    with pytest.raises(TypeError, match="cannot decode into"):
        decoder.decode(["Message"], b"{}")  # unhashable
