"""One keyword rule for a declared method's constructor and a shortcut's ``**kwargs``: a
parameter is set, an unknown keyword kept in ``_extra`` (and sent), a shortcut's own
names refused; the same words for the same mistakes either way."""

from __future__ import annotations

import datetime

import pytest

import tgfast.methods as tm
import tgfast.types as tt


class PinNote(tm.TelegramMethod[bool]):
    """Declared as aiogram's are: two required parameters, one optional."""

    __api_method__ = "pinNote"
    __returning__ = bool

    chat_id: int
    note_id: int
    silent: bool | None = None


def _message() -> tt.Message:
    date = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    return tt.Message(message_id=1, date=date, chat=tt.Chat(id=5, type="private"))


def test_a_declared_constructor_sets_parameters_and_keeps_the_rest() -> None:
    method = PinNote(chat_id=5, note_id=2, colour="mauve", size=3)
    assert (method.chat_id, method.note_id, method.silent) == (5, 2, None)
    assert method._extra == {"colour": "mauve", "size": 3}
    assert method.build() == {"chat_id": 5, "note_id": 2, "colour": "mauve", "size": 3}
    assert PinNote(chat_id=5, note_id=2)._extra is None
    assert PinNote.__tg_required__ == {"chat_id", "note_id"}


def test_missing_parameters_are_named_in_declaration_order() -> None:
    with pytest.raises(TypeError) as raised:
        PinNote(silent=True, colour="mauve")
    assert str(raised.value) == "PinNote() missing the parameters ['chat_id', 'note_id']"
    with pytest.raises(TypeError, match=r"^PinNote\(\) missing the parameters \['note_id'\]$"):
        PinNote(chat_id=5)


def test_a_shortcut_passes_its_keywords_on_by_the_same_rule() -> None:
    method = _message().answer("hi", message_effect_id="e", colour="mauve", size=3)
    assert method.message_effect_id == "e"
    assert method._extra == {"colour": "mauve", "size": 3}
    assert _message().answer("hi", message_effect_id="e")._extra is None
    with pytest.raises(TypeError) as raised:
        _message().answer("hi", colour="mauve", chat_id=7, message_thread_id=1)
    assert (
        str(raised.value) == "Message.answer() got multiple values for keyword argument 'chat_id'"
    )


def test_keywords_taken_later_leave_a_shared_extra_alone() -> None:
    first = PinNote(chat_id=5, note_id=2, colour="mauve")
    second = PinNote(chat_id=6, note_id=3)
    second._extra = first._extra
    second._take_keywords({"size": 3, "silent": True}, (), "PinNote")
    assert second._extra == {"colour": "mauve", "size": 3} and second.silent is True
    assert first._extra == {"colour": "mauve"}
    second._take_keywords({"silent": False}, (), "PinNote")
    assert second._extra == {"colour": "mauve", "size": 3} and second.silent is False
