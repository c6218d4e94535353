"""``Command``, ``CommandStart``, ``parse_command`` and ``tgfast.deep_linking``."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tgfast import Bot, TgfastError, convert
from tgfast.deep_linking import (
    DeepLinkError,
    create_start_link,
    create_startapp_link,
    create_startgroup_link,
    decode_payload,
    encode_payload,
)
from tgfast.filters import (
    Command,
    CommandObject,
    CommandStart,
    F,
    filter_is_async,
    filter_params,
    parse_command,
)
from tgfast.testing import FakeTelegram
from tgfast.types import BotCommand, Message

CHAT = {"id": 42, "type": "private", "first_name": "Ann"}


def message(text: str | None = None, caption: str | None = None) -> Message:
    data: dict[str, Any] = {"message_id": 1, "date": 1, "chat": CHAT}
    if text is not None:
        data["text"] = text
    if caption is not None:
        data["caption"] = caption
        data["photo"] = [{"file_id": "p", "file_unique_id": "u", "width": 1, "height": 1}]
    return convert(Message, data)


@pytest.fixture
async def tg() -> AsyncIterator[tuple[FakeTelegram, Bot]]:
    async with FakeTelegram() as fake, Bot(fake.token, server=fake.url) as bot:
        yield fake, bot


# -- parse_command -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "prefix", "expected"),
    [
        ("/start", "/", ("/", "start", None, None)),
        ("/start@tgfast_test_bot  arg1 arg2", "/", ("/", "start", "tgfast_test_bot", "arg1 arg2")),
        ("/help me\nplease", "/", ("/", "help", None, "me\nplease")),
        ("/cmd\nnext line", "/", ("/", "cmd", None, "next line")),
        ("!ban 42", "!/", ("!", "ban", None, "42")),
        ("/Start@Bot", "/", ("/", "Start", "Bot", None)),
        ("/start@", "/", ("/", "start", None, None)),
        ("/start@a@b", "/", ("/", "start", "a@b", None)),
        ("/", "/", None),
        ("/@bot", "/", None),
        ("/ start", "/", None),
        ("start", "/", None),
        ("!start", "/", None),
        ("", "/", None),
    ],
)
def test_parse_command(text: str, prefix: str, expected: tuple[Any, ...] | None) -> None:
    parsed = parse_command(text, prefix)
    if expected is None:
        assert parsed is None
    else:
        assert parsed is not None
        assert (parsed.prefix, parsed.command, parsed.mention, parsed.args) == expected
        assert parsed.regexp_match is None


def test_parse_command_reuses_bare_commands_within_bounds() -> None:
    from tgfast.filters import command as module

    first = parse_command("!menu", "!")
    assert first is not None and parse_command("!menu", "!/") is first  # immutable: shared
    assert parse_command("!menu", "/") is None  # the prefix is still checked
    assert parse_command("/menu x") is not parse_command("/menu x")  # with args: not kept
    for i in range(module._BARE_MAX + 10):
        parse_command(f"/c{i}")
    assert len(module._bare) <= module._BARE_MAX


@given(
    st.from_regex(r"[a-zA-Z0-9_]{1,32}", fullmatch=True),
    st.none() | st.from_regex(r"[a-zA-Z0-9_]{1,32}", fullmatch=True),
    st.none() | st.from_regex(r"[^\s]([^\n]*[^\s])?", fullmatch=True),
)
def test_parse_command_inverts_text(command: str, mention: str | None, args: str | None) -> None:
    built = CommandObject("/", command, mention, args)
    parsed = parse_command(built.text)
    assert parsed == built
    assert parsed is not None and parsed.text == built.text


def test_command_object() -> None:
    obj = CommandObject("/", "start", "Bot", "a b")
    assert obj.text == "/start@Bot a b"
    assert obj.mentioned is True
    assert CommandObject("/", "start").mentioned is False
    assert CommandObject("/", "start").text == "/start"
    assert obj == CommandObject("/", "start", "Bot", "a b")
    assert obj != CommandObject("/", "start", "Bot", "a")
    assert hash(obj) == hash(CommandObject("/", "start", "Bot", "a b"))
    assert obj.replace(args=None) == CommandObject("/", "start", "Bot")
    assert obj.args == "a b"  # replace made a copy
    assert "command='start'" in repr(obj)
    with pytest.raises(AttributeError):
        obj.args = "x"  # type: ignore[misc]
    assert not hasattr(obj, "__dict__")


# -- Command ---------------------------------------------------------------------------


async def test_command_matches_names_and_injects_the_command() -> None:
    f = Command("start", "help")
    result = await f(message("/help topic"))
    assert result == {"command": CommandObject("/", "help", None, "topic")}
    assert await f(message("/start")) == {"command": CommandObject("/", "start")}
    assert await f(message("/stop")) is False
    assert await f(message("start")) is False
    assert await f(message("/starts")) is False
    assert await f(message()) is False  # no text at all
    assert f.commands == ("start", "help") and f.prefix == "/"


async def test_command_in_a_caption() -> None:
    result = await Command("upload")(message(caption="/upload holiday"))
    assert isinstance(result, dict) and result["command"].args == "holiday"
    assert await Command("upload")(message(caption="no command")) is False


async def test_commands_keyword_bot_command_and_prefixes() -> None:
    f = Command(commands=["a", BotCommand(command="b", description="B")], prefix="!/")
    assert f.commands == ("a", "b")
    assert await f(message("!a")) == {"command": CommandObject("!", "a")}
    assert await f(message("/b")) == {"command": CommandObject("/", "b")}
    assert await f(message("#a")) is False
    assert Command("x", commands="y").commands == ("x", "y")


async def test_ignore_case() -> None:
    assert await Command("start")(message("/START")) is False
    f = Command("Start", ignore_case=True)
    assert f.commands == ("start",)
    result = await f(message("/START now"))
    assert isinstance(result, dict) and result["command"].command == "START"  # as written


async def test_regexp_commands() -> None:
    f = Command(re.compile(r"item_(\d+)"), "list")
    assert f.names == ("list",) and len(f.patterns) == 1
    assert f.commands == (f.patterns[0], "list")  # aiogram's: every command, in order
    result = await f(message("/item_42 details"))
    assert isinstance(result, dict)
    command = result["command"]
    assert command.command == "item_42" and command.args == "details"
    assert command.regexp_match is not None and command.regexp_match.group(1) == "42"
    assert await f(message("/items")) is False
    assert await f(message("/list")) == {"command": CommandObject("/", "list")}


def test_command_validation() -> None:
    with pytest.raises(ValueError, match="at least one"):  # aiogram's error type
        Command()
    with pytest.raises(ValueError, match=r"Command\('start'\)"):
        Command("/start")
    for bad in ("", "two words", "a@b"):
        with pytest.raises(ValueError):
            Command(bad)
    with pytest.raises(ValueError):
        Command(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="iterable"):
        Command(commands=42)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Command("a", prefix="")


def test_command_is_an_async_filter_taking_bot() -> None:
    f = Command("start")
    assert f.is_async is True and filter_is_async(f) is True
    assert filter_params(f) == ("bot",)
    assert (
        repr(Command("a", prefix="!", ignore_case=True))
        == "Command('a', prefix='!', ignore_case=True)"
    )


async def test_mentions_are_checked_against_the_bot_username(
    tg: tuple[FakeTelegram, Bot],
) -> None:
    fake, bot = tg
    f = Command("start")
    assert await f(message("/start"), bot) == {"command": CommandObject("/", "start")}
    assert fake.calls_to("getMe") == []  # no mention: no API call
    result = await f(message("/start@TGFAST_Test_Bot go"), bot)
    assert result == {"command": CommandObject("/", "start", "TGFAST_Test_Bot", "go")}
    assert await f(message("/start@other_bot"), bot) is False
    assert await f(message("/stop@tgfast_test_bot"), bot) is False
    assert len(fake.calls_to("getMe")) == 1  # asked once, then cached by the Bot


async def test_ignore_mention_and_no_bot(tg: tuple[FakeTelegram, Bot]) -> None:
    fake, bot = tg
    loose = Command("start", ignore_mention=True)
    assert isinstance(await loose(message("/start@other_bot"), bot), dict)
    assert fake.calls_to("getMe") == []
    assert await Command("start")(message("/start@tgfast_test_bot")) is False  # no bot given


def test_check_for_a_routing_table() -> None:
    f = Command("start", re.compile(r"go_(\w+)"), prefix="/!")
    plain = parse_command("/start x")
    assert plain is not None and f.check(plain, None) is plain
    mentioned = parse_command("/start@My_Bot")
    assert mentioned is not None
    assert f.check(mentioned, "my_bot") is mentioned
    assert f.check(mentioned, "other") is None
    assert f.check(mentioned, None) is None
    assert Command("start", ignore_mention=True).check(mentioned, None) is mentioned
    go = parse_command("!go_home", f.prefix)
    assert go is not None
    matched = f.check(go, None)
    assert matched is not None and matched.regexp_match is not None
    assert matched.regexp_match.group(1) == "home"
    other_prefix = parse_command("#start", "#")
    assert other_prefix is not None and f.check(other_prefix, None) is None


# -- CommandStart and deep links -------------------------------------------------------


async def test_command_start_plain_and_deep_link() -> None:
    plain = CommandStart()
    assert await plain(message("/start")) == {"command": CommandObject("/", "start")}
    assert await plain(message("/start ref42")) == {
        "command": CommandObject("/", "start", None, "ref42")
    }
    assert await plain(message("/help")) is False
    needs_link = CommandStart(deep_link=True)
    assert await needs_link(message("/start")) is False
    result = await needs_link(message("/start ref42"))
    assert isinstance(result, dict) and result["command"].args == "ref42"
    assert needs_link.commands == ("start",)
    no_link = CommandStart(deep_link=False)  # aiogram's three values: False = no payload
    assert await no_link(message("/start")) == {"command": CommandObject("/", "start")}
    assert await no_link(message("/start ref42")) is False
    assert repr(no_link) == "CommandStart(deep_link=False)"


async def test_command_flags_magic_dict_and_str() -> None:
    f = Command("test", magic=F.args.as_("args"))
    flags: dict[str, list[object]] = {}
    f.update_handler_flags(flags)
    assert flags == {"commands": [f]}
    result = await f(message("/test 42"))
    assert isinstance(result, dict) and result["args"] == "42"  # a magic dict is injected
    assert result["command"].magic_result == {"args": "42"}
    assert str(Command("start")) == (
        "Command('start', prefix='/', ignore_case=False, ignore_mention=False)"
    )
    assert str(CommandStart()).startswith("CommandStart(ignore_case=False")
    assert await Command("Start", ignore_case=True)(message("/START")) is not False
    pattern = re.compile("item", re.IGNORECASE)  # ignore_case leaves a regexp alone
    assert await Command(pattern, ignore_case=True)(message("/ITEM")) is not False
    assert await Command(re.compile("item"), ignore_case=True)(message("/ITEM")) is False


async def test_command_start_encoded_payloads() -> None:
    f = CommandStart(deep_link=True, deep_link_encoded=True)
    payload = encode_payload("user:42 ☕")
    result = await f(message(f"/start {payload}"))
    assert isinstance(result, dict) and result["command"].args == "user:42 ☕"
    assert await f(message("/start not*base64")) is False
    assert await f(message("/start a")) is False  # 1 char: never base64
    assert await f(message("/start //8")) is False  # not the url-safe alphabet
    assert await f(message("/start _w")) is False  # decodes to 0xFF: not UTF-8
    assert await f(message("/start")) is False
    optional = CommandStart(deep_link_encoded=True)
    assert await optional(message("/start")) == {"command": CommandObject("/", "start")}


async def test_command_start_case_and_mention(tg: tuple[FakeTelegram, Bot]) -> None:
    _, bot = tg
    assert await CommandStart()(message("/START"), bot) is False
    assert isinstance(await CommandStart(ignore_case=True)(message("/START"), bot), dict)
    assert await CommandStart()(message("/start@someone_else x"), bot) is False
    assert isinstance(await CommandStart()(message("/start@tgfast_test_bot x"), bot), dict)
    assert repr(CommandStart(deep_link=True)) == "CommandStart(deep_link=True)"


@given(st.text(max_size=200))
def test_payload_round_trip(text: str) -> None:
    encoded = encode_payload(text)
    assert re.fullmatch(r"[A-Za-z0-9_-]*", encoded)
    assert decode_payload(encoded) == text


@pytest.mark.parametrize("bad", ["a", "abcde", "a+b/", "ab==", "ab cd", "_w", "é"])
def test_decode_payload_rejects_garbage(bad: str) -> None:
    with pytest.raises(DeepLinkError) as info:
        decode_payload(bad)
    assert isinstance(info.value, TgfastError) and isinstance(info.value, ValueError)


async def test_create_links(tg: tuple[FakeTelegram, Bot]) -> None:
    _, bot = tg
    assert await create_start_link(bot, "ref-42_a") == "https://t.me/tgfast_test_bot?start=ref-42_a"
    link = await create_start_link(bot, "any text: ☕", encode=True)
    assert link.startswith("https://t.me/tgfast_test_bot?start=")
    assert decode_payload(link.rpartition("=")[2]) == "any text: ☕"
    group = await create_startgroup_link(bot, "g1")
    assert group == "https://t.me/tgfast_test_bot?startgroup=g1"
    assert await create_startapp_link(bot, "x") == "https://t.me/tgfast_test_bot?startapp=x"
    app = await create_startapp_link(bot, "x", app_name="shop")
    assert app == "https://t.me/tgfast_test_bot/shop?startapp=x"


async def test_link_payload_limits(tg: tuple[FakeTelegram, Bot]) -> None:
    fake, bot = tg
    assert await create_start_link(bot, "a" * 64)
    with pytest.raises(DeepLinkError, match="at most 64 characters; this one is 65"):
        await create_start_link(bot, "a" * 65)
    with pytest.raises(DeepLinkError, match="this one is 67 once base64-encoded"):
        await create_start_link(bot, "a" * 50, encode=True)
    with pytest.raises(DeepLinkError, match="encode=True"):
        await create_startgroup_link(bot, "has space")
    assert await create_startapp_link(bot, "a" * 512)
    with pytest.raises(DeepLinkError, match="512"):
        await create_startapp_link(bot, "a" * 513)
    calls = len(fake.calls_to("getMe"))
    with pytest.raises(DeepLinkError):
        await create_start_link(bot, "a" * 65)
    assert len(fake.calls_to("getMe")) == calls  # refused before asking anything


async def test_command_with_magic_and_callables() -> None:
    def has_args(message: Message, command: CommandObject) -> bool:
        return command.args is not None

    f = Command("ban") & F.chat.type.in_({"private"})
    assert await f(message("/ban 5")) == {"command": CommandObject("/", "ban", None, "5")}
    assert filter_params(f) == ("bot",)
    assert filter_params(has_args) == ("command",)


async def test_command_magic_checks_the_command_object() -> None:
    numeric = Command("ban", magic=F.args.regexp(r"^\d+$"))
    assert await numeric(message("/ban")) is False  # no args: the magic gives None
    assert await numeric(message("/ban bob")) is False
    result = await numeric(message("/ban 42"))
    assert isinstance(result, dict)
    command = result["command"]
    assert command.args == "42" and command.magic_result.group(0) == "42"
    assert repr(numeric) == "Command('ban', magic=F.args.regexp('^\\\\d+$'))"
    parsed = parse_command("/ban 7")
    assert parsed is not None and parsed.magic_result is None
    checked = numeric.check(parsed, None)
    assert checked is not None and checked.magic_result is not None
    assert numeric.check(parse_command("/ban x"), None) is None  # type: ignore[arg-type]

    named = Command("greet", magic=F.args.as_("name"))
    result = await named(message("/greet Ann"))
    assert isinstance(result, dict) and result["command"].magic_result == {"name": "Ann"}
    assert "magic_result={'name': 'Ann'}" in repr(result["command"])
    hash(result["command"])  # a dict result does not make it unhashable

    start = CommandStart(deep_link=True, magic=F.args.startswith("ref"))
    assert await start(message("/start ref42")) not in (False, None)
    assert await start(message("/start other")) is False
    assert "magic=F.args.startswith('ref')" in repr(start)
    with pytest.raises(TypeError, match="magic filter"):
        Command("x", magic=lambda c: True)  # type: ignore[arg-type]
