"""aiogram's small utilities at aiogram's paths (tokens, links, deep links, web app init
data), each compared with aiogram itself on the same inputs."""

from __future__ import annotations

from typing import Any

import aiogram.utils.token as ag_token
import pytest

from tgfast import Bot, TgfastError
from tgfast.utils.token import TokenValidationError, extract_bot_id, validate_token

# --- tokens ---------------------------------------------------------------------------

GOOD_TOKENS = ["42:test-token", "123456:AAE_x-y", "1:a", "0042:x", "7:a:b", "7:ab.c/d"]
BAD_TOKENS: list[Any] = [
    "",
    "42",
    "42:",
    ":secret",
    "x42:secret",
    "-42:secret",
    "42 :secret",
    "42:sec ret",
    "42:secret\n",
    "\t42:secret",
    "4 2:s",
    None,
    42,
    b"42:secret",
]


@pytest.mark.parametrize("token", GOOD_TOKENS)
def test_good_tokens_as_aiogram(token: str) -> None:
    assert validate_token(token) is True
    assert ag_token.validate_token(token) is True
    assert extract_bot_id(token) == ag_token.extract_bot_id(token) == int(token.split(":")[0])


@pytest.mark.parametrize("token", BAD_TOKENS, ids=repr)
def test_bad_tokens_as_aiogram(token: Any) -> None:
    with pytest.raises(ag_token.TokenValidationError):
        ag_token.validate_token(token)
    for check in (validate_token, extract_bot_id):
        with pytest.raises(TokenValidationError, match="^malformed bot token") as info:
            check(token)
        assert isinstance(info.value, TgfastError) and isinstance(info.value, ValueError)
        if isinstance(token, str) and token.strip(" :\n\t"):
            assert token not in str(info.value)  # a token is a secret, even a broken one


def test_non_ascii_digits_are_refused() -> None:
    """aiogram's isdigit() accepts "²", then its extract_bot_id fails with a bare
    ValueError; tgfast refuses it up front."""
    assert ag_token.validate_token("²:secret") is True
    with pytest.raises(ValueError):
        ag_token.extract_bot_id("²:secret")
    with pytest.raises(TokenValidationError):
        extract_bot_id("²:secret")


@pytest.mark.parametrize("token", BAD_TOKENS[:-3], ids=repr)
def test_bot_refuses_what_validate_token_refuses(token: str) -> None:
    with pytest.raises(TokenValidationError, match="^malformed bot token"):
        Bot(token)


async def test_bot_takes_a_url_safe_secret_only() -> None:
    """``Bot`` puts the secret in the URL path and its log redactor looks for it as is:
    a secret with other characters (which Telegram never issues) is refused."""
    for token in ("7:a:b", "7:ab.c/d"):
        assert validate_token(token)
        with pytest.raises(TokenValidationError, match="A-Z, a-z, 0-9, _ and -"):
            Bot(token)
    async with Bot("123456:AAE_x-y") as bot:
        assert bot.id == extract_bot_id("123456:AAE_x-y")
