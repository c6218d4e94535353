"""The model helpers and dates of aiogram's types, compared with aiogram 3 itself.

Every comparison feeds the same Telegram JSON to aiogram's pydantic models and to tgfast's
decoders (both, through the ``decoder`` fixture) and checks that what a bot reads is
the same: dates as aware UTC datetimes, ``model_dump`` keys and values, the computed
properties (``full_name``, ``content_type``, mentions), constant fields' defaults.
"""

from __future__ import annotations

import inspect
import json
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import ModuleType
from typing import Any

import aiogram
import aiogram.methods as ai_methods
import aiogram.types as ai
import orjson
import pytest
from aiogram.client.default import DefaultBotProperties as AiogramDefaults
from aiogram.client.session.aiohttp import AiohttpSession as AiogramSession
from aiogram.client.telegram import TelegramAPIServer as AiogramServer
from pydantic import BaseModel

import tgfast.methods as tg_methods
from tgfast import Bot, DecodeError, DefaultBotProperties, Dispatcher, F, Router
from tgfast.filters.magic import MagicFilter
from tgfast.methods import BanChatMember, SendMessage
from tgfast.testing import FakeTelegram, updates
from tgfast.types import _types as tg
from tgfast.types.base import TelegramObject
from tgfast.types.helpers import UpdateTypeLookupError

DATES = json.loads(
    (Path(__file__).parents[1] / "tools/codegen/overrides/dates.json").read_text("utf-8")
)
UTC = timezone.utc

ANN = {"id": 11, "is_bot": False, "first_name": "Ann", "last_name": "Lee", "username": "ann"}
CHAT = {"id": -100, "type": "supergroup", "title": "Ops"}
MESSAGE: dict[str, Any] = {
    "message_id": 7,
    "from": ANN,
    "chat": CHAT,
    "date": 1718000000,
    "edit_date": 1718000100,
    "text": "hello *there*",
    "entities": [{"type": "bold", "offset": 6, "length": 7}],
    "forward_origin": {"type": "user", "date": 1717990000, "sender_user": ANN},
    "reply_markup": {"inline_keyboard": [[{"text": "ok", "callback_data": "ok"}]]},
    "x_unknown_field": {"kept": [1, 2]},
}
MEMBER_UPDATE: dict[str, Any] = {
    "chat": CHAT,
    "from": ANN,
    "date": 1718000200,
    "old_chat_member": {"status": "member", "user": ANN},
    "new_chat_member": {
        "status": "kicked",
        "user": ANN,
        "until_date": 1718600000,
    },
    "invite_link": {
        "invite_link": "https://t.me/+abc",
        "creator": ANN,
        "creates_join_request": False,
        "is_primary": False,
        "is_revoked": False,
        "expire_date": 1719000000,
    },
}
POLL: dict[str, Any] = {
    "id": "p1",
    "question": "?",
    "options": [{"persistent_id": "a", "text": "a", "voter_count": 1}],
    "total_voter_count": 1,
    "is_closed": False,
    "is_anonymous": True,
    "type": "regular",
    "allows_multiple_answers": False,
    "allows_revoting": False,
    "members_only": False,
    "close_date": 1718003600,
}


def both(cls_name: str, data: dict[str, Any], decoder: ModuleType) -> tuple[Any, Any]:
    """The same JSON through aiogram's model and through tgfast's decoder."""
    return getattr(ai, cls_name).model_validate(data), decoder.convert(getattr(tg, cls_name), data)


def _aiogram_date_fields(module: ModuleType) -> set[str]:
    out = set()
    for name in dir(module):
        cls = getattr(module, name)
        if inspect.isclass(cls) and issubclass(cls, BaseModel):
            for field_name, info in cls.model_fields.items():
                if "datetime" in repr(info.annotation):
                    out.add(f"{name}.{info.alias or field_name}")
    return out


def _tgfast_date_fields() -> set[str]:
    out = {
        f"{cls.__name__}.{key}"
        for cls in vars(tg).values()
        if isinstance(cls, type) and issubclass(cls, TelegramObject)
        for key, _attr, tp, _req in cls.__dict__.get("__tg_fields__", ())
        if tp == "date"
    }
    for name, desc in tg_methods.METHODS.items():
        out.update(f"{name[0].upper()}{name[1:]}.{p.name}" for p in desc.params if p.type == "date")
    return out


def _exists_in_tgfast(ref: str) -> bool:
    owner, _, key = ref.partition(".")
    cls = getattr(tg, owner, None) or getattr(tg_methods, owner, None)
    return cls is not None and any(row[0] == key for row in cls.__tg_fields__)


def _capitalized(ref: str) -> str:
    return ref[0].upper() + ref[1:]


# --- dates ---------------------------------------------------------------------------


def test_date_fields_are_aiogram_s() -> None:
    """Every field aiogram types as a datetime is a ``date`` here, but for the documented
    offsets and durations; and nothing else is."""
    theirs = _aiogram_date_fields(ai) | _aiogram_date_fields(ai_methods)
    excluded = {_capitalized(ref) for ref in DATES["not_dates"]}
    expected = {ref for ref in theirs if _exists_in_tgfast(ref)} - excluded
    assert expected, "aiogram's date fields were not found"
    assert _tgfast_date_fields() == expected
    assert excluded <= theirs  # each exclusion is one of aiogram's, argued in dates.json


def test_dates_decode_as_aiogram_s(decoder: ModuleType) -> None:
    theirs, ours = both("Message", MESSAGE, decoder)
    assert ours.date == theirs.date and ours.date.tzinfo is UTC
    assert ours.edit_date == theirs.edit_date == 1718000100  # an int in aiogram too
    assert ours.forward_origin.date == theirs.forward_origin.date
    theirs, ours = both("ChatMemberUpdated", MEMBER_UPDATE, decoder)
    assert ours.date == theirs.date
    assert ours.new_chat_member.until_date == theirs.new_chat_member.until_date
    assert ours.invite_link.expire_date == theirs.invite_link.expire_date
    theirs, ours = both("Poll", POLL, decoder)
    assert ours.close_date == theirs.close_date == datetime(2024, 6, 10, 7, 13, 20, tzinfo=UTC)


@pytest.mark.parametrize("unix", [0, 1, 86399, 951782400, 4107542400, 253402300799])
def test_dates_at_the_edges(decoder: ModuleType, unix: int) -> None:
    """Both decoders' datetimes agree with ``datetime.fromtimestamp`` (leap days, the
    last second a datetime holds), and give back the same int."""
    got = decoder.convert(tg.Poll, {**POLL, "close_date": unix})
    assert got.close_date == datetime.fromtimestamp(unix, UTC)
    assert got.to_dict()["close_date"] == unix
    # the one-entry cache answers the second time with the same value
    again = decoder.convert(tg.Poll, {**POLL, "close_date": unix})
    assert again.close_date == got.close_date


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (-1, "Unix time out of range"),
        (253402300800, "Unix time out of range"),
        (2**63, "Unix time out of range"),
        (2**80, "Unix time out of range"),
        ("1718000000", "expected int, got str"),
        (1718000000.5, "expected int, got float"),
        (True, "expected int, got bool"),
    ],
)
def test_bad_dates_are_decode_errors(decoder: ModuleType, value: Any, reason: str) -> None:
    origin = {"type": "hidden_user", "date": value, "sender_user_name": "Zed"}
    data = {"update_id": 1, "message": {**MESSAGE, "forward_origin": origin}}
    with pytest.raises(DecodeError) as info:
        decoder.convert(tg.Update, data)  # orjson has no JSON for 2**80: already parsed
    assert str(info.value).startswith("$.message.forward_origin.date: ")
    assert reason in str(info.value)


def test_to_dict_gives_the_unix_times_back(decoder: ModuleType) -> None:
    ours = decoder.convert(tg.ChatMemberUpdated, MEMBER_UPDATE)
    assert ours.to_dict() == MEMBER_UPDATE
    assert decoder.convert(tg.Message, MESSAGE).to_dict() == MESSAGE


def test_init_takes_a_unix_time_or_a_datetime() -> None:
    when = datetime(2024, 6, 10, tzinfo=UTC)
    chat = tg.Chat(id=1, type="private")
    assert tg.Message(message_id=1, date=int(when.timestamp()), chat=chat).date == when
    assert tg.Message(message_id=1, date=when, chat=chat).date is when
    assert tg.Message(message_id=1, date=0, chat=chat).to_dict()["date"] == 0


async def test_date_parameters_take_datetime_timedelta_and_int(
    fake: FakeTelegram, bot: Bot
) -> None:
    until = datetime(2030, 1, 1, tzinfo=UTC)
    await bot.restrict_chat_member(-100, 5, tg.ChatPermissions(), until_date=until)
    assert fake.calls[-1].params["until_date"] == int(until.timestamp())
    await bot(BanChatMember(chat_id=-100, user_id=5, until_date=until))
    assert fake.calls[-1].params["until_date"] == int(until.timestamp())
    before = int(time.time())
    await bot(BanChatMember(chat_id=-100, user_id=5, until_date=timedelta(minutes=5)))
    assert before + 300 <= fake.calls[-1].params["until_date"] <= int(time.time()) + 300
    options = [tg.InputPollOption(text="a"), tg.InputPollOption(text="b")]
    await bot.send_poll(-100, "?", options, close_date=1900000000)
    assert fake.calls[-1].params["close_date"] == 1900000000
    # inside a type, too: the suggested post's send date
    params = tg.SuggestedPostParameters(send_date=until)
    assert params.to_dict() == {"send_date": int(until.timestamp())}
    assert BanChatMember(chat_id=1, user_id=2, until_date=until).to_dict()["until_date"] == int(
        until.timestamp()
    )


# --- computed properties -------------------------------------------------------------


@pytest.mark.parametrize(
    "user",
    [
        ANN,
        {"id": 5, "is_bot": False, "first_name": "Solo"},
        {"id": 6, "is_bot": False, "first_name": "A_b <x> [1]", "last_name": "C.d&*!\\"},
    ],
)
@pytest.mark.parametrize("name", [None, "n*[1] (x) _y_ <b>&"])
def test_user_helpers_match_aiogram(
    decoder: ModuleType, user: dict[str, Any], name: str | None
) -> None:
    theirs, ours = both("User", user, decoder)
    assert ours.full_name == theirs.full_name
    assert ours.url == theirs.url == f"tg://user?id={user['id']}"
    assert ours.mention_html(name) == theirs.mention_html(name)
    assert ours.mention_markdown(name) == theirs.mention_markdown(name)


@pytest.mark.parametrize(
    "chat",
    [
        {"id": 1, "type": "private", "first_name": "Ann", "last_name": "Lee"},
        {"id": 1, "type": "private", "first_name": "Ann"},
        CHAT,
        {"id": -5, "type": "group", "title": "Team", "first_name": "ignored"},
    ],
)
def test_chat_full_name_matches_aiogram(decoder: ModuleType, chat: dict[str, Any]) -> None:
    theirs, ours = both("Chat", chat, decoder)
    assert ours.full_name == theirs.full_name
    full = {**chat, "accent_color_id": 0, "max_reaction_count": 11, "accepted_gift_types": {
        "unlimited_gifts": True, "limited_gifts": True, "unique_gifts": True,
        "premium_subscription": True, "gifts_from_channels": True,
    }}  # fmt: skip
    theirs, ours = both("ChatFullInfo", full, decoder)
    assert ours.full_name == theirs.full_name


@pytest.mark.parametrize(
    "chat",
    [
        CHAT,
        {"id": -1001234567890, "type": "supergroup", "title": "t"},
        {"id": -10012345678901, "type": "channel", "title": "t", "username": "news"},
        {"id": -42, "type": "group", "title": "t"},
        {"id": 42, "type": "private", "first_name": "P"},
    ],
)
@pytest.mark.parametrize("thread", [None, 5])
def test_shifted_id_and_get_url_match_aiogram(
    decoder: ModuleType, chat: dict[str, Any], thread: int | None
) -> None:
    data = {"message_id": 9, "date": 1, "chat": chat, "text": "x"}
    if thread is not None:
        data.update(message_thread_id=thread, is_topic_message=True)
    theirs, ours = both("Message", data, decoder)
    assert ours.chat.shifted_id == theirs.chat.shifted_id
    for force_private in (False, True):
        for include_thread_id in (False, True):
            kwargs = {"force_private": force_private, "include_thread_id": include_thread_id}
            assert ours.get_url(**kwargs) == theirs.get_url(**kwargs)


@pytest.mark.parametrize(
    "event",
    [
        {"message": MESSAGE},
        {"edited_message": MESSAGE},
        {"chat_member": MEMBER_UPDATE},
        {"poll": POLL},
        {"callback_query": {"id": "q", "from": ANN, "chat_instance": "1", "data": "d"}},
    ],
    ids=lambda e: next(iter(e)),
)
def test_update_event_matches_aiogram(decoder: ModuleType, event: dict[str, Any]) -> None:
    theirs, ours = both("Update", {"update_id": 3, **event}, decoder)
    assert ours.event_type == theirs.event_type
    assert ours.event.model_dump(exclude_none=True) == theirs.event.model_dump(exclude_none=True)


def test_update_of_an_unknown_kind_has_no_event_type(decoder: ModuleType) -> None:
    update = decoder.convert(tg.Update, {"update_id": 1, "x_future_kind": {}})
    with pytest.raises(LookupError):
        _ = update.event_type
    with pytest.raises(UpdateTypeLookupError):
        _ = update.event


PHOTO = [{"file_id": "p", "file_unique_id": "pu", "width": 1, "height": 1}]
DOCUMENT = {"file_id": "d", "file_unique_id": "du"}
LOCATION = {"latitude": 1.0, "longitude": 2.0}
CONTENTS = [
    {"text": "hi"},
    {"photo": PHOTO, "caption": "c"},
    {
        "animation": {**DOCUMENT, "width": 1, "height": 1, "duration": 1},
        "document": DOCUMENT,
    },
    {"document": DOCUMENT},
    {"venue": {"location": LOCATION, "title": "t", "address": "a"}, "location": LOCATION},
    {"location": LOCATION},
    {"new_chat_members": [ANN]},
    {"left_chat_member": ANN},
    {"dice": {"emoji": "🎲", "value": 3}},
    {"sticker": {**DOCUMENT, "type": "regular", "width": 1, "height": 1, "is_animated": False,
                 "is_video": False}},
    {"pinned_message": {"chat": CHAT, "message_id": 1, "date": 0}},
]  # fmt: skip


@pytest.mark.parametrize("content", CONTENTS, ids=lambda c: next(iter(c)))
def test_content_type_matches_aiogram(decoder: ModuleType, content: dict[str, Any]) -> None:
    data = {"message_id": 1, "date": 1, "chat": CHAT, **content}
    theirs, ours = both("Message", data, decoder)
    assert ours.content_type == theirs.content_type
    assert isinstance(ours.content_type, str)


def test_content_type_of_an_unknown_message(decoder: ModuleType) -> None:
    msg = decoder.convert(tg.Message, {"message_id": 1, "date": 1, "chat": CHAT, "x_new": 1})
    assert msg.content_type == ai.Message.model_validate(
        {"message_id": 1, "date": 1, "chat": CHAT}
    ).content_type == "unknown"  # fmt: skip


def test_properties_are_visible_to_f(decoder: ModuleType) -> None:
    """``F`` reads computed properties like fields (they used to give ``None``)."""
    msg = decoder.convert(tg.Message, MESSAGE)

    def check(f: MagicFilter) -> object:
        return f.check(msg)

    assert check(F.from_user.full_name == "Ann Lee") is True
    assert check(F.from_user.full_name == "Ann") is False
    assert check(F.chat.full_name == "Ops") is True
    assert check(F.from_user.url.startswith("tg://user")) is True
    assert check(F.content_type == "text") is True
    assert check(F.date.year == 2024) is True
    assert (F.from_user.full_name).resolve(msg) == "Ann Lee"


# --- constants -----------------------------------------------------------------------


def test_constant_fields_default_to_their_value() -> None:
    assert tg.ReplyKeyboardRemove().to_dict() == {"remove_keyboard": True}
    assert tg.ForceReply().to_dict() == {"force_reply": True}
    assert tg.BotCommandScopeDefault().to_dict() == {"type": "default"}
    article = tg.InlineQueryResultArticle(
        id="1", title="t", input_message_content=tg.InputTextMessageContent(message_text="x")
    )
    assert article.to_dict()["type"] == "article"
    assert tg.InputMediaPhoto(media="file-id").to_dict() == {"type": "photo", "media": "file-id"}
    assert tg.ReactionTypeEmoji(emoji="👍").type == "emoji"


def test_constant_defaults_match_aiogram() -> None:
    """Every field aiogram gives a constant default (not a bot default) has the same
    default here, where tgfast's Bot API version has the type."""
    compared = 0
    for name in dir(ai):
        theirs = getattr(ai, name)
        ours = getattr(tg, name, None)
        if not (inspect.isclass(theirs) and issubclass(theirs, BaseModel)) or ours is None:
            continue
        if "__init__" not in vars(ours):
            continue
        params = inspect.signature(ours.__init__).parameters
        for field_name, info in theirs.model_fields.items():
            default = info.default
            if info.is_required() or default is None or type(default).__name__ == "Default":
                continue
            if field_name not in params:
                continue
            if name == "InaccessibleMessage":  # date=0 is the union tag, decoded by it
                continue
            assert params[field_name].default == default, (name, field_name)
            compared += 1
    assert compared > 100


def test_managed_bot_field_is_aiogram_s_bot_user(decoder: ModuleType) -> None:
    data = {"user": ANN, "bot": {"id": 9, "is_bot": True, "first_name": "B"}}
    theirs, ours = both("ManagedBotUpdated", data, decoder)
    assert ours.bot_user.id == theirs.bot_user.id == 9
    assert ours.to_dict() == data


# --- pydantic-shaped methods ---------------------------------------------------------


def _common(ours: Any, theirs: Any) -> None:
    """``ours`` is ``theirs`` where tgfast has the key: aiogram also lists fields of
    deprecated and newer Bot API versions, with ``None``."""
    if isinstance(ours, dict):
        assert isinstance(theirs, dict)
        for key, value in ours.items():
            assert key in theirs, key
            _common(value, theirs[key])
        extra = {k: v for k, v in theirs.items() if k not in ours}
        assert all(v is None for v in extra.values()), extra
    elif isinstance(ours, list):
        assert isinstance(theirs, list) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs, strict=True):
            _common(a, b)
    else:
        assert ours == theirs and type(ours) is type(theirs) or str(ours) == str(theirs)


@pytest.mark.parametrize(
    ("cls_name", "data"),
    [("Message", MESSAGE), ("ChatMemberUpdated", MEMBER_UPDATE), ("Poll", POLL)],
)
@pytest.mark.parametrize("by_alias", [False, True])
@pytest.mark.parametrize("mode", ["python", "json"])
def test_model_dump_matches_aiogram(
    decoder: ModuleType, cls_name: str, data: dict[str, Any], by_alias: bool, mode: str
) -> None:
    theirs, ours = both(cls_name, data, decoder)
    kwargs: dict[str, Any] = {"by_alias": by_alias, "mode": mode}
    assert ours.model_dump(exclude_none=True, **kwargs) == theirs.model_dump(
        exclude_none=True, **kwargs
    )
    # pydantic's exclude_defaults, as aiogram's tests compare events with it
    assert ours.model_dump(exclude_defaults=True, **kwargs) == theirs.model_dump(
        exclude_defaults=True, **kwargs
    )
    _common(ours.model_dump(**kwargs), theirs.model_dump(**kwargs))
    assert orjson.loads(ours.model_dump_json(exclude_none=True, by_alias=by_alias)) == (
        orjson.loads(theirs.model_dump_json(exclude_none=True, by_alias=by_alias))
    )


def test_model_dump_include_exclude(decoder: ModuleType) -> None:
    theirs, ours = both("Message", MESSAGE, decoder)
    for kwargs in ({"include": {"text", "chat"}}, {"exclude": {"chat", "from_user"}}):
        assert ours.model_dump(exclude_none=True, **kwargs) == theirs.model_dump(
            exclude_none=True, **kwargs
        )
    with pytest.raises(ValueError, match="mode"):
        ours.model_dump(mode="yaml")


def test_model_dump_exclude_defaults_leaves_out_only_default_values() -> None:
    """A field set to its default (None, a constant) goes; one set otherwise stays,
    ``False`` included (not a default of a field whose default is None)."""
    for cls in (tg.ReplyKeyboardRemove, ai.ReplyKeyboardRemove):
        assert cls().model_dump(exclude_defaults=True) == {}
        assert cls(selective=False).model_dump(exclude_defaults=True) == {"selective": False}
    chat = tg.Chat(id=1, type="private", title=None)
    assert chat.model_dump(exclude_defaults=True) == {"id": 1, "type": "private"}
    assert chat.model_dump() != chat.model_dump(exclude_defaults=True)


def test_model_copy_matches_aiogram(decoder: ModuleType) -> None:
    theirs, ours = both("Message", MESSAGE, decoder)
    ours_copy = ours.model_copy(update={"text": "changed"})
    theirs_copy = theirs.model_copy(update={"text": "changed"})
    assert ours_copy.text == theirs_copy.text == "changed"
    assert ours.text == theirs.text == "hello *there*"
    assert ours_copy.model_dump(exclude_none=True) == theirs_copy.model_dump(exclude_none=True)
    assert ours_copy.chat is ours.chat  # shallow, as pydantic's
    deep = ours.model_copy(deep=True)
    assert deep == ours and deep.chat is not ours.chat
    deep.chat.title = "other"
    assert ours.chat.title == "Ops"


async def test_model_validate_and_as_bind_the_bot(bot: Bot) -> None:
    msg = tg.Message.model_validate(MESSAGE)
    assert msg == tg.Message.model_validate(msg) and tg.Message.model_validate(msg) is msg
    assert msg.to_dict() == MESSAGE
    assert msg.bot is None
    bound = tg.Message.model_validate(MESSAGE, context={"bot": bot})
    assert bound.bot is bot
    reply = {**MESSAGE, "reply_to_message": {**MESSAGE, "message_id": 1}}
    update = tg.Update.model_validate_json(
        orjson.dumps({"update_id": 1, "message": reply}), context={"bot": bot}
    )
    assert update.message.bot is bot and update.message.reply_to_message.bot is bot
    assert update.message.reply_to_message._bot is bot  # bound, not the handling bot
    assert msg.as_(bot) is msg and msg.bot is bot
    assert tg.Chat.model_validate(CHAT).as_(bot).full_name == "Ops"  # no bot slot: a no-op
    with pytest.raises(DecodeError, match=r"\$\.date: expected int, got str"):
        tg.Message.model_validate({**MESSAGE, "date": "soon"})


def test_method_objects_dump_and_validate() -> None:
    theirs = ai_methods.SendMessage(chat_id=1, text="x", message_thread_id=3)
    ours = SendMessage(chat_id=1, text="x", message_thread_id=3)

    def given(dump: dict[str, Any]) -> dict[str, Any]:
        """The parameters passed: both list the unpassed bot defaults as markers."""
        return {k: v for k, v in dump.items() if type(v).__name__ != "Default"}

    plain = given(theirs.model_dump(exclude_none=True))
    assert given(ours.model_dump(exclude_none=True)) == plain
    assert ours.model_dump(mode="json", exclude_none=True) == plain  # the bot's defaults: unknown
    again = SendMessage.model_validate({"chat_id": 1, "text": "x", "message_thread_id": 3})
    assert again.build() == ours.build() == {"chat_id": 1, "text": "x", "message_thread_id": 3}


async def test_message_bot_is_the_handling_bot() -> None:
    seen: list[Any] = []
    router = Router()

    @router.message()
    async def handler(message: tg.Message) -> None:
        seen.append((message.bot, message.chat.bot, message.date))

    dp = Dispatcher()
    dp.include_router(router)
    async with Bot("42:test-token", rate_limiter=None) as offline:
        await dp.feed_raw_update(
            offline, orjson.dumps(updates.update(message=updates.message("hi")))
        )
    assert seen == [(offline, offline, datetime.fromtimestamp(1_700_000_000, UTC))]


async def test_as_reply_parameters_sends_what_aiogram_sends() -> None:
    """The bot's parse mode fills quote_parse_mode when the reply is sent, as aiogram's."""
    body = {"message_id": 5, "date": 1, "chat": {"id": 9, "type": "private"}, "text": "q"}
    sent = []
    for framework in ("aiogram", "tgfast"):
        async with FakeTelegram() as fake:
            fake.add_update({"message": body})  # the fake learns the message replied to
            if framework == "aiogram":
                session = AiogramSession(api=AiogramServer.from_base(fake.url))
                theirs = aiogram.Bot(fake.token, session, AiogramDefaults(parse_mode="HTML"))
                reply = ai.Message.model_validate(body).as_reply_parameters(quote="q")
                await theirs.send_message(9, "a", reply_parameters=reply)
                await session.close()
            else:
                defaults = DefaultBotProperties(parse_mode="HTML")
                async with Bot(fake.token, server=fake.url, default=defaults) as ours:
                    reply = tg.Message.model_validate(body).as_reply_parameters(quote="q")
                    await ours.send_message(9, "a", reply_parameters=reply)
            sent.append(fake.calls_to("sendMessage")[0].params)
    assert sent[0] == sent[1]
    assert sent[1]["reply_parameters"]["quote_parse_mode"] == "HTML"
