"""aiogram's small utilities at aiogram's paths (tokens, links, deep links, web app init
data), each compared with aiogram itself on the same inputs."""

from __future__ import annotations

import hashlib
import hmac
import importlib
import inspect
import json
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiogram.utils.deep_linking as ag_deep
import aiogram.utils.link as ag_link
import aiogram.utils.payload as ag_payload
import aiogram.utils.token as ag_token
import aiogram.utils.web_app as ag_web_app
import pytest

import tgfast.deep_linking
import tgfast.utils.deep_linking as utils_deep
import tgfast.utils.payload as utils_payload
from tgfast import Bot, TgfastError
from tgfast.testing import FakeTelegram
from tgfast.utils.deep_linking import create_deep_link, decode_payload, encode_payload
from tgfast.utils.link import create_channel_bot_link, create_telegram_link, create_tg_link
from tgfast.utils.token import TokenValidationError, extract_bot_id, validate_token
from tgfast.utils.web_app import (
    WebAppChat,
    WebAppInitData,
    WebAppUser,
    check_webapp_signature,
    parse_webapp_init_data,
    safe_parse_webapp_init_data,
)

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


def test_docs_url_links_to_a_page_of_tgfasts_docs() -> None:
    """aiogram's ``docs_url`` links into aiogram's docs; tgfast's into its own, which are
    in the repository's ``docs/``."""
    from tgfast.utils.link import BRANCH, docs_url

    url = docs_url("fsm.md", fragment_="storages")
    assert url == f"https://github.com/tgfast/tgfast/blob/{BRANCH}/docs/fsm.md#storages"
    assert (Path(__file__).parent.parent / "docs" / "fsm.md").is_file()
    assert docs_url("fsm.md", plain="1").endswith("/docs/fsm.md?plain=1")


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


# --- web app init data ----------------------------------------------------------------

WEBAPP_TOKEN = "123456:AAE_test-webapp-token"
USER = {"id": 279058397, "first_name": "Vlad", "username": "vdkfrost", "is_premium": True}


def _signed(token: str, **fields: str) -> str:
    """Init data as Telegram signs it (its documented recipe, written out here)."""
    check = "\n".join(f"{key}={fields[key]}" for key in sorted(fields))
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    digest = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode({**fields, "hash": digest})


def _init_data(**extra: str) -> str:
    fields = {
        "query_id": "AAHdF6IQAAAAAN0XohDhrOrc",
        "user": json.dumps(USER, ensure_ascii=False),
        "auth_date": "1700000000",
        "signature": "abc_-",
        **extra,
    }
    return _signed(WEBAPP_TOKEN, **fields)


def _tamper(init_data: str, old: str, new: str) -> str:
    assert old in init_data
    return init_data.replace(old, new, 1)


VALID = _init_data()
CHAT = json.dumps({"id": -100123, "type": "supergroup", "title": "Ω group"})
CASES = {
    "valid": (WEBAPP_TOKEN, VALID),
    "valid with chat": (WEBAPP_TOKEN, _init_data(chat=CHAT, can_send_after="30")),
    "valid unicode": (WEBAPP_TOKEN, _init_data(start_param="☕ x")),
    "other token": ("123456:other", VALID),
    "tampered user": (WEBAPP_TOKEN, _tamper(VALID, "279058397", "279058398")),
    "tampered auth_date": (WEBAPP_TOKEN, _tamper(VALID, "1700000000", "1800000000")),
    "field added": (WEBAPP_TOKEN, VALID + "&start_param=x"),
    "missing hash": (WEBAPP_TOKEN, VALID.rpartition("&hash=")[0]),
    "empty hash": (WEBAPP_TOKEN, VALID.rpartition("&hash=")[0] + "&hash="),
    "hash uppercased": (WEBAPP_TOKEN, VALID.upper()),
    "not a query string": (WEBAPP_TOKEN, "just text"),
    "empty": (WEBAPP_TOKEN, ""),
}


@pytest.mark.parametrize("case", CASES)
def test_webapp_signature_as_aiogram(case: str) -> None:
    token, init_data = CASES[case]
    ours = check_webapp_signature(token, init_data)
    assert ours == ag_web_app.check_webapp_signature(token, init_data)
    assert ours is case.startswith("valid")
    if ours:
        assert safe_parse_webapp_init_data(token, init_data).hash in init_data
    else:
        with pytest.raises(ValueError, match="signature"):
            safe_parse_webapp_init_data(token, init_data)
        with pytest.raises(ValueError):
            ag_web_app.safe_parse_webapp_init_data(token, init_data)


def test_a_non_ascii_hash_is_refused_not_a_crash() -> None:
    """aiogram's compare_digest of two str raises TypeError on non-ASCII; a forged hash
    is just a wrong one here."""
    forged = VALID.rpartition("&hash=")[0] + "&hash=%E2%98%95"
    assert check_webapp_signature(WEBAPP_TOKEN, forged) is False


@pytest.mark.parametrize("case", [case for case in CASES if case.startswith("valid")])
def test_parsed_init_data_as_aiogram(case: str) -> None:
    token, init_data = CASES[case]
    ours = safe_parse_webapp_init_data(token, init_data)
    theirs = ag_web_app.safe_parse_webapp_init_data(token, init_data)
    for name in (
        "query_id",
        "chat_type",
        "chat_instance",
        "start_param",
        "can_send_after",
        "auth_date",
        "hash",
    ):
        assert getattr(ours, name) == getattr(theirs, name), name
    assert ours.auth_date == datetime(2023, 11, 14, 22, 13, 20, tzinfo=timezone.utc)
    assert ours.signature == theirs.signature == "abc_-"  # type: ignore[attr-defined]
    assert isinstance(ours.user, WebAppUser) and theirs.user is not None
    assert ours.user.to_dict() == theirs.user.model_dump(exclude_none=True) == USER
    if theirs.chat is not None:
        assert isinstance(ours.chat, WebAppChat)
        assert ours.chat.to_dict() == theirs.chat.model_dump(exclude_none=True)
    else:
        assert ours.chat is None
    assert parse_webapp_init_data(init_data) == ours


def test_parse_without_check_and_its_errors() -> None:
    tampered = CASES["tampered user"][1]
    assert parse_webapp_init_data(tampered).user == WebAppUser(**{**USER, "id": 279058398})
    for bad in ("user=1&auth_date=1&hash=x", "auth_date=x&hash=y", "query_id=1&hash=y"):
        with pytest.raises(ValueError):
            parse_webapp_init_data(bad)
        with pytest.raises(ValueError):
            ag_web_app.parse_webapp_init_data(bad)
    seen: list[str] = []

    def loads(text: str) -> Any:
        seen.append(text)
        return json.loads(text)

    assert parse_webapp_init_data(VALID, loads=loads).user is not None
    assert seen == [json.dumps(USER, ensure_ascii=False)]


def test_pydantic_v1_dict_and_json_as_aiogram() -> None:
    """aiogram's web_app page answers with ``data.user.dict()``: pydantic 1's names, which
    aiogram's objects answer with a DeprecationWarning; tgfast's do the same."""
    token, init_data = CASES["valid"]
    ours = safe_parse_webapp_init_data(token, init_data)
    theirs = ag_web_app.safe_parse_webapp_init_data(token, init_data)
    assert ours.user is not None and theirs.user is not None
    with pytest.warns(DeprecationWarning):
        theirs_dict = theirs.user.dict()
    with pytest.warns(DeprecationWarning, match="model_dump"):
        ours_dict = ours.user.dict()
    assert ours_dict == theirs_dict
    with pytest.warns(DeprecationWarning):
        theirs_json = theirs.user.json(exclude_none=True)
    with pytest.warns(DeprecationWarning, match="model_dump_json"):
        ours_json = ours.user.json(exclude_none=True)
    assert json.loads(ours_json) == json.loads(theirs_json) == USER


def test_max_age_refuses_old_init_data() -> None:
    now = str(int(time.time()))
    fresh = _init_data(auth_date=now)
    assert safe_parse_webapp_init_data(WEBAPP_TOKEN, fresh, max_age=60).auth_date
    with pytest.raises(ValueError, match="older than 60"):
        safe_parse_webapp_init_data(WEBAPP_TOKEN, VALID, max_age=60)  # from 2023


# --- names and signatures -------------------------------------------------------------


@pytest.mark.parametrize("name", ["token", "link", "deep_linking", "payload", "web_app"])
def test_every_aiogram_name_is_here_with_its_parameters(name: str) -> None:
    """Each public name aiogram's module defines is in tgfast's twin (or says why not),
    and a function takes aiogram's parameters, in aiogram's order and kinds."""
    theirs = importlib.import_module(f"aiogram.utils.{name}")
    ours = importlib.import_module(f"tgfast.utils.{name}")
    names = getattr(theirs, "__all__", None) or [
        attr
        for attr, value in vars(theirs).items()
        if not attr.startswith("_") and getattr(value, "__module__", None) == theirs.__name__
    ]
    names += [attr for attr, value in vars(theirs).items() if attr.isupper()]
    names = [attr for attr in names if attr != "TYPE_CHECKING"]
    assert names
    for attr in names:
        try:
            value = getattr(ours, attr)
        except AttributeError as exc:
            assert "aiogram's own documentation" in str(exc), attr
            continue
        original = getattr(theirs, attr)
        if inspect.isfunction(original):
            expected = inspect.signature(original).parameters.values()
            got = {p.name: p.kind for p in inspect.signature(value).parameters.values()}
            for param in expected:
                if param.kind is param.VAR_KEYWORD:  # **query: tgfast names fragment_ too
                    assert param.VAR_KEYWORD in got.values(), attr
                else:
                    assert got.get(param.name) == param.kind, (attr, param.name)
            positional = [p.name for p in expected if p.kind is p.POSITIONAL_OR_KEYWORD]
            assert list(got)[: len(positional)] == positional, attr


def test_deep_link_constants_as_aiogram() -> None:
    assert utils_deep.DEEPLINK_PAYLOAD_LENGTH == ag_deep.DEEPLINK_PAYLOAD_LENGTH
    for char in map(chr, range(0x250)):
        ours = utils_deep.BAD_PATTERN.search(char) is None
        assert ours is (ag_deep.BAD_PATTERN.search(char) is None), char


def test_model_validate_builds_the_web_app_objects() -> None:
    data = {"auth_date": 1700000000, "hash": "h", "user": USER, "receiver": {**USER, "id": 2}}
    parsed = WebAppInitData.model_validate(data)
    assert isinstance(parsed.user, WebAppUser) and parsed.user.to_dict() == USER
    assert isinstance(parsed.receiver, WebAppUser) and parsed.receiver.id == 2
    assert parsed.to_dict() == {**data, "receiver": {**USER, "id": 2}}
    assert WebAppChat.model_validate({"id": 1, "type": "group", "title": "t"}).title == "t"
    with pytest.raises(ValueError, match="first_name"):
        WebAppInitData.model_validate({**data, "user": {"id": 1}})
    with pytest.raises(ValueError, match="hash"):
        WebAppInitData.model_validate({"auth_date": 1})
