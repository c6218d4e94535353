"""``Default("parse_mode")``: aiogram's named markers of a parameter left to the bot's
defaults, one per name and equal by name; ``DEFAULT`` names none. Whichever marker a
parameter holds, the parameter decides which bot default fills it."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest
from aiogram.client.default import Default as AiogramDefault

import tgfast.methods as tm
from tgfast import Bot
from tgfast.client.session.base import BaseSession
from tgfast.defaults import DEFAULT, Default, DefaultBotProperties
from tgfast.testing import FakeTelegram
from tgfast.types.base import (
    UNSET_DISABLE_WEB_PAGE_PREVIEW,
    UNSET_PARSE_MODE,
    UNSET_PROTECT_CONTENT,
)


def test_a_named_marker_is_one_per_name_and_reads_as_aiogram_s() -> None:
    marker = Default("parse_mode")
    assert marker is Default("parse_mode") and marker == Default("parse_mode")
    assert hash(marker) == hash(Default("parse_mode"))
    assert marker != Default("protect_content") and marker != DEFAULT
    assert marker.name == "parse_mode" and DEFAULT.name is None and Default() is DEFAULT
    theirs = AiogramDefault("parse_mode")
    assert (str(marker), repr(marker)) == (str(theirs), repr(theirs))
    assert repr(DEFAULT) == "DEFAULT" and not marker and not DEFAULT
    assert (UNSET_PARSE_MODE, UNSET_PROTECT_CONTENT) == (marker, Default("protect_content"))
    assert UNSET_DISABLE_WEB_PAGE_PREVIEW.name == "link_preview_is_disabled"
    with pytest.raises(TypeError, match="name of a bot default"):
        Default(5)  # type: ignore[arg-type]


@pytest.mark.parametrize("marker", [DEFAULT, Default("parse_mode")], ids=["DEFAULT", "named"])
def test_a_marker_survives_copies_and_pickles_as_itself(marker: Default) -> None:
    assert copy.copy(marker) is marker and copy.deepcopy(marker) is marker
    assert pickle.loads(pickle.dumps(marker)) is marker


def test_the_generated_signatures_carry_the_named_marker() -> None:
    import inspect

    from tgfast.types import InputMediaPhoto, Message

    def default(fn: Any, name: str) -> Any:
        return inspect.signature(fn).parameters[name].default

    assert default(Bot.send_message, "parse_mode") == Default("parse_mode")
    assert default(Bot.send_message, "link_preview_options") == Default("link_preview")
    assert default(Bot.send_poll, "explanation_parse_mode") == Default("parse_mode")
    assert default(tm.SendPhoto.__init__, "show_caption_above_media") == Default(
        "show_caption_above_media"
    )
    assert default(Message.answer, "protect_content") == Default("protect_content")
    assert default(InputMediaPhoto.__init__, "parse_mode") == Default("parse_mode")
    assert default(Message.as_reply_parameters, "quote_parse_mode") == Default("parse_mode")


@pytest.mark.parametrize(
    "marker",
    [DEFAULT, Default("parse_mode"), Default("protect_content")],
    ids=["DEFAULT", "its-own-name", "another-name"],
)
def test_the_parameter_decides_which_default_fills_a_marker(marker: Default) -> None:
    defaults = DefaultBotProperties(parse_mode="HTML", protect_content=True)
    method = tm.SendMessage(chat_id=1, text="x", parse_mode=marker)
    assert method.build(defaults) == {
        "chat_id": 1,
        "text": "x",
        "parse_mode": "HTML",
        "protect_content": True,
    }
    assert tm.TelegramMethod.build(method, defaults) == method.build(defaults)
    assert method.build() == {"chat_id": 1, "text": "x"}  # no bot: left out
    assert "parse_mode" not in repr(method)


@pytest.mark.parametrize("marker", [DEFAULT, Default("parse_mode")], ids=["DEFAULT", "named"])
async def test_a_marker_passed_to_the_bot_s_method_takes_the_default(marker: Default) -> None:
    defaults = DefaultBotProperties(parse_mode="HTML")
    async with FakeTelegram() as fake, Bot(fake.token, server=fake.url, default=defaults) as bot:
        await bot.send_message(1, "<b>x</b>", parse_mode=marker)
    (call,) = fake.calls_to("sendMessage")
    assert call.params["parse_mode"] == "HTML"


class _Session(BaseSession):
    async def make_request(self, bot: Bot, method: Any, timeout: float | None = None) -> Any:
        raise AssertionError("not sent")

    async def stream_content(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("not read")

    async def close(self) -> None:
        pass


async def test_a_custom_session_fills_a_named_marker_from_the_bot_s_defaults() -> None:
    defaults = DefaultBotProperties(parse_mode="HTML", link_preview_is_disabled=True)
    session = _Session()
    bot = Bot("42:TEST", session=session, default=defaults)
    try:
        assert session.prepare_value(Default("parse_mode"), bot=bot, files={}) == "HTML"
        assert session.prepare_value(Default("link_preview_is_disabled"), bot, {}) == "true"
        assert session.prepare_value(Default("protect_content"), bot=bot, files={}) is None
        assert session.prepare_value(DEFAULT, bot=bot, files={}) is None  # names none
    finally:
        await bot.session.close()
