"""Decoding real-shaped Bot API JSON, through both implementations (``decoder``)."""

from __future__ import annotations

import copy
import pickle
import re
from datetime import datetime, timezone
from types import ModuleType
from typing import Any

import orjson
import pytest
from implementations import pure

import tgfast
from tgfast import DecodeError, TgfastError
from tgfast.types import _types as T

# --- examples -------------------------------------------------------------------

ANN = {
    "id": 1111111,
    "is_bot": False,
    "first_name": "Ann",
    "last_name": "Lee",
    "username": "annlee",
    "language_code": "en",
}

PRIVATE_START: dict[str, Any] = {
    "update_id": 735001,
    "message": {
        "message_id": 1365,
        "from": ANN,
        "chat": {
            "id": 1111111,
            "first_name": "Ann",
            "last_name": "Lee",
            "username": "annlee",
            "type": "private",
        },
        "date": 1718000000,
        "text": "/start",
        "entities": [{"offset": 0, "length": 6, "type": "bot_command"}],
    },
}

SUPERGROUP_PHOTO: dict[str, Any] = {
    "update_id": 735002,
    "message": {
        "message_id": 98211,
        "from": {"id": 222, "is_bot": False, "first_name": "Bob", "is_premium": True},
        "chat": {
            "id": -1001234567890,
            "title": "tgfast users",
            "username": "tgfast_chat",
            "is_forum": False,
            "type": "supergroup",
        },
        "date": 1718000100,
        "photo": [
            {
                "file_id": "AgAD-s",
                "file_unique_id": "u-s",
                "file_size": 1210,
                "width": 90,
                "height": 67,
            },
            {
                "file_id": "AgAD-m",
                "file_unique_id": "u-m",
                "file_size": 15843,
                "width": 320,
                "height": 240,
            },
            {
                "file_id": "AgAD-x",
                "file_unique_id": "u-x",
                "file_size": 96572,
                "width": 1280,
                "height": 960,
            },
        ],
        "caption": "Release 0.1 by @bob: https://example.org #tgfast",
        "caption_entities": [
            {"offset": 15, "length": 4, "type": "mention"},
            {"offset": 21, "length": 19, "type": "url"},
            {"offset": 41, "length": 7, "type": "hashtag"},
        ],
        "reply_markup": {
            "inline_keyboard": [
                [
                    {"text": "👍", "callback_data": "vote:up"},
                    {"text": "👎", "callback_data": "vote:down"},
                    {"text": "🤷", "callback_data": "vote:meh"},
                ],
                [
                    {"text": "« Back", "callback_data": "nav:back"},
                    {"text": "Next »", "callback_data": "nav:next"},
                ],
            ]
        },
    },
}

MESSAGE = {"message_id": 7, "date": 1718000000, "chat": {"id": 42, "type": "private"}}


def body(value: Any) -> bytes:
    return orjson.dumps(value)


def with_message(**fields: Any) -> bytes:
    return body({"update_id": 1, "message": {**MESSAGE, **fields}})


def decode_error(call: Any, *args: Any, **kwargs: Any) -> DecodeError:
    with pytest.raises(DecodeError) as info:
        call(*args, **kwargs)
    return info.value


# --- the examples decode to the right values -------------------------------------


def test_private_start(decoder: ModuleType) -> None:
    update = decoder.decode_update(body(PRIVATE_START))
    assert type(update) is T.Update
    assert update.update_id == 735001
    msg = update.message
    assert type(msg) is T.Message
    assert msg.message_id == 1365
    assert msg.date == datetime(2024, 6, 10, 6, 13, 20, tzinfo=timezone.utc)
    assert msg.date.tzinfo is timezone.utc
    assert msg.text == "/start"
    # "from" is a keyword in Python: the attribute is from_user
    assert type(msg.from_user) is T.User
    assert msg.from_user.id == 1111111
    assert msg.from_user.is_bot is False
    assert msg.from_user.first_name == "Ann"
    assert msg.from_user.language_code == "en"
    assert msg.from_user.is_premium is None
    assert msg.chat.id == 1111111
    assert msg.chat.type == "private"
    assert msg.chat.title is None
    assert msg.entities == [T.MessageEntity(type="bot_command", offset=0, length=6)]
    assert msg.caption is None and msg.photo is None and msg.reply_markup is None
    for attr in ("edited_message", "callback_query", "inline_query", "my_chat_member"):
        assert getattr(update, attr) is None
    assert update._extra is None and msg._extra is None
    assert update.to_dict() == PRIVATE_START
    assert "from" in update.to_dict()["message"]


def test_supergroup_photo_with_keyboard(decoder: ModuleType) -> None:
    update = decoder.decode_update(body(SUPERGROUP_PHOTO))
    msg = update.message
    assert msg.chat.id == -1001234567890
    assert msg.chat.type == "supergroup"
    assert msg.chat.title == "tgfast users"
    assert msg.chat.is_forum is False
    assert msg.from_user.is_premium is True
    assert msg.text is None and msg.entities is None

    assert [type(p) for p in msg.photo] == [T.PhotoSize] * 3
    assert [(p.width, p.height, p.file_size) for p in msg.photo] == [
        (90, 67, 1210),
        (320, 240, 15843),
        (1280, 960, 96572),
    ]
    assert msg.photo[-1].file_id == "AgAD-x"

    assert [(e.type, e.offset, e.length) for e in msg.caption_entities] == [
        ("mention", 15, 4),
        ("url", 21, 19),
        ("hashtag", 41, 7),
    ]
    caption = msg.caption
    assert [caption[e.offset : e.offset + e.length] for e in msg.caption_entities] == [
        "@bob",
        "https://example.org",
        "#tgfast",
    ]

    keyboard = msg.reply_markup
    assert type(keyboard) is T.InlineKeyboardMarkup
    assert [len(row) for row in keyboard.inline_keyboard] == [3, 2]
    buttons = [b for row in keyboard.inline_keyboard for b in row]
    assert all(type(b) is T.InlineKeyboardButton for b in buttons)
    assert [b.callback_data for b in buttons] == [
        "vote:up",
        "vote:down",
        "vote:meh",
        "nav:back",
        "nav:next",
    ]
    assert buttons[0].text == "👍" and buttons[0].url is None
    assert update.to_dict() == SUPERGROUP_PHOTO


def test_optional_null_is_none(decoder: ModuleType) -> None:
    msg = decoder.decode_update(with_message(text=None, photo=None, **{"from": None})).message
    assert msg.text is None and msg.photo is None and msg.from_user is None
    assert msg.to_dict() == MESSAGE


def test_floats_accept_json_ints(decoder: ModuleType) -> None:
    loc = decoder.decode(
        T.Location, b'{"latitude": 52, "longitude": 13.5, "horizontal_accuracy": 0}'
    )
    assert loc.latitude == 52.0 and type(loc.latitude) is float
    assert loc.longitude == 13.5
    assert loc.horizontal_accuracy == 0.0 and type(loc.horizontal_accuracy) is float
    assert decoder.decode(float, b"3") == 3.0 and type(decoder.decode(float, b"3")) is float


def test_int64_bounds_are_accepted(decoder: ModuleType) -> None:
    for value in (2**63 - 1, -(2**63), 0, -1):
        assert decoder.decode_update(body({"update_id": value})).update_id == value


# --- unknown fields and kinds ----------------------------------------------------


def test_unknown_fields_are_kept(decoder: ModuleType) -> None:
    data = copy.deepcopy(PRIVATE_START)
    data["message"]["reaction_of_the_future"] = {"kind": "🦄", "weight": [1, 2.5, None]}
    data["message"]["chat"]["colour"] = "mauve"
    data["brand_new_top_level"] = True
    update = decoder.decode_update(body(data))
    assert update._extra == {"brand_new_top_level": True}
    assert update.message._extra == {
        "reaction_of_the_future": {"kind": "🦄", "weight": [1, 2.5, None]}
    }
    assert update.message.chat._extra == {"colour": "mauve"}
    assert update.message.from_user._extra is None
    assert update.message.text == "/start"
    assert update.to_dict() == data
    assert decoder.decode_update(body(update.to_dict())) == update


def test_unknown_update_kind(decoder: ModuleType) -> None:
    data = {"update_id": 9, "holographic_call": {"id": "x", "participants": [{"id": 1}]}}
    update = decoder.decode_update(body(data))
    assert update.update_id == 9
    assert all(
        getattr(update, attr) is None for _k, attr, _t, req in T.Update.__tg_fields__ if not req
    )
    assert update._extra == {"holographic_call": {"id": "x", "participants": [{"id": 1}]}}
    assert update.to_dict() == data


def test_python_attribute_names_are_unknown_json_keys(decoder: ModuleType) -> None:
    # "from_user" is only the attribute; as a JSON key it is just an unknown field
    msg = decoder.convert(T.Message, {**MESSAGE, "from_user": {"id": 1}})
    assert msg.from_user is None
    assert msg._extra == {"from_user": {"id": 1}}


# --- unions ---------------------------------------------------------------------


def test_reaction_types(decoder: ModuleType) -> None:
    data = {
        "update_id": 3,
        "message_reaction": {
            "chat": {"id": 5, "type": "group", "title": "g"},
            "message_id": 11,
            "user": ANN,
            "date": 1718000000,
            "old_reaction": [],
            "new_reaction": [
                {"type": "emoji", "emoji": "🔥"},
                {"type": "custom_emoji", "custom_emoji_id": "5368324170671202286"},
                {"type": "paid"},
                {"type": "sticker_pack", "pack": "abc"},
            ],
        },
    }
    reaction = decoder.decode_update(body(data)).message_reaction
    assert type(reaction) is T.MessageReactionUpdated
    assert reaction.old_reaction == []
    new = reaction.new_reaction
    assert [type(r) for r in new] == [
        T.ReactionTypeEmoji,
        T.ReactionTypeCustomEmoji,
        T.ReactionTypePaid,
        T.ReactionType,  # unknown discriminator: the base class with the raw fields
    ]
    assert new[0].emoji == "🔥" and new[0].type == "emoji"
    assert new[1].custom_emoji_id == "5368324170671202286"
    assert new[2].type == "paid"
    assert new[3]._extra == {"type": "sticker_pack", "pack": "abc"}
    assert new[3].to_dict() == {"type": "sticker_pack", "pack": "abc"}
    assert decoder.decode_update(body(data)).to_dict() == data


@pytest.mark.parametrize(
    ("status", "cls", "extra"),
    [
        ("creator", T.ChatMemberOwner, {"is_anonymous": False}),
        (
            "administrator",
            T.ChatMemberAdministrator,
            {
                name: False
                for name, _attr, tp, req in T.ChatMemberAdministrator.__tg_fields__
                if req and tp == "bool"
            },
        ),
        ("member", T.ChatMemberMember, {}),
        (
            "restricted",
            T.ChatMemberRestricted,
            {
                name: (0 if tp in ("int", "date") else True)
                for name, _attr, tp, req in T.ChatMemberRestricted.__tg_fields__
                if req and tp in ("bool", "int", "date")
            },
        ),
        ("left", T.ChatMemberLeft, {}),
        ("kicked", T.ChatMemberBanned, {"until_date": 0}),
    ],
)
def test_chat_member_by_status(
    decoder: ModuleType, status: str, cls: type, extra: dict[str, Any]
) -> None:
    member = {"status": status, "user": ANN, **extra}
    data = {
        "update_id": 4,
        "chat_member": {
            "chat": {"id": -100, "type": "supergroup", "title": "s"},
            "from": ANN,
            "date": 1,
            "old_chat_member": {"status": "left", "user": ANN},
            "new_chat_member": member,
        },
    }
    updated = decoder.decode_update(body(data)).chat_member
    assert type(updated.old_chat_member) is T.ChatMemberLeft
    assert type(updated.new_chat_member) is cls
    assert updated.new_chat_member.status == status
    assert updated.new_chat_member.user.first_name == "Ann"
    assert updated.new_chat_member._extra is None
    assert updated.new_chat_member.to_dict() == member


def test_chat_member_unknown_or_missing_status(decoder: ModuleType) -> None:
    # an unknown status is a newer kind of member: the base class with the raw fields
    raw = {"status": "ghost", "user": ANN}
    member = decoder.convert(T.ChatMember, raw)
    assert type(member) is T.ChatMember
    assert member._extra == raw
    assert member.to_dict() == raw
    # a missing or non-string status is a malformed member (issue #16 item 10)
    for raw, reason in (
        ({"user": ANN}, "missing required field"),
        ({}, "missing required field"),
        ({"status": None}, "expected str, got null"),
        ({"status": 5}, "expected str, got int"),
        ({"status": True}, "expected str, got bool"),
    ):
        with pytest.raises(DecodeError, match=re.escape(f"$.status: {reason}")):
            decoder.convert(T.ChatMember, raw)


@pytest.mark.parametrize(
    ("origin", "cls", "check"),
    [
        ({"type": "user", "date": 5, "sender_user": ANN}, T.MessageOriginUser, "sender_user"),
        (
            {"type": "hidden_user", "date": 5, "sender_user_name": "Zed"},
            T.MessageOriginHiddenUser,
            "sender_user_name",
        ),
        (
            {"type": "chat", "date": 5, "sender_chat": {"id": -1, "type": "group"}},
            T.MessageOriginChat,
            "sender_chat",
        ),
        (
            {"type": "channel", "date": 5, "chat": {"id": -2, "type": "channel"}, "message_id": 8},
            T.MessageOriginChannel,
            "message_id",
        ),
        ({"type": "wormhole", "date": 5}, T.MessageOrigin, None),
    ],
)
def test_message_origin(
    decoder: ModuleType, origin: dict[str, Any], cls: type, check: str | None
) -> None:
    msg = decoder.decode_update(with_message(forward_origin=origin, text="fwd")).message
    assert type(msg.forward_origin) is cls
    if check is not None:
        assert getattr(msg.forward_origin, check) is not None
        assert msg.forward_origin.date == datetime.fromtimestamp(5, timezone.utc)
    else:
        assert msg.forward_origin._extra == origin
    assert msg.forward_origin.to_dict() == origin


def test_maybe_inaccessible_message(decoder: ModuleType) -> None:
    def query(message: dict[str, Any]) -> bytes:
        return body(
            {
                "update_id": 5,
                "callback_query": {
                    "id": "q1",
                    "from": ANN,
                    "chat_instance": "-77",
                    "data": "vote:up",
                    "message": message,
                },
            }
        )

    gone = decoder.decode_update(
        query({"chat": {"id": 1, "type": "private"}, "message_id": 3, "date": 0})
    )
    assert type(gone.callback_query.message) is T.InaccessibleMessage
    assert gone.callback_query.message.date == 0
    assert gone.callback_query.message.message_id == 3
    assert gone.callback_query.data == "vote:up"

    live = decoder.decode_update(query({**MESSAGE, "text": "pick one"}))
    assert type(live.callback_query.message) is T.Message
    assert live.callback_query.message.text == "pick one"
    assert live.callback_query.message.date == datetime.fromtimestamp(1718000000, timezone.utc)

    # no usable date: the default variant (Message) reports what is wrong
    err = decode_error(
        decoder.decode_update, query({"chat": {"id": 1, "type": "private"}, "message_id": 3})
    )
    assert str(err) == "$.callback_query.message.date: missing required field"
    err = decode_error(decoder.decode_update, query({**MESSAGE, "date": "0"}))
    assert str(err) == "$.callback_query.message.date: expected int, got str"


def test_rich_text_forms(decoder: ModuleType) -> None:
    assert decoder.convert(T.RichText, "plain") == "plain"
    bold = decoder.convert(T.RichText, {"type": "bold", "text": "strong"})
    assert type(bold) is T.RichTextBold and bold.text == "strong"
    nested = decoder.convert(
        T.RichText,
        [
            "a ",
            {"type": "italic", "text": ["b", {"type": "bold", "text": "c"}]},
            [],
            {"type": "new_style", "x": 1},
        ],
    )
    assert nested[0] == "a "
    assert type(nested[1]) is T.RichTextItalic
    assert nested[1].text[0] == "b"
    assert type(nested[1].text[1]) is T.RichTextBold and nested[1].text[1].text == "c"
    assert nested[2] == []
    assert type(nested[3]) is T.RichText and nested[3]._extra == {"type": "new_style", "x": 1}
    paragraph = decoder.decode(
        T.RichBlock,
        b'{"type": "paragraph", "text": ["x", {"type": "url", "text": "y", "url": "z"}]}',
    )
    assert type(paragraph) is T.RichBlockParagraph
    assert type(paragraph.text[1]) is T.RichTextUrl
    err = decode_error(decoder.convert, T.RichText, 5)
    assert str(err) == "$: expected array or str or object, got int"
    err = decode_error(decoder.convert, T.RichText, ["ok", None])
    assert str(err) == "$[1]: expected array or str or object, got null"


@pytest.mark.parametrize(
    ("content", "cls"),
    [
        ({"message_text": "hi", "parse_mode": "HTML"}, T.InputTextMessageContent),
        ({"latitude": 1.5, "longitude": 2.5, "live_period": 60}, T.InputLocationMessageContent),
        (
            {"latitude": 1.5, "longitude": 2.5, "title": "Cafe", "address": "Main st 1"},
            T.InputVenueMessageContent,
        ),
        ({"phone_number": "+100", "first_name": "Ann"}, T.InputContactMessageContent),
        (
            {
                "title": "T",
                "description": "D",
                "payload": "p",
                "currency": "XTR",
                "prices": [{"label": "x", "amount": 1}],
                "need_phone_number": True,
            },
            T.InputInvoiceMessageContent,
        ),
    ],
)
def test_input_message_content_by_presence(
    decoder: ModuleType, content: dict[str, Any], cls: type
) -> None:
    result = {"type": "article", "id": "r1", "title": "Result", "input_message_content": content}
    article = decoder.convert(T.InlineQueryResult, result)
    assert type(article) is T.InlineQueryResultArticle
    assert type(article.input_message_content) is cls
    assert article.input_message_content._extra is None
    assert article.to_dict() == result


def test_input_message_content_without_known_keys(decoder: ModuleType) -> None:
    raw = {"hologram": "yes"}
    content = decoder.convert(T.InputMessageContent, raw)
    assert type(content) is T.InputMessageContent
    assert content._extra == raw and content.to_dict() == raw


def test_inline_query_result_cached_vs_url(decoder: ModuleType) -> None:
    cached = decoder.convert(
        T.InlineQueryResult, {"type": "photo", "id": "1", "photo_file_id": "AgAD"}
    )
    assert type(cached) is T.InlineQueryResultCachedPhoto
    assert cached.photo_file_id == "AgAD"
    by_url = decoder.convert(
        T.InlineQueryResult,
        {
            "type": "photo",
            "id": "2",
            "photo_url": "https://e.org/p.jpg",
            "thumbnail_url": "https://e.org/t.jpg",
        },
    )
    assert type(by_url) is T.InlineQueryResultPhoto
    assert by_url.photo_url == "https://e.org/p.jpg"
    audio = decoder.convert(
        T.InlineQueryResult, {"type": "audio", "id": "3", "audio_file_id": "CQAD"}
    )
    assert type(audio) is T.InlineQueryResultCachedAudio
    sticker = decoder.convert(
        T.InlineQueryResult, {"type": "sticker", "id": "4", "sticker_file_id": "CAAD"}
    )
    assert type(sticker) is T.InlineQueryResultCachedSticker
    unknown = decoder.convert(T.InlineQueryResult, {"type": "hologram", "id": "5"})
    assert type(unknown) is T.InlineQueryResult
    assert unknown._extra == {"type": "hologram", "id": "5"}
    # a known variant with a wrong field reports the path inside it
    err = decode_error(
        decoder.convert, T.InlineQueryResult, {"type": "photo", "id": 2, "photo_file_id": "A"}
    )
    assert str(err) == "$.id: expected str, got int"


# --- errors ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"update_id": 1, "message": {**MESSAGE, "chat": {"id": "42", "type": "private"}}},
            "$.message.chat.id: expected int, got str",
        ),
        ({}, "$.update_id: missing required field"),
        ({"message": MESSAGE}, "$.update_id: missing required field"),
        ({"update_id": None}, "$.update_id: expected int, got null"),
        ({"update_id": "1"}, "$.update_id: expected int, got str"),
        ({"update_id": 1.0}, "$.update_id: expected int, got float"),
        ({"update_id": True}, "$.update_id: expected int, got bool"),
        ({"update_id": [1]}, "$.update_id: expected int, got array"),
        ({"update_id": {}}, "$.update_id: expected int, got object"),
        ({"update_id": 1, "message": []}, "$.message: expected object, got array"),
        (
            {"update_id": 1, "message": {"message_id": 1, "date": 1}},
            "$.message.chat: missing required field",
        ),
        (
            {"update_id": 1, "message": {**MESSAGE, "chat": None}},
            "$.message.chat: expected object, got null",
        ),
        (
            {
                "update_id": 1,
                "message": {**MESSAGE, "entities": [{"type": "bold", "offset": 0, "length": "3"}]},
            },
            "$.message.entities[0].length: expected int, got str",
        ),
        (
            {
                "update_id": 1,
                "message": {
                    **MESSAGE,
                    "entities": [
                        {"type": "bold", "offset": 0, "length": 1},
                        {"type": "bold", "offset": 1},
                    ],
                },
            },
            "$.message.entities[1].length: missing required field",
        ),
        (
            {"update_id": 1, "message": {**MESSAGE, "entities": {"type": "bold"}}},
            "$.message.entities: expected array, got object",
        ),
        (
            {"update_id": 1, "message": {**MESSAGE, "entities": [None]}},
            "$.message.entities[0]: expected object, got null",
        ),
        (
            {
                "update_id": 1,
                "message": {
                    **MESSAGE,
                    "reply_markup": {
                        "inline_keyboard": [[{"text": "a"}], [{"text": "b"}, {"text": 2}]]
                    },
                },
            },
            "$.message.reply_markup.inline_keyboard[1][1].text: expected str, got int",
        ),
        (
            {
                "update_id": 1,
                "message": {**MESSAGE, "from": {"id": 1, "is_bot": 0, "first_name": "x"}},
            },
            "$.message.from.is_bot: expected bool, got int",
        ),
        (
            {"update_id": 1, "message": {**MESSAGE, "location": {"latitude": "1", "longitude": 2}}},
            "$.message.location.latitude: expected float, got str",
        ),
        (
            {"update_id": 1, "message": {**MESSAGE, "forward_origin": "user"}},
            "$.message.forward_origin: expected object, got str",
        ),
        (
            {
                "update_id": 1,
                "message": {
                    **MESSAGE,
                    "forward_origin": {"type": "user", "date": 1, "sender_user": {"id": 1}},
                },
            },
            "$.message.forward_origin.sender_user.is_bot: missing required field",
        ),
        ({"update_id": 2**63}, "$.update_id: integer out of 64-bit range"),
        ({"update_id": 2**64 - 1}, "$.update_id: integer out of 64-bit range"),
    ],
)
def test_error_paths(decoder: ModuleType, data: dict[str, Any], message: str) -> None:
    err = decode_error(decoder.decode_update, body(data))
    assert str(err) == message
    path, reason = message.split(": ", 1)
    assert err.path == path
    assert err.reason == reason
    # convert() on the parsed value reports the very same error
    assert str(decode_error(decoder.convert, T.Update, data)) == message


def test_int_or_str_field(decoder: ModuleType) -> None:
    for chat_id in (-1001234567890, "@channel"):
        scope = decoder.convert(T.BotCommandScope, {"type": "chat", "chat_id": chat_id})
        assert type(scope) is T.BotCommandScopeChat
        assert scope.chat_id == chat_id and type(scope.chat_id) is type(chat_id)
    err = decode_error(decoder.convert, T.BotCommandScope, {"type": "chat", "chat_id": 1.5})
    assert str(err) == "$.chat_id: expected int or str, got float"
    err = decode_error(decoder.convert, T.ReplyParameters, {"message_id": 1, "chat_id": 2**63})
    assert str(err) == "$.chat_id: integer out of 64-bit range"
    err = decode_error(decoder.convert, T.ReplyParameters, {"message_id": 1, "chat_id": True})
    assert str(err) == "$.chat_id: expected int or str, got bool"
    assert decoder.decode("int|str", b"5") == 5
    assert decoder.decode("int|str", b'"@chan"') == "@chan"
    assert (
        str(decode_error(decoder.decode, "int|str", b"5.5")) == "$: expected int or str, got float"
    )
    assert (
        str(decode_error(decoder.decode, "int|str", b"18446744073709551615"))
        == "$: integer out of 64-bit range"
    )


def test_integers_beyond_64_bits(decoder: ModuleType) -> None:
    # beyond 2**64 orjson gives a float: wrong type
    err = decode_error(decoder.decode_update, b'{"update_id": 18446744073709551621}')
    assert str(err) == "$.update_id: expected int, got float"
    err = decode_error(decoder.decode_update, b'{"update_id": -9223372036854775809}')
    assert str(err) == "$.update_id: expected int, got float"
    # between 2**63 and 2**64 orjson gives an int that is out of range
    err = decode_error(decoder.decode_update, b'{"update_id": 9223372036854775808}')
    assert str(err) == "$.update_id: integer out of 64-bit range"
    assert err.reason == "integer out of 64-bit range" and err.path == "$.update_id"
    err = decode_error(decoder.decode, list[int], b"[1, 2, 12345678901234567890]")
    assert str(err) == "$[2]: integer out of 64-bit range"
    # convert() sees Python ints of any size
    for value in (2**63, -(2**63) - 1, 10**30):
        err = decode_error(decoder.convert, T.Update, {"update_id": value})
        assert str(err) == "$.update_id: integer out of 64-bit range"
    assert (
        str(decode_error(decoder.convert, "[int]", [0, -(2**200)]))
        == "$[1]: integer out of 64-bit range"
    )


@pytest.mark.parametrize(
    "data",
    [
        b'{"update_id": 1, "x": "\xff\xfe"}',  # invalid UTF-8
        b'{"update_id": 1, "message": {"message_id": 1',  # truncated
        b'{"update_id": 1,}',
        b"{update_id: 1}",
        b'{"update_id": NaN}',
        b"",
        b"   ",
        b"[" * 10_000 + b"]" * 10_000,
        b'{"update_id": 1, "x": ' + b"[" * 10_000 + b"]" * 10_000 + b"}",
        b'{"update_id": 1, "message": {"message_id": 1, "date": 1, "chat": {"id": 1, "type": "private"}, "text": '
        + b"[" * 10_000
        + b"]" * 10_000
        + b"}}",
    ],
    ids=[
        "invalid-utf8",
        "truncated",
        "trailing-comma",
        "bare-key",
        "nan",
        "empty",
        "blank",
        "deep-top-level",
        "deep-unknown-field",
        "deep-known-field",
    ],
)
def test_invalid_json(decoder: ModuleType, data: bytes) -> None:
    err = decode_error(decoder.decode_update, data)
    assert err.path == "$"
    assert err.reason.startswith("invalid JSON: ")
    assert str(err) == "$: " + err.reason


def test_top_level_must_be_an_object(decoder: ModuleType) -> None:
    for data, got in (
        (b"[]", "array"),
        (b"1", "int"),
        (b'"x"', "str"),
        (b"null", "null"),
        (b"true", "bool"),
        (b"1.5", "float"),
    ):
        assert str(decode_error(decoder.decode_update, data)) == f"$: expected object, got {got}"


def _reply_chain(depth: int) -> bytes:
    text = b'{"message_id": 0, "date": 1, "chat": {"id": 1, "type": "private"}}'
    for i in range(1, depth):
        text = (
            b'{"message_id": %d, "date": 1, "chat": {"id": 1, "type": "private"}, "reply_to_message": %s}'
            % (i, text)
        )
    return text


@pytest.mark.parametrize("depth", [400, 1000])
def test_deep_nesting_within_the_json_depth_limit(decoder: ModuleType, depth: int) -> None:
    """JSON orjson accepts (nesting < 1024) must decode, or fail as a DecodeError.

    A ``reply_to_message`` chain nests one JSON object per message; ``RichText``
    nests arrays of itself. Neither may escape as a RecursionError.
    """
    data = _reply_chain(depth)
    assert orjson.loads(data)  # within orjson's limit
    msg = decoder.decode(T.Message, data)
    n = 0
    while msg.reply_to_message is not None:  # walked iteratively: == would recurse
        msg = msg.reply_to_message
        n += 1
    assert n == depth - 1
    assert msg.message_id == 0

    rich = decoder.decode(T.RichText, b"[" * depth + b'"x"' + b"]" * depth)
    for _ in range(depth):
        assert type(rich) is list and len(rich) == 1
        rich = rich[0]
    assert rich == "x"


# --- size limit -----------------------------------------------------------------


def test_ten_megabyte_input(decoder: ModuleType) -> None:
    text = "x" * (10 * 1024 * 1024)
    data = with_message(text=text)
    assert decoder.DEFAULT_MAX_SIZE == 8 * 1024 * 1024
    err = decode_error(decoder.decode_update, data)
    assert err.path == "$"
    assert err.reason == f"input too large ({len(data)} > max_size={8 * 1024 * 1024})"
    assert str(err).startswith("$: input too large (")
    assert decoder.decode_update(data, max_size=None).message.text == text
    assert decoder.decode_update(data, max_size=len(data)).message.text == text
    err = decode_error(decoder.decode_update, data, max_size=len(data) - 1)
    assert err.reason == f"input too large ({len(data)} > max_size={len(data) - 1})"
    # the limit is checked before parsing: even broken JSON gets the size error
    err = decode_error(decoder.decode, T.Message, b"{" * 100, max_size=10)
    assert err.reason == "input too large (100 > max_size=10)"
    err = decode_error(decoder.decode_updates, b"[" + b" " * 20 + b"]", max_size=5)
    assert err.reason == "input too large (22 > max_size=5)"


def test_default_max_size_is_shared() -> None:
    assert tgfast.decoding.DEFAULT_MAX_SIZE == pure.DEFAULT_MAX_SIZE == 8 * 1024 * 1024


# --- the entry points -----------------------------------------------------------


def test_decode_updates(decoder: ModuleType) -> None:
    data = body([PRIVATE_START, SUPERGROUP_PHOTO, {"update_id": 735003, "some_future_kind": {}}])
    updates = decoder.decode_updates(data)
    assert type(updates) is list
    assert [u.update_id for u in updates] == [735001, 735002, 735003]
    assert updates[0] == decoder.decode_update(body(PRIVATE_START))
    assert updates[1].message.photo[0].width == 90
    assert updates[2]._extra == {"some_future_kind": {}}
    assert decoder.decode_updates(b"[]") == []
    assert decoder.decode(list[T.Update], data) == updates
    assert decoder.decode("[Update]", data) == updates
    assert decoder.convert(list[T.Update], orjson.loads(data)) == updates
    err = decode_error(decoder.decode_updates, body([PRIVATE_START, {"message": MESSAGE}]))
    assert str(err) == "$[1].update_id: missing required field"
    err = decode_error(decoder.decode_updates, body({"ok": True, "result": []}))
    assert str(err) == "$: expected array, got object"


def test_decode_types(decoder: ModuleType) -> None:
    assert decoder.decode(int, b"5") == 5
    assert decoder.decode(str, b'"five"') == "five"
    assert decoder.decode(bool, b"false") is False
    assert decoder.decode(list[int], b"[1, 2, 3]") == [1, 2, 3]
    assert decoder.decode(list[list[str]], b'[["a"], []]') == [["a"], []]
    assert decoder.decode("Message|bool", b"true") is True
    sent = decoder.decode("Message|bool", body(MESSAGE))
    assert type(sent) is T.Message and sent.message_id == 7
    assert (
        str(decode_error(decoder.decode, "Message|bool", b"1"))
        == "$: expected object or bool, got int"
    )
    assert str(decode_error(decoder.decode, int, b'"5"')) == "$: expected int, got str"
    assert str(decode_error(decoder.decode, bool, b"1")) == "$: expected bool, got int"
    assert str(decode_error(decoder.decode, str, b"null")) == "$: expected str, got null"
    assert (
        str(decode_error(decoder.decode, list[int], b"[1, null]")) == "$[1]: expected int, got null"
    )
    user = decoder.decode(T.User, body(ANN))
    assert user == T.User(**ANN)
    assert decoder.convert(T.User, ANN) == user
    assert decoder.convert(int, 5) == 5


def test_input_kinds(decoder: ModuleType) -> None:
    data = body(SUPERGROUP_PHOTO)
    expected = decoder.decode_update(data)
    assert decoder.decode_update(bytearray(data)) == expected
    assert decoder.decode_update(memoryview(data)) == expected
    assert decoder.decode_update(data.decode()) == expected
    assert decoder.decode(T.Update, memoryview(bytearray(data))) == expected
    assert decoder.decode_updates(memoryview(b"[" + data + b"]")) == [expected]
    assert decoder.decode(int, "7") == 7


@pytest.mark.parametrize("bad", [None, 5, 1.5, {"update_id": 1}, [b"{}"], object()])
def test_non_bytes_input_is_a_type_error(decoder: ModuleType, bad: Any) -> None:
    with pytest.raises(TypeError):
        decoder.decode_update(bad)
    with pytest.raises(TypeError):
        decoder.decode_updates(bad)
    with pytest.raises(TypeError):
        decoder.decode(T.Update, bad)


def test_unsupported_target_type_is_a_type_error(decoder: ModuleType) -> None:
    for tp in (dict, object, tuple[int], type(None), 5):
        with pytest.raises(TypeError):
            decoder.decode(tp, b"{}")
        with pytest.raises(TypeError):
            decoder.convert(tp, {})


def test_public_api_uses_the_active_build() -> None:
    module = tgfast.decoding.decode_update.__module__
    assert module.startswith("tgfast._speedups._decode")
    active = module.rsplit(".", 1)[1]
    assert active == ("_decode" if tgfast.__speedups__ else "_decode_py")
    import tgfast._speedups as speedups

    impl = getattr(speedups, active)
    for name in ("decode_update", "decode_updates", "decode", "convert"):
        assert getattr(tgfast, name) is getattr(impl, name)
    assert tgfast.decode_update(body(PRIVATE_START)).message.text == "/start"


# --- the error type -------------------------------------------------------------


def test_decode_error_type_and_pickling(decoder: ModuleType) -> None:
    err = decode_error(decoder.decode_update, b'{"update_id": 1, "message": {"message_id": "x"}}')
    assert isinstance(err, TgfastError)
    assert isinstance(err, ValueError)
    assert type(err) is tgfast.DecodeError
    assert err.path == "$.message.message_id"
    assert err.reason == "expected int, got str"
    assert err.args == ("$.message.message_id: expected int, got str",)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        again = pickle.loads(pickle.dumps(err, protocol=protocol))
        assert type(again) is DecodeError
        assert (again.path, again.reason, str(again)) == (err.path, err.reason, str(err))
    # raised from None: the internal path error is not chained
    assert err.__cause__ is None and err.__suppress_context__
    assert issubclass(DecodeError, TgfastError) and issubclass(TgfastError, Exception)
    assert DecodeError("bad").path == "$" and str(DecodeError("bad")) == "$: bad"
