"""aiogram's small utilities at aiogram's paths (tokens, links, deep links, web app init
data), each compared with aiogram itself on the same inputs."""

from __future__ import annotations

from typing import Any

import aiogram.utils.deep_linking as ag_deep
import aiogram.utils.link as ag_link
import aiogram.utils.payload as ag_payload
import aiogram.utils.token as ag_token
import pytest

import tgfast.deep_linking
import tgfast.utils.deep_linking as utils_deep
import tgfast.utils.payload as utils_payload
from tgfast import Bot, TgfastError
from tgfast.testing import FakeTelegram
from tgfast.utils.deep_linking import create_deep_link, decode_payload, encode_payload
from tgfast.utils.link import create_channel_bot_link, create_telegram_link, create_tg_link
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


# --- links ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "query"),
    [
        ((), {}),
        (("durov",), {}),
        (("shop_bot", "app"), {"startapp": "x"}),
        (("joinchat", "AbC"), {}),
        (("share", "url"), {"text": "hi there ☕ & more?"}),
        (("bot",), {"fragment_": "top", "start": "1"}),
    ],
)
def test_telegram_links_as_aiogram(path: tuple[str, ...], query: dict[str, Any]) -> None:
    assert create_telegram_link(*path, **query) == ag_link.create_telegram_link(*path, **query)


@pytest.mark.parametrize(
    ("link", "query"),
    [("user", {"id": 42}), ("resolve", {"domain": "durov", "fragment_": "x"}), ("settings", {})],
)
def test_tg_links_as_aiogram(link: str, query: dict[str, Any]) -> None:
    assert create_tg_link(link, **query) == ag_link.create_tg_link(link, **query)
    assert create_tg_link(link, **query).startswith(f"tg://{link}")


RIGHTS = [
    "change_info",
    "post_messages",
    "edit_messages",
    "delete_messages",
    "restrict_members",
    "invite_users",
    "pin_messages",
    "promote_members",
    "manage_video_chats",
    "anonymous",
    "manage_chat",
]


@pytest.mark.parametrize("parameter", [None, "", "ref_1"])
def test_channel_bot_links_as_aiogram(parameter: str | None) -> None:
    for size in (0, 1, 2, len(RIGHTS)):
        for start in range(len(RIGHTS)):
            rights = dict.fromkeys(RIGHTS[start : start + size], True)
            ours = create_channel_bot_link("my_bot", parameter, **rights)
            assert ours == ag_link.create_channel_bot_link("my_bot", parameter, **rights)
    every = create_channel_bot_link("my_bot", "p", **dict.fromkeys(RIGHTS, True))
    assert every == "https://t.me/my_bot?startgroup=p&admin=" + "%2B".join(RIGHTS)


def test_a_query_may_be_named_url() -> None:
    """t.me/share/url takes ``url=``: aiogram's helper fails on that name (its own
    parameter), tgfast's builds the link."""
    link = create_telegram_link("share", "url", url="https://a.b/?c=d&e", text="hi")
    assert link == "https://t.me/share/url?url=https%3A%2F%2Fa.b%2F%3Fc%3Dd%26e&text=hi"
    with pytest.raises(TypeError):
        ag_link.create_telegram_link("share", "url", url="https://a.b/")


def test_link_names_aiogram_has_for_its_own_docs_say_why() -> None:
    with pytest.raises(ImportError, match="aiogram's own documentation"):
        from tgfast.utils.link import docs_url  # noqa: F401


# --- deep links -----------------------------------------------------------------------

PAYLOADS: list[Any] = [
    "",
    "ref-42_a",
    "a" * 64,
    "a" * 65,
    "has space",
    "any text: ☕",
    "a/b?c=d",
    "x" * 47,
    "x" * 48,
    "x" * 49,
    42,
    "Ω" * 20,
]


def _reverse(data: bytes) -> bytes:
    return data[::-1]


def _outcome(make: Any, *args: Any, **kwargs: Any) -> str:
    try:
        return str(make(*args, **kwargs))
    except ValueError:
        return "ValueError"


@pytest.mark.parametrize("payload", PAYLOADS, ids=repr)
@pytest.mark.parametrize("link_type", ["start", "startgroup", "startapp"])
@pytest.mark.parametrize("app_name", [None, "shop"])
def test_deep_links_as_aiogram(payload: Any, link_type: Any, app_name: str | None) -> None:
    for kwargs in ({}, {"encode": True}, {"encoder": _reverse}):
        ours = _outcome(create_deep_link, "my_bot", link_type, payload, app_name, **kwargs)
        theirs = _outcome(
            ag_deep.create_deep_link, "my_bot", link_type, payload, app_name, **kwargs
        )
        if link_type == "startapp" and theirs == "ValueError" and ours != "ValueError":
            # Telegram takes 512 characters in startapp; aiogram stops at 64 for all three
            value = ours.rpartition("startapp=")[2]
            assert 64 < len(value) <= 512
            continue
        assert ours == theirs
    if len(str(payload).encode()) <= 48:  # 64 characters of base64url
        link = create_deep_link("b", link_type, payload, encode=True)
        value = link.rpartition("=")[2]
        assert decode_payload(value) == ag_payload.decode_payload(value) == str(payload)


def test_payload_codec_as_aiogram() -> None:
    for payload in PAYLOADS:
        for encoder, decoder in ((None, None), (_reverse, _reverse)):
            ours = encode_payload(payload, encoder=encoder)
            assert ours == ag_payload.encode_payload(payload, encoder=encoder)
            assert decode_payload(ours, decoder=decoder) == str(payload)
            assert ag_payload.decode_payload(ours, decoder=decoder) == str(payload)
    assert utils_payload.encode_payload is encode_payload  # one implementation
    assert utils_deep.decode_payload is decode_payload is tgfast.deep_linking.decode_payload


def test_startapp_payload_limit_is_telegrams() -> None:
    assert create_deep_link("b", "startapp", "a" * 512).endswith("=" + "a" * 512)
    with pytest.raises(ValueError, match="at most 512"):
        create_deep_link("b", "startapp", "a" * 513)
    with pytest.raises(ValueError):
        ag_deep.create_deep_link("b", "startapp", "a" * 65)
    with pytest.raises(ValueError, match="'start', 'startgroup' or 'startapp'"):
        create_deep_link("b", "startchannel", "x")  # type: ignore[arg-type]


class _AiogramBotStandIn:
    """All aiogram's link builders use of a bot: ``await bot.me()``."""

    def __init__(self, username: str) -> None:
        self.username = username

    async def me(self) -> _AiogramBotStandIn:
        return self


async def test_start_links_against_fake_telegram_as_aiogram(fake: FakeTelegram, bot: Bot) -> None:
    stand_in = _AiogramBotStandIn((await bot.me()).username or "")
    builders = [
        (utils_deep.create_start_link, ag_deep.create_start_link),
        (utils_deep.create_startgroup_link, ag_deep.create_startgroup_link),
        (utils_deep.create_startapp_link, ag_deep.create_startapp_link),
    ]
    for ours, theirs in builders:
        for payload in ("ref-1", "any text: ☕", 7):
            for kwargs in ({"encode": True}, {"encoder": _reverse}):
                link = await ours(bot, payload, **kwargs)
                assert link == await theirs(stand_in, payload, **kwargs)  # type: ignore[arg-type]
                assert link.startswith(f"https://t.me/{stand_in.username}?")
        with pytest.raises(ValueError):
            await ours(bot, "not allowed!")
        with pytest.raises(ValueError):
            await theirs(stand_in, "not allowed!")  # type: ignore[arg-type]
    app = await utils_deep.create_startapp_link(bot, "x", app_name="shop")
    assert app == await ag_deep.create_startapp_link(stand_in, "x", app_name="shop")  # type: ignore[arg-type]
    assert fake.calls_to("getMe")  # the username came from Telegram
