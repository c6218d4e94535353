"""Every shortcut aiogram's types have, tgfast's have: same name, the parameter names
aiogram accepts, and the same Bot API call.

The shortcuts are found in aiogram itself (every public method of an ``aiogram.types``
class whose return annotation names an ``aiogram.methods`` class), so a new aiogram
release shows here what tgfast lacks. Each is called on an aiogram object and on a
tgfast object decoded from the same JSON, with the same arguments; the parameters of
aiogram's method object (its ``Default`` sentinels left for the bot, as tgfast's
``DEFAULT``) must equal the tgfast method object's ``to_dict()``.
"""

from __future__ import annotations

import inspect
import re
from enum import Enum
from typing import Any

import aiogram.methods
import aiogram.types
import pytest
from aiogram.client.default import Default as AiogramDefault
from aiogram.types import BufferedInputFile as AiogramBufferedInputFile

import tgfast
import tgfast.types
from tgfast.methods import TelegramMethod
from tgfast.types import BufferedInputFile

USER = {"id": 7, "is_bot": False, "first_name": "Ann", "username": "ann"}
GROUP = {"id": -1001, "type": "supergroup", "title": "Group"}
DATE = 1_700_000_000

# one object of each type that has shortcuts, every field a shortcut reads set
OBJECTS: dict[str, dict[str, Any]] = {
    "Message": {
        "message_id": 11,
        "date": DATE,
        "chat": GROUP,
        "from": USER,
        "text": "hello",
        "message_thread_id": 3,
        "is_topic_message": True,
        "business_connection_id": "bc-1",
        "guest_query_id": "gq-1",
        "effect_id": "eff-1",
        "ephemeral_message_id": 21,
        "receiver_user": {**USER, "id": 9},
    },
    "InaccessibleMessage": {"chat": GROUP, "message_id": 12, "date": 0},
    "CallbackQuery": {"id": "cq-1", "from": USER, "chat_instance": "ci"},
    "InlineQuery": {"id": "iq-1", "from": USER, "query": "q", "offset": ""},
    "ChatJoinRequest": {
        "chat": GROUP,
        "from": USER,
        "user_chat_id": 70,
        "date": DATE,
        "query_id": "jq-1",
    },
    "ChatMemberUpdated": {
        "chat": GROUP,
        "from": USER,
        "date": DATE,
        "old_chat_member": {"status": "left", "user": USER},
        "new_chat_member": {"status": "member", "user": USER},
    },
    "Chat": GROUP,
    "User": USER,
    "PreCheckoutQuery": {
        "id": "pq-1",
        "from": USER,
        "currency": "XTR",
        "total_amount": 5,
        "invoice_payload": "p",
    },
    "ShippingQuery": {
        "id": "sq-1",
        "from": USER,
        "invoice_payload": "p",
        "shipping_address": {
            "country_code": "DE",
            "state": "",
            "city": "Berlin",
            "street_line1": "A",
            "street_line2": "",
            "post_code": "1",
        },
    },
    "Sticker": {
        "file_id": "st-1",
        "file_unique_id": "u",
        "type": "regular",
        "width": 1,
        "height": 1,
        "is_animated": False,
        "is_video": False,
    },
}

KEYBOARD = {"inline_keyboard": [[{"text": "b", "callback_data": "d"}]]}
ARTICLE = {
    "type": "article",
    "id": "1",
    "title": "t",
    "input_message_content": {"message_text": "x"},
}
# a value for each parameter a shortcut needs, by name (and by method where names clash)
VALUES: dict[str, Any] = {
    "text": "hi",
    "caption": "cap",
    "photo": "file-photo",
    "audio": "file-audio",
    "document": "file-doc",
    "video": "file-video",
    "animation": "file-anim",
    "voice": "file-voice",
    "video_note": "file-vn",
    "sticker": "file-sticker",
    "live_photo": "file-live",
    "phone_number": "+100",
    "first_name": "Bob",
    "latitude": 1.5,
    "longitude": 2.5,
    "title": "Title",
    "address": "Street 1",
    "question": "Q?",
    "options": [{"text": "a"}, {"text": "b"}],
    "game_short_name": "game",
    "description": "desc",
    "payload": "pay",
    "currency": "XTR",
    "prices": [{"label": "x", "amount": 1}],
    "star_count": 5,
    "rich_message": {"html": "<b>x</b>"},
    "chat_id": 42,
    "user_id": 8,
    "sender_chat_id": -1002,
    "message_id": 4,
    "action": "typing",
    "permissions": {"can_send_messages": True},
    "results": [ARTICLE],
    "ok": True,
    "web_app_url": "https://example.org/app",
    "invite_link": "https://t.me/+abc",
    "sticker_set_name": "set",
    "custom_title": "boss",
    "position": 1,
}
BY_METHOD: dict[tuple[str, str], Any] = {
    ("sendMediaGroup", "media"): [
        {"type": "photo", "media": "a"},
        {"type": "photo", "media": "b"},
    ],
    ("sendPaidMedia", "media"): [{"type": "photo", "media": "a"}],
    ("editMessageMedia", "media"): {"type": "photo", "media": "a"},
    ("editEphemeralMessageMedia", "media"): {"type": "photo", "media": "a"},
    ("answerGuestQuery", "result"): ARTICLE,
    ("answerChatJoinRequestQuery", "result"): "accepted",
}
# an upload: each side gets its own file class; compared by what it carries
UPLOADS: dict[tuple[str, str], tuple[Any, Any]] = {
    ("setChatPhoto", "photo"): (
        AiogramBufferedInputFile(b"img", "a.png"),
        BufferedInputFile(b"img", "a.png"),
    ),
}
# optional parameters passed too wherever both sides take them: they must map alike
OPTIONAL: dict[str, Any] = {
    "disable_notification": True,
    "protect_content": True,
    "parse_mode": "HTML",
    "caption": "cap",
    "reply_markup": KEYBOARD,
    "message_effect_id": "eff-2",
    "show_alert": True,
    "cache_time": 5,
    "is_big": True,
    "until_date": 1_800_000_000,
    "name": "link",
    "error_message": "no",
}

# aiogram parameter names tgfast's shortcuts do not take, and why
PARAM_GAPS: dict[str, str] = {}
# (method, parameter) aiogram fills in from the object that tgfast's method lacks
_NOT_IN_API = "aiogram's shortcut passes it; the Bot API 10.3 method has no such parameter"
BOUND_GAPS: dict[tuple[str, str], str] = {
    ("deleteMessage", "business_connection_id"): _NOT_IN_API,
    ("setMessageReaction", "business_connection_id"): _NOT_IN_API,
    ("sendInvoice", "business_connection_id"): _NOT_IN_API,
}
# aiogram shortcuts tgfast lacks, and why
SHORTCUT_GAPS: dict[str, str] = {}

_METHOD_NAMES = set(aiogram.methods.__all__) - {"TelegramMethod", "Request", "Response"}


def _returns_method(fn: Any) -> bool:
    ann = inspect.signature(fn).return_annotation
    text = ann if isinstance(ann, str) else getattr(ann, "__name__", "")
    return any(word in _METHOD_NAMES for word in re.findall(r"\w+", text))


def aiogram_shortcuts() -> list[str]:
    """``Owner.name`` of every shortcut of aiogram's types."""
    found = []
    for owner in aiogram.types.__all__:
        cls = getattr(aiogram.types, owner)
        if not inspect.isclass(cls):
            continue
        for name, fn in vars(cls).items():
            if not name.startswith("_") and inspect.isfunction(fn) and _returns_method(fn):
                found.append(f"{owner}.{name}")
    return sorted(found)


SHORTCUTS = aiogram_shortcuts()


def _params(fn: Any) -> dict[str, inspect.Parameter]:
    return {
        name: p
        for name, p in inspect.signature(fn).parameters.items()
        if name != "self" and p.kind is not inspect.Parameter.VAR_KEYWORD
    }


def _plain(value: Any) -> Any:
    """aiogram's dumped value as JSON would carry it; a ``Default`` left for the bot."""
    if isinstance(value, dict):
        return {
            k: _plain(v)
            for k, v in value.items()
            if v is not None and not isinstance(v, AiogramDefault)
        }
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, Enum):
        return value.value
    return value


def _objects(owner: str) -> tuple[Any, Any]:
    data = OBJECTS[owner]
    theirs = getattr(aiogram.types, owner).model_validate(data)
    ours = tgfast.convert(getattr(tgfast.types, owner), data)
    return theirs, ours


def test_the_introspection_finds_the_shortcuts() -> None:
    """Guards the finder: aiogram's best-known shortcuts are among those found."""
    for known in ("Message.answer", "Message.send_copy", "CallbackQuery.answer", "Chat.ban"):
        assert known in SHORTCUTS
    assert len(SHORTCUTS) > 150


def test_objects_cover_every_owner() -> None:
    assert {s.split(".")[0] for s in SHORTCUTS} <= set(OBJECTS)


@pytest.mark.parametrize("shortcut", SHORTCUTS)
def test_tgfast_has_the_shortcut_and_its_parameters(shortcut: str) -> None:
    owner, name = shortcut.split(".")
    ours = getattr(getattr(tgfast.types, owner), name, None)
    if shortcut in SHORTCUT_GAPS:
        assert ours is None, f"{shortcut} exists now: drop it from SHORTCUT_GAPS"
        return
    assert ours is not None, f"tgfast.types.{owner} has no {name}()"
    theirs = _params(getattr(getattr(aiogram.types, owner), name))
    mine = _params(ours)
    missing = set(theirs) - set(mine) - set(PARAM_GAPS)
    assert not missing, f"{shortcut} does not take {sorted(missing)}"
    # what aiogram requires comes first, in the same order, and may be passed by position
    required = [n for n, p in theirs.items() if p.default is inspect.Parameter.empty]
    positional = [n for n, p in mine.items() if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    assert positional[: len(required)] == required
    assert all(mine[n].default is inspect.Parameter.empty for n in required)


def _arguments(shortcut: str, method: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The arguments for aiogram's shortcut and for tgfast's."""
    owner, name = shortcut.split(".")
    theirs = _params(getattr(getattr(aiogram.types, owner), name))
    mine = _params(getattr(getattr(tgfast.types, owner), name))
    args, uploads = {}, {}
    for param, p in mine.items():
        if (method, param) in UPLOADS:
            uploads[param] = UPLOADS[method, param]
        elif p.default is inspect.Parameter.empty:
            args[param] = BY_METHOD.get((method, param), VALUES.get(param))
            assert args[param] is not None, f"no sample value for {method}.{param}"
        elif param in OPTIONAL and param in theirs:
            args[param] = OPTIONAL[param]
    return (
        {**args, **{k: v[0] for k, v in uploads.items()}},
        {**args, **{k: v[1] for k, v in uploads.items()}},
    )


def _calls() -> list[str]:
    return [s for s in SHORTCUTS if s not in SHORTCUT_GAPS and s != "Message.send_copy"]


def _uploaded(value: Any) -> Any:
    """What a file to upload carries, whichever library's class holds it."""
    if isinstance(value, (AiogramBufferedInputFile, BufferedInputFile)):
        return ("upload", value.filename, value.data)
    return value


@pytest.mark.parametrize("shortcut", _calls())
def test_the_same_call_as_aiogram(shortcut: str) -> None:
    owner, name = shortcut.split(".")
    theirs_obj, ours_obj = _objects(owner)
    ours = getattr(ours_obj, name)
    # the method the tgfast shortcut makes, to pick arguments by; then both with them
    api_method = _method_of(ours)
    their_args, my_args = _arguments(shortcut, api_method)
    mine = ours(**my_args)
    theirs = getattr(theirs_obj, name)(**their_args)
    assert isinstance(mine, TelegramMethod)
    assert mine.__api_method__ == theirs.__api_method__ == api_method
    expected = _plain(theirs.model_dump(by_alias=True))
    for (method, param), _why in BOUND_GAPS.items():
        if method == api_method:
            expected.pop(param, None)
    got = {**mine.to_dict(), **{k: mine.build()[k] for k in my_args if (api_method, k) in UPLOADS}}
    assert {k: _uploaded(v) for k, v in got.items()} == {
        k: _uploaded(v) for k, v in expected.items()
    }


def _method_of(shortcut: Any) -> str:
    ann = inspect.signature(shortcut).return_annotation
    cls = getattr(tgfast.methods, ann if isinstance(ann, str) else ann.__name__)
    api: str = cls.__api_method__
    return api


# -- send_copy: the method is picked by the content ---------------------------------------

FILE = {"file_id": "f-1", "file_unique_id": "u-1"}
CONTENTS: dict[str, dict[str, Any]] = {
    "text": {"text": "hello", "entities": [{"type": "bold", "offset": 0, "length": 5}]},
    "photo": {
        "photo": [
            {**FILE, "width": 1, "height": 1},
            {**FILE, "file_id": "big", "width": 9, "height": 9},
        ],
        "caption": "pic",
        "caption_entities": [{"type": "italic", "offset": 0, "length": 3}],
    },
    "audio": {"audio": {**FILE, "duration": 3, "title": "song", "performer": "me"}},
    "animation": {"animation": {**FILE, "width": 1, "height": 1, "duration": 1}, "caption": "gif"},
    "document": {"document": FILE, "caption": "doc"},
    "video": {"video": {**FILE, "width": 1, "height": 1, "duration": 1}},
    "video_note": {"video_note": {**FILE, "length": 1, "duration": 1}},
    "sticker": {
        "sticker": {
            **FILE,
            "type": "regular",
            "width": 1,
            "height": 1,
            "is_animated": False,
            "is_video": False,
        }
    },
    "contact": {"contact": {"phone_number": "+1", "first_name": "A", "last_name": "B"}},
    "location": {"location": {"latitude": 1.0, "longitude": 2.0}},
    "venue": {
        "venue": {"location": {"latitude": 1.0, "longitude": 2.0}, "title": "T", "address": "A"}
    },
}
# where tgfast's copy differs from aiogram's on purpose (test_send_copy_keeps_...):
# a voice keeps its caption and a dice its emoji (aiogram drops both); a poll's options
# carry no voter_count (not a field of InputPollOption; aiogram sends it); parse_mode
# goes only to methods that have it (aiogram also sends it with a sticker, a contact...)


def _message(content: dict[str, Any]) -> dict[str, Any]:
    base = {k: v for k, v in OBJECTS["Message"].items() if k != "text"}
    return {**base, "reply_markup": KEYBOARD, **content}


@pytest.mark.parametrize("content", sorted(CONTENTS))
@pytest.mark.parametrize(
    "args",
    [
        {},
        {"message_thread_id": 5, "disable_notification": True, "parse_mode": "HTML"},
        {"reply_to_message_id": 9, "allow_sending_without_reply": True},
    ],
    ids=["plain", "options", "old-reply"],
)
def test_send_copy_as_aiogram(content: str, args: dict[str, Any]) -> None:
    data = _message(CONTENTS[content])
    theirs = aiogram.types.Message.model_validate(data).send_copy(42, **args)
    mine = tgfast.convert(tgfast.types.Message, data).send_copy(42, **args)
    assert mine.__api_method__ == theirs.__api_method__
    expected = _plain(theirs.model_dump(by_alias=True))
    if not any(attr == "parse_mode" for _k, attr, _t, _r in mine.__tg_fields__):
        expected.pop("parse_mode", None)  # not a parameter of this method: Telegram ignores it
    assert mine.to_dict() == expected


def test_send_copy_keeps_what_aiogram_drops() -> None:
    voice = {"voice": {**FILE, "duration": 1}, "caption": "said"}
    copied = tgfast.convert(tgfast.types.Message, _message(voice)).send_copy(42)
    assert copied.__api_method__ == "sendVoice" and copied.to_dict()["caption"] == "said"
    dart = {"dice": {"emoji": "🎯", "value": 6}}
    copied = tgfast.convert(tgfast.types.Message, _message(dart)).send_copy(42)
    assert copied.to_dict() == {
        "chat_id": 42,
        "emoji": "🎯",
        "reply_markup": KEYBOARD,
        "message_effect_id": "eff-1",
    }
    poll = {
        "poll": {
            "id": "p",
            "question": "Q?",
            "options": [
                {"persistent_id": "1", "text": "a", "voter_count": 3},
                {"persistent_id": "2", "text": "b", "voter_count": 0},
            ],
            "total_voter_count": 3,
            "is_closed": False,
            "is_anonymous": True,
            "type": "regular",
            "allows_multiple_answers": False,
            "allows_revoting": False,
            "members_only": False,
        }
    }
    copied = tgfast.convert(tgfast.types.Message, _message(poll)).send_copy(42)
    assert copied.to_dict()["options"] == [{"text": "a"}, {"text": "b"}]


def test_send_copy_of_a_live_photo_replies_by_reply_parameters() -> None:
    """sendLivePhoto never had ``reply_to_message_id``: the old name becomes the new form."""
    live = {
        "live_photo": {**FILE, "width": 1, "height": 1, "duration": 1},
        "photo": [{**FILE, "file_id": "still", "width": 1, "height": 1}],
    }
    message = tgfast.convert(tgfast.types.Message, _message(live))
    copied = message.send_copy(42, reply_to_message_id=9, allow_sending_without_reply=True)
    assert copied.__api_method__ == "sendLivePhoto"
    assert copied.to_dict()["reply_parameters"] == {
        "message_id": 9,
        "allow_sending_without_reply": True,
    }
    assert "reply_to_message_id" not in copied.to_dict()


def test_send_copy_of_a_service_message_is_a_type_error() -> None:
    joined = tgfast.convert(tgfast.types.Message, _message({"new_chat_members": [USER]}))
    with pytest.raises(TypeError, match="This type of message can't be copied"):
        joined.send_copy(42)


def test_the_known_gaps_are_still_gaps() -> None:
    """Each entry names something aiogram has and tgfast lacks, so the lists stay true."""
    for shortcut in SHORTCUT_GAPS:
        assert shortcut in SHORTCUTS
    taken_by_aiogram = {
        name
        for s in SHORTCUTS
        for name in _params(getattr(getattr(aiogram.types, s.split(".")[0]), s.split(".")[1]))
    }
    taken_by_tgfast = {
        name
        for s in _calls()
        for name in _params(getattr(getattr(tgfast.types, s.split(".")[0]), s.split(".")[1]))
    }
    for param in PARAM_GAPS:
        assert param in taken_by_aiogram and param not in taken_by_tgfast, param
    for method, param in BOUND_GAPS:
        cls = next(c for c in tgfast.methods.METHOD_CLASSES.values() if c.__api_method__ == method)
        assert param not in {key for key, _a, _t, _r in cls.__tg_fields__}, (method, param)
