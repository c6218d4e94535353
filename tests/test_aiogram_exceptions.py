"""``tgfast.exceptions`` at aiogram's path: aiogram's names catch what tgfast raises for
the same Telegram answer, and a name tgfast lacks says what it raises instead."""

from __future__ import annotations

import inspect

import aiogram.exceptions
import pytest

import tgfast.exceptions as ours
from tgfast import Bot, Router, TgfastError
from tgfast.client import NO_RETRY
from tgfast.fsm.storage.base import StorageDataError
from tgfast.testing import FakeTelegram

AIOGRAM_ERRORS = sorted(
    name
    for name, value in vars(aiogram.exceptions).items()
    if inspect.isclass(value) and issubclass(value, Exception) and not name.startswith("_")
)
MISSING: set[str] = set()  # every aiogram error has its tgfast class now
# where tgfast's tree differs from aiogram's, on purpose: a network error got no answer,
# so it is not an API error (which has Telegram's code and description), and a 413 is an
# answer, not a network error. A bot catching TelegramAPIError for network errors too
# must add TelegramNetworkError (docs/migrating-from-aiogram.md, issue #14).
TREE_DIFFERENCES = {
    ("TelegramNetworkError", "TelegramAPIError"),
    ("TelegramEntityTooLarge", "TelegramNetworkError"),
}


@pytest.mark.parametrize("name", AIOGRAM_ERRORS)
def test_every_aiogram_error_is_here_or_says_what_to_catch(name: str) -> None:
    if name in MISSING:
        with pytest.raises(ImportError, match=f"tgfast.exceptions has no {name}: .+"):
            exec(f"from tgfast.exceptions import {name}", {})
        return
    error = getattr(ours, name)
    assert name in ours.__all__
    assert issubclass(error, TgfastError)
    # the tree keeps aiogram's shape: a forbidden error is an API error, and so on
    for base in getattr(aiogram.exceptions, name).__mro__[1:]:
        if base.__module__ != "aiogram.exceptions" or base.__name__ in MISSING:
            continue
        same = issubclass(error, getattr(ours, base.__name__))
        assert same != ((name, base.__name__) in TREE_DIFFERENCES), (name, base.__name__)


@pytest.mark.parametrize(
    ("code", "name"),
    [
        (400, "TelegramBadRequest"),
        (401, "TelegramUnauthorizedError"),
        (403, "TelegramForbiddenError"),
        (404, "TelegramNotFound"),
        (409, "TelegramConflictError"),
        (413, "TelegramEntityTooLarge"),
    ],
)
async def test_aiogram_names_catch_what_the_bot_raises(
    fake: FakeTelegram, code: int, name: str
) -> None:
    fake.fail("sendMessage", error_code=code, description="Nope: injected")
    async with Bot(fake.token, server=fake.url, rate_limiter=None) as bot:
        with pytest.raises(getattr(ours, name)) as caught:
            await bot.send_message(chat_id=1, text="hi")
    assert caught.value.message == "Nope: injected"  # aiogram's attribute
    assert isinstance(caught.value, ours.AiogramError)


async def test_a_restarting_server_and_an_answer_that_is_not_json(fake: FakeTelegram) -> None:
    fake.fail("sendMessage", error_code=500, description="Internal Server Error: restart")
    fake.http_error("getMe", status=502)
    async with Bot(fake.token, server=fake.url, rate_limiter=None, retry=NO_RETRY) as bot:
        with pytest.raises(ours.RestartingTelegram) as restarting:
            await bot.send_message(chat_id=1, text="hi")
        with pytest.raises(ours.ClientDecodeError) as garbled:
            await bot.get_me()
    assert isinstance(restarting.value, ours.TelegramServerError)
    assert restarting.value.message == "Internal Server Error: restart"
    assert isinstance(garbled.value, ours.TelegramServerError)
    assert "502 Bad Gateway" in str(garbled.value)


def test_fsm_data_that_is_not_a_mapping_is_aiograms_error() -> None:
    assert ours.DataNotDictLikeError is StorageDataError
    assert issubclass(ours.DataNotDictLikeError, ours.DetailedAiogramError)


def test_aiogram_2_keyword_filters_say_what_to_write() -> None:
    router = Router()
    with pytest.raises(ours.UnsupportedKeywordArgument, match=r"commands.*Command\('start'\)"):
        router.message(commands=["start"])
    with pytest.raises(TypeError, match="content_types"):  # still a TypeError, as before
        router.message.register(lambda message: None, content_types=["photo"])
