"""Method objects and shortcuts take what aiogram's take: a keyword the method does not
list is kept and sent (aiogram's methods allow extra fields), a shortcut passes its
``**kwargs`` on to the method object, and ``Method.model_validate`` makes the dicts
inside a call the types their parameters take, as aiogram's validation does."""

from __future__ import annotations

import datetime
import inspect
from typing import Any

import aiogram.methods as am
import aiogram.types as at
import pytest
from aiogram.client.default import Default as AiogramDefault

import tgfast.methods as tm
import tgfast.types as tt
from tgfast import Bot, DecodeError, TgfastError
from tgfast.errors import MissingFieldError
from tgfast.testing import FakeTelegram

NOW = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)


def _message(module: Any, **fields: Any) -> Any:
    return module.Message(
        message_id=42, chat=module.Chat(id=42, type="private"), date=NOW, **fields
    )


def _sent(theirs: Any) -> dict[str, Any]:
    """What aiogram sends of a method object with no bot defaults."""
    dumped = theirs.model_dump(exclude_none=True)
    return {k: v for k, v in dumped.items() if not isinstance(v, AiogramDefault)}


def test_a_method_keeps_and_sends_a_keyword_it_does_not_know() -> None:
    ours = tm.SendMessage(chat_id=1, text="hi", future_flag=True)
    theirs = am.SendMessage(chat_id=1, text="hi", future_flag=True)
    assert ours.future_flag is True and ours.model_extra == {"future_flag": True}
    assert theirs.future_flag is True
    # sent as aiogram sends it
    sent = ours.build()
    assert sent == {"chat_id": 1, "text": "hi", "future_flag": True}
    assert sent == _sent(theirs)
    assert ours.as_webhook_reply()["future_flag"] is True
    # the generic walk and the generated build agree
    assert tm.TelegramMethod.build(ours) == sent
    # a method without parameters takes them too
    assert tm.GetMe(flag=1).build() == {"flag": 1}


def test_a_known_parameter_wins_over_an_extra_of_the_same_key() -> None:
    method = tm.SendMessage(chat_id=1, text="hi")
    method._extra = {"text": "other", "more": 1}
    assert method.build() == {"chat_id": 1, "text": "hi", "more": 1}


async def test_the_extra_keyword_reaches_telegram() -> None:
    async with FakeTelegram() as fake, Bot(fake.token, server=fake.url) as bot:
        await bot(tm.SendMessage(chat_id=1, text="hi", future_flag=True))
        chat = tt.Chat(id=-42, type="supergroup").as_(bot)
        await chat.delete_photo(description="test")
    (call,) = fake.calls_to("sendMessage")
    assert call.params["future_flag"] is True
    (photo,) = fake.calls_to("deleteChatPhoto")
    assert photo.params == {"chat_id": -42, "description": "test"}


@pytest.mark.parametrize(
    ("owner", "shortcut", "kwargs", "bound"),
    [
        ("Chat", "delete_photo", {"description": "test"}, {"chat_id": -42}),
        ("User", "get_profile_photos", {"description": "test"}, {"user_id": 42}),
        ("User", "get_profile_audios", {"description": "test"}, {"user_id": 42}),
    ],
)
def test_a_shortcut_passes_its_keywords_on_as_aiogram_s_do(
    owner: str, shortcut: str, kwargs: dict[str, Any], bound: dict[str, Any]
) -> None:
    fields = {
        "Chat": {"id": -42, "type": "supergroup"},
        "User": {"id": 42, "is_bot": False, "first_name": "A"},
    }
    ours = getattr(getattr(tt, owner)(**fields[owner]), shortcut)(**kwargs)
    theirs = getattr(getattr(at, owner)(**fields[owner]), shortcut)(**kwargs)
    assert ours.build() == {**bound, **kwargs} == _sent(theirs)
    assert ours.description == "test"


def test_a_parameter_a_shortcut_does_not_offer_is_set_from_its_keywords() -> None:
    # receiver_user_id is deprecated: reply() offers ephemeral_message_parameters instead
    assert "receiver_user_id" not in inspect.signature(tt.Message.reply).parameters
    assert "callback_query_id" in inspect.signature(tt.Message.reply).parameters
    ours = _message(tt).reply("pong", receiver_user_id=7)
    theirs = _message(at).reply("pong", receiver_user_id=7)
    assert ours.receiver_user_id == theirs.receiver_user_id == 7
    assert ours.model_extra == {}


@pytest.mark.parametrize(
    "kwargs",
    [
        {"chat_id": 2},
        {"ephemeral_message_parameters": tt.EphemeralMessageParameters(receiver_user_id=7)},
    ],
    ids=["chat_id", "ephemeral_message_parameters"],
)
def test_a_keyword_the_shortcut_fills_itself_is_refused(kwargs: dict[str, Any]) -> None:
    with pytest.raises(TypeError, match="multiple values for keyword argument") as ours:
        _message(tt).reply("pong", **kwargs)
    assert repr(next(iter(kwargs))) in str(ours.value)
    with pytest.raises(TypeError, match="multiple values for keyword argument"):
        _message(at).reply("pong", **dict.fromkeys(kwargs, 2))


def test_model_validate_makes_the_dicts_of_a_call_its_types() -> None:
    method = tm.EditMessageMedia.model_validate(
        {"media": {"type": "photo", "media": "https://example.org/photo.jpg"}, "chat_id": 1}
    )
    assert isinstance(method.media, tt.InputMediaPhoto)
    assert method.media.media == "https://example.org/photo.jpg" and method.chat_id == 1
    article = {
        "type": "article",
        "id": "1",
        "title": "t",
        "input_message_content": {"message_text": "x"},
    }
    photo = tt.InlineQueryResultCachedPhoto(id="2", photo_file_id="f")
    answer = tm.AnswerInlineQuery.model_validate(
        {"inline_query_id": "q", "results": [article, photo], "cache_time": 5}
    )
    assert isinstance(answer.results[0], tt.InlineQueryResultArticle)
    assert isinstance(answer.results[0].input_message_content, tt.InputTextMessageContent)
    assert answer.results[1] is photo and answer.cache_time == 5
    theirs = am.AnswerInlineQuery.model_validate({"inline_query_id": "q", "results": [article]})
    assert type(theirs.results[0]).__name__ == type(answer.results[0]).__name__
    assert answer.results[0].to_dict() == article  # the bot's defaults left to the call


def test_model_validate_of_a_call_refuses_a_dict_that_is_no_such_type() -> None:
    with pytest.raises(DecodeError):
        tm.EditMessageMedia.model_validate({"media": {"type": "photo"}})  # no media
    with pytest.raises(DecodeError):
        tm.SendMessage.model_validate({"chat_id": {"id": 1}, "text": "x"})


def test_a_field_renamed_from_its_key_takes_the_key_too() -> None:
    bot_user = tt.User(id=123, is_bot=True, first_name="TestBot")
    created = tt.ManagedBotCreated(bot=bot_user)
    assert created.bot_user is bot_user and created.to_dict() == {"bot": bot_user.to_dict()}
    assert tt.ManagedBotCreated(bot_user=bot_user) == created
    assert tt.ManagedBotUpdated(user=bot_user, bot=bot_user).bot_user is bot_user
    with pytest.raises(TypeError, match="'bot_user' \\(or 'bot'\\)"):
        tt.ManagedBotCreated()
    message = _message(tt, **{"from": bot_user})
    assert message.from_user is bot_user and message.model_extra == {}


def test_model_fields_describe_the_fields_as_aiogram_s_do() -> None:
    ours, theirs = tt.ReplyKeyboardRemove.model_fields, at.ReplyKeyboardRemove.model_fields
    assert ours["remove_keyboard"].default is theirs["remove_keyboard"].default is True
    # aiogram keeps the forward_* fields Bot API 7.0 removed; tgfast reads them as extras
    assert set(tt.Message.model_fields) <= set(at.Message.model_fields)
    assert tt.Message.model_fields["from_user"].alias == "from"
    assert tt.Message.model_fields["message_id"].is_required()
    assert not tt.Message.model_fields["text"].is_required()
    for name in ("SendDice", "SendGame", "SendPoll"):
        assert "ephemeral_message_parameters" not in getattr(tm, name).model_fields
    assert set(tm.SendDice.model_fields) == set(am.SendDice.model_fields)
    # a copy: changing it changes nothing
    tt.Message.model_fields.clear()
    assert "message_id" in tt.Message.model_fields


@pytest.mark.parametrize(
    ("shortcut", "field"),
    [
        ("delete_ephemeral", "receiver_user"),
        ("edit_ephemeral_text", "receiver_user"),
        ("answer_guest_query", "guest_query_id"),
    ],
)
def test_a_shortcut_missing_its_field_raises_an_assertion_error_too(
    shortcut: str, field: str
) -> None:
    kwargs = {"edit_ephemeral_text": {"text": "x"}, "answer_guest_query": {"result": None}}
    with pytest.raises(MissingFieldError, match=field) as raised:
        getattr(_message(tt), shortcut)(**kwargs.get(shortcut, {}))
    assert isinstance(raised.value, AssertionError) and isinstance(raised.value, TgfastError)


class GetChatNote(tm.TelegramMethod[tt.Message]):
    """A method declared as aiogram's are, for a Bot API method a framework lacks."""

    __api_method__ = "getChatNote"
    __returning__ = tt.Message

    chat_id: int
    note: str | None = None


class CountNotes(tm.TelegramMethod[int]):
    __api_method__ = "countNotes"
    __returning__ = list[int]


async def test_a_method_declared_as_aiogram_s_are_is_sent_and_its_result_decoded() -> None:
    assert (GetChatNote.__returns__, CountNotes.__returns__) == ("Message", "[int]")
    assert GetChatNote.model_fields["chat_id"].is_required()
    method = GetChatNote(chat_id=5, extra_flag=True)
    assert method.build() == {"chat_id": 5, "extra_flag": True} and method.note is None
    with pytest.raises(TypeError, match="chat_id"):
        GetChatNote(note="x")
    message = {"message_id": 1, "date": 1_700_000_000, "chat": {"id": 5, "type": "private"}}
    async with FakeTelegram() as fake, Bot(fake.token, server=fake.url) as bot:
        fake.respond("getChatNote", message)
        fake.respond("countNotes", [1, 2])
        result = await bot(method)
        assert await bot(CountNotes()) == [1, 2]
    assert isinstance(result, tt.Message) and result.chat.id == 5
    (call,) = fake.calls_to("getChatNote")
    assert call.params == {"chat_id": 5, "extra_flag": True}
    with pytest.raises(TypeError, match="cannot return"):

        class _Bad(tm.TelegramMethod[Any]):
            __api_method__ = "bad"
            __returning__ = dict
