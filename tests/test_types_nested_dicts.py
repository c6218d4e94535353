"""A dict given to a constructor where a Bot API type belongs becomes that type, as
aiogram's models validate one (``Update(**raw)`` in a bot's tests); objects given stay the
very objects, and a dict that is not the type is refused as the decoder refuses it."""

from __future__ import annotations

import pytest

from tgfast import DecodeError
from tgfast.types import (
    Chat,
    ChatMemberBanned,
    ChatMemberUpdated,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    Update,
    User,
)

RAW_MESSAGE = {
    "message_id": 7,
    "date": 1700000000,
    "chat": {"id": 1, "type": "private"},
    "from": {"id": 2, "is_bot": False, "first_name": "Ann"},
    "text": "hi",
}


def test_an_update_built_from_raw_dicts_is_typed_all_the_way_down() -> None:
    update = Update(update_id=1, message=RAW_MESSAGE)
    assert isinstance(update.message, Message)
    assert update.message.chat == Chat(id=1, type="private")
    assert update.message.from_user == User(id=2, is_bot=False, first_name="Ann")
    assert update.message.date.timestamp() == 1700000000
    assert update.to_dict()["message"]["from"]["first_name"] == "Ann"


def test_objects_given_are_kept_as_given() -> None:
    chat = Chat(id=1, type="private")
    rows = [[InlineKeyboardButton(text="a", callback_data="a")]]
    assert Message(message_id=1, date=0, chat=chat).chat is chat
    assert InlineKeyboardMarkup(inline_keyboard=rows).inline_keyboard is rows


def test_lists_of_dicts_at_any_depth_and_mixed_with_objects() -> None:
    first = InlineKeyboardButton(text="a", callback_data="a")
    markup = InlineKeyboardMarkup(inline_keyboard=[[first, {"text": "b", "callback_data": "b"}]])
    row = markup.inline_keyboard[0]
    assert row[0] is first
    assert row[1] == InlineKeyboardButton(text="b", callback_data="b")


def test_a_union_field_given_a_dict_takes_the_variant_its_tag_names() -> None:
    member = {"status": "kicked", "user": {"id": 3, "is_bot": False, "first_name": "B"}}
    updated = ChatMemberUpdated(
        chat={"id": 1, "type": "group"},
        from_user={"id": 2, "is_bot": False, "first_name": "A"},
        date=0,
        old_chat_member=member | {"until_date": 0},
        new_chat_member=member | {"until_date": 5},
    )
    assert isinstance(updated.new_chat_member, ChatMemberBanned)
    assert updated.new_chat_member.user.first_name == "B"


def test_a_dict_that_is_not_the_type_is_refused_as_the_decoder_refuses_it() -> None:
    with pytest.raises(DecodeError, match=r"\$\.id: expected int, got str"):
        Message(message_id=1, date=0, chat={"id": "not a number", "type": "private"})
