"""``tgfast.methods`` has every name of ``aiogram.methods.__all__``, and a method object
is sent with ``await bot(method)`` or, once bound, ``await method``.

The names come from aiogram itself, so a new aiogram release shows here what tgfast
lacks; the few it lacks on purpose raise an ImportError that says why.
"""

from __future__ import annotations

import random

import aiogram.methods
import pytest

import tgfast.methods
from tgfast import DEFAULT, Bot, BotDefaults, TgfastError
from tgfast.methods import AnswerCallbackQuery, Request, Response, SendMessage, TelegramMethod
from tgfast.testing import FakeTelegram
from tgfast.types import LinkPreviewOptions, Message
from tgfast.types.binding import current_bot

# aiogram names tgfast does not have, and why (each raises an ImportError saying so)
KNOWN_GAPS: set[str] = set()


@pytest.mark.parametrize("name", sorted(aiogram.methods.__all__))
def test_every_aiogram_method_name_exists(name: str) -> None:
    if name in KNOWN_GAPS:
        with pytest.raises(ImportError, match=f"tgfast.methods has no {name}: "):
            exec(f"from tgfast.methods import {name}")  # the import statement itself
        return
    ours = getattr(tgfast.methods, name)
    assert name in tgfast.methods.__all__
    if name == "TelegramMethod":
        assert ours is TelegramMethod
        return
    if name == "Response":  # what a custom session's check_response returns
        assert ours is Response
        return
    if name == "Request":  # a webhook reply's form fields and files, as aiogram's
        sent = Request(method="sendMessage", data={"chat_id": 1, "text": "hi"})
        assert ours is Request and (sent.method, sent.files) == ("sendMessage", None)
        return
    theirs = getattr(aiogram.methods, name)
    assert issubclass(ours, TelegramMethod)
    assert ours.__api_method__ == theirs.__api_method__


def test_the_known_gaps_are_still_gaps() -> None:
    """A gap filled (a spec update) must leave this list, so it stays true."""
    assert {n for n in KNOWN_GAPS if n in tgfast.methods.__all__} == set()
    assert KNOWN_GAPS <= set(aiogram.methods.__all__)


async def test_bot_sends_a_method_object(fake: FakeTelegram, bot: Bot) -> None:
    sent = await bot(SendMessage(chat_id=5, text="hi"))
    assert isinstance(sent, Message) and sent.text == "hi"
    assert fake.calls[-1].method == "sendMessage"
    assert fake.calls[-1].params == {"chat_id": 5, "text": "hi"}


async def test_a_bound_method_object_is_awaitable(fake: FakeTelegram, bot: Bot) -> None:
    method = SendMessage(chat_id=6, text="bound")
    assert method.bot is None
    assert method.as_(bot) is method and method.bot is bot
    sent = await method
    assert isinstance(sent, Message) and sent.chat.id == 6
    assert await AnswerCallbackQuery(callback_query_id="q").emit(bot) is True
    assert [c.method for c in fake.calls] == ["sendMessage", "answerCallbackQuery"]


async def test_an_unbound_method_object_says_how_to_send_it(fake: FakeTelegram, bot: Bot) -> None:
    method = SendMessage(chat_id=7, text="nowhere")
    with pytest.raises(TgfastError, match=r"not bound to a Bot.*await bot\(method\)"):
        await method
    assert fake.calls == []
    token = current_bot.set(bot)  # while an update is handled, its bot is the default
    try:
        assert (await method).text == "nowhere"
    finally:
        current_bot.reset(token)


def test_method_objects_stay_slotted() -> None:
    method = SendMessage(chat_id=1, text="x")
    assert not hasattr(method, "__dict__")
    with pytest.raises(AttributeError):
        method.colour = "red"  # type: ignore[attr-defined]


# -- the generated build() is the generic one, written out --------------------------------


@pytest.mark.parametrize("name", sorted(tgfast.methods.METHOD_CLASSES))
def test_each_generated_build_equals_the_generic_one(name: str) -> None:
    """Each class's own ``build`` (generated for speed) gives what
    ``TelegramMethod.build`` (the reference, reading ``__tg_fields__``) gives, with and
    without a bot's defaults, whichever parameters are given, left to the bot or None."""
    cls = tgfast.methods.METHOD_CLASSES[name]
    assert "build" in vars(cls)
    rng = random.Random(name)
    filled = BotDefaults(
        parse_mode="HTML",
        disable_notification=True,
        protect_content=False,
        link_preview_options=LinkPreviewOptions(is_disabled=True),
        allow_paid_broadcast=True,
    )
    for _ in range(20):
        method = object.__new__(cls)
        method._extra = None
        method._bot = None
        for key, attr, _tp, required in cls.__tg_fields__:
            choice = rng.choice(["value", None, DEFAULT] if not required else ["value"])
            if choice is DEFAULT and attr not in cls.__tg_defaults__:
                choice = None
            setattr(method, attr, f"{key}-value" if choice == "value" else choice)
        for defaults in (None, BotDefaults(), filled):
            assert method.build(defaults) == TelegramMethod.build(method, defaults)
