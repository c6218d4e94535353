"""aiogram's client surface on tgfast: the module map, and the same calls.

aiogram (installed as a test dependency) is the reference: its modules say which names
must exist, and its ``Bot`` makes the calls tgfast's must make, both recorded by one
FakeTelegram.
"""

from __future__ import annotations

import ast
import asyncio
import dataclasses
import importlib
import inspect
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import aiogram
import aiogram.client.bot
import aiogram.methods
import aiogram.types as at
import aiohttp
import orjson
import pytest
from aiogram.client.default import DefaultBotProperties as AiogramDefaults
from aiogram.client.session.aiohttp import AiohttpSession as AiogramSession
from aiogram.client.telegram import TelegramAPIServer as AiogramServer
from server_support import message, post, served

import tgfast
import tgfast.types as tt
from tgfast.client.bot import Bot
from tgfast.client.default import DEFAULT, BotDefaults, Default, DefaultBotProperties
from tgfast.client.session.aiohttp import AiohttpSession
from tgfast.client.telegram import (
    PRODUCTION,
    TELEGRAM,
    TEST,
    BareFilesPathWrapper,
    SimpleFilesPathWrapper,
    TelegramAPIServer,
    TelegramServer,
)
from tgfast.methods import METHODS
from tgfast.testing import FakeTelegram

MODULES = [
    "client.bot",
    "client.default",
    "client.session.aiohttp",
    "client.session.base",
    "client.telegram",
]


def defined_names(module: str) -> set[str]:
    """The public names a module defines itself (not imported, not type variables)."""
    mod = importlib.import_module(module)
    tree = ast.parse(inspect.getsource(mod))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    public = {n for n in names if not n.startswith("_")}
    return {n for n in public if not isinstance(getattr(mod, n), TypeVar)}


@pytest.mark.parametrize("path", MODULES)
def test_every_aiogram_name_has_a_twin(path: str) -> None:
    expected = defined_names(f"aiogram.{path}")
    assert expected, path  # the rule finds something in each module
    twin = importlib.import_module(f"tgfast.{path}")
    missing = sorted(name for name in expected if not hasattr(twin, name))
    assert missing == [], f"tgfast.{path} lacks aiogram's {missing}"


# the names aiogram's classes have that tgfast's twins deliberately lack, and why
SESSION_INTERNALS = {
    "build_form_data": "aiogram's session encodes calls; tgfast's Bot encodes them itself",
}


def public_members(obj: Any) -> set[str]:
    return {name for name in dir(obj) if not name.startswith("_")}


def test_the_classes_have_aiogram_s_members() -> None:
    assert public_members(AiogramDefaults()) <= public_members(DefaultBotProperties())
    server = AiogramServer.from_base("http://localhost:8081")
    assert public_members(server) <= public_members(TelegramAPIServer.from_base(server.base))
    theirs = public_members(AiogramSession())
    assert theirs - public_members(AiohttpSession()) == set(SESSION_INTERNALS)
    # Bot: every member that is not a Bot API method, and every API method tgfast's
    # spec has, under the same name
    api = {m.__dict__["__api_method__"] for m in vars(aiogram.methods).values() if _is_method(m)}
    snake = {_snake(name): name for name in api}
    for name in public_members(aiogram.client.bot.Bot):
        if name not in snake or snake[name] in METHODS:
            assert hasattr(Bot, name), name
    for name in ("session", "default", "token", "id"):
        assert hasattr(Bot("1:a", default=DefaultBotProperties()), name)


def _is_method(obj: Any) -> bool:
    return isinstance(obj, type) and isinstance(obj.__dict__.get("__api_method__"), str)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def test_default_bot_properties_match_aiogram() -> None:
    kwargs = {
        "parse_mode": "HTML",
        "link_preview_is_disabled": True,
        "link_preview_show_above_text": True,
    }
    ours, theirs = DefaultBotProperties(**kwargs), AiogramDefaults(**kwargs)
    assert ours.link_preview is not None and theirs.link_preview is not None
    assert ours.link_preview.to_dict() == theirs.link_preview.model_dump(exclude_none=True)
    for name in ("parse_mode", "link_preview", "missing_name"):
        assert (ours[name] is None) == (theirs[name] is None)
    # tgfast's earlier name builds the same thing by position
    old = BotDefaults("HTML", None, True)
    assert isinstance(old, DefaultBotProperties)
    assert (old.parse_mode, old.protect_content) == ("HTML", True)
    # aiogram's named markers: one per name, equal by name; DEFAULT names none
    assert Default("parse_mode") is Default("parse_mode") == Default("parse_mode")
    assert Default("parse_mode") != Default("protect_content")
    assert Default("parse_mode") != DEFAULT and Default() is DEFAULT
    assert Default("parse_mode").name == "parse_mode" and DEFAULT.name is None


def test_servers_build_aiogram_s_urls() -> None:
    ours_and_theirs = [
        (PRODUCTION, aiogram.client.telegram.PRODUCTION),
        (TEST, aiogram.client.telegram.TEST),
        (
            TelegramAPIServer.from_base("http://localhost:8081/", is_local=True),
            AiogramServer.from_base("http://localhost:8081/", is_local=True),
        ),
    ]
    for ours, theirs in ours_and_theirs:
        assert ours.api_url("1:a", "getMe") == theirs.api_url("1:a", "getMe")
        assert ours.file_url("1:a", "photos/x.jpg") == theirs.file_url("1:a", "photos/x.jpg")
        assert ours.is_local == theirs.is_local
    with pytest.raises(ValueError, match="not an http"):
        TelegramAPIServer.from_base("localhost:8081")


def test_one_class_per_pair_and_the_other_name_an_alias() -> None:
    """tgfast's earlier names are aiogram's objects: ``BotSession``, ``BotDefaults`` and
    ``TELEGRAM`` the same objects; ``TelegramServer(url)`` builds a ``TelegramAPIServer``."""
    assert tgfast.BotSession is tgfast.client.BotSession is AiohttpSession
    assert tgfast.BotDefaults is BotDefaults is DefaultBotProperties
    assert TELEGRAM is PRODUCTION and tgfast.client.session.TELEGRAM is PRODUCTION
    assert tgfast.TelegramServer is TelegramServer is tgfast.client.session.TelegramServer

    server = tgfast.TelegramServer("http://127.0.0.1:8081/")
    assert type(server) is TelegramAPIServer
    assert server == TelegramAPIServer.from_base("http://127.0.0.1:8081")
    assert server.base_url == "http://127.0.0.1:8081"
    assert server.api_url("1:a", "getMe") == "http://127.0.0.1:8081/bot1:a/getMe"
    assert server.file_url("1:a", "x/y.jpg") == "http://127.0.0.1:8081/file/bot1:a/x/y.jpg"
    assert not server.is_local and not server.local and server.local_dir is None
    assert TelegramServer() == PRODUCTION and PRODUCTION.base_url == "https://api.telegram.org"
    assert TEST.base_url == "https://api.telegram.org"
    local = TelegramServer("http://127.0.0.1:8081", local=True, local_dir=Path("/srv/tba"))
    assert (local.is_local, local.local, local.local_dir) == (True, True, "/srv/tba")
    with pytest.raises(ValueError, match="local_dir"):
        TelegramServer("http://127.0.0.1:8081", local=True)
    with pytest.raises(ValueError, match="not an http"):
        TelegramServer("ftp://127.0.0.1")
    # aiogram's fields, defaults and positional order
    ours = [(f.name, f.default) for f in dataclasses.fields(TelegramAPIServer)]
    theirs = [(f.name, f.default) for f in dataclasses.fields(AiogramServer)]
    assert [name for name, _ in ours[: len(theirs)]] == [name for name, _ in theirs]
    assert ours[2][1] is False and isinstance(ours[3][1], BareFilesPathWrapper)
    assert TelegramAPIServer("b/{token}/{method}", "f/{token}/{path}").api_url("1:a", "m") == (
        "b/1:a/m"
    )
    # the token never shows: a Bot shows the plain address
    bot = Bot("123:SECRETPART", server="http://127.0.0.1:8081")
    assert bot.server == server
    assert repr(bot) == "Bot(id=123, server='http://127.0.0.1:8081')"
    assert "SECRETPART" not in repr(bot) + repr(bot.server) + str(bot.server)

    # DefaultBotProperties also takes BotDefaults' earlier form
    preview = tt.LinkPreviewOptions(is_disabled=True)
    assert BotDefaults("HTML", None, True, preview, True) == DefaultBotProperties(
        parse_mode="HTML", protect_content=True, link_preview=preview, allow_paid_broadcast=True
    )
    assert DefaultBotProperties(link_preview_options=preview).link_preview is preview
    with pytest.raises(TypeError, match="link preview once"):
        DefaultBotProperties(link_preview=preview, link_preview_options=preview)
    flags = DefaultBotProperties(link_preview_is_disabled=True)
    html = dataclasses.replace(flags, parse_mode="HTML")
    assert html.parse_mode == "HTML" and html.link_preview is flags.link_preview
    rebuilt = dataclasses.replace(flags, link_preview=None).link_preview  # the flag stays
    assert rebuilt is not None and rebuilt.to_dict() == preview.to_dict()


def test_bot_refuses_aiogram_s_removed_arguments_as_aiogram_does() -> None:
    for kwargs in ({"parse_mode": "HTML"}, {"disable_web_page_preview": True}):
        with pytest.raises(TypeError, match=r"default=DefaultBotProperties\("):
            aiogram.Bot("1:a", **kwargs)
        with pytest.raises(TypeError, match=r"default=DefaultBotProperties\("):
            Bot("1:a", **kwargs)
    with pytest.raises(TypeError, match="unexpected"):
        Bot("1:a", parse_mod="HTML")


async def test_the_session_s_server_is_the_bot_s(fake: FakeTelegram) -> None:
    server = TelegramAPIServer.from_base(fake.url)
    async with Bot(fake.token, session=AiohttpSession(api=server)) as bot:
        assert bot.server is server and bot.session.api is server
        assert (await bot.get_me()).id == bot.id
    # a session that never said where goes where the bot says
    async with Bot(fake.token, session=AiohttpSession(), server=fake.url) as bot:
        assert (await bot.get_me()).id == bot.id


async def test_a_session_passed_in_is_closed_with_its_last_bot(fake: FakeTelegram) -> None:
    # aiogram's usual form: the bot closes the session it was given ...
    session = AiohttpSession(api=TelegramAPIServer.from_base(fake.url))
    async with Bot(fake.token, session=session) as bot:
        await bot.get_me()
    assert session.closed
    # ... and bot.context() is aiogram's other form
    async with Bot(fake.token, session=session).context() as bot:
        await bot.get_me()
    assert session.closed


# -- the same calls through aiogram's Bot and tgfast's ------------------------------------

DEFAULTS = {
    "parse_mode": "HTML",
    "protect_content": True,
    "allow_sending_without_reply": True,
    "link_preview_is_disabled": True,
    "link_preview_prefer_small_media": True,
    "show_caption_above_media": True,
}


async def conversation(bot: Any, types: Any) -> None:
    """One script, written once, run with either framework's ``Bot`` and types."""
    await bot.send_message(1, "<b>plain</b>")
    await bot.send_message(1, "no parse mode", parse_mode=None, protect_content=False)
    await bot.send_message(
        1, "a quote", reply_parameters=types.ReplyParameters(message_id=1, quote="a")
    )
    await bot.send_message(
        1, "link", link_preview_options=types.LinkPreviewOptions(url="https://example.com")
    )
    await bot.send_message(
        1, "own", link_preview_options=types.LinkPreviewOptions(is_disabled=False)
    )
    photo = await bot.send_photo(1, "photo-id", caption="<i>c</i>")
    await bot.send_video(1, "video-id", caption="c", show_caption_above_media=False)
    await bot.send_media_group(
        1,
        [
            types.InputMediaPhoto(media="p1", caption="one"),
            types.InputMediaPhoto(media="p2", caption="two", parse_mode=None),
            types.InputMediaVideo(media="v1"),
        ],
    )
    sent = await bot.send_message(1, "to edit")
    await bot.edit_message_text("edited", chat_id=1, message_id=sent.message_id)
    await bot.edit_message_media(
        types.InputMediaPhoto(media="p3", caption="x"), chat_id=1, message_id=photo.message_id
    )
    await bot.copy_message(1, 1, sent.message_id, caption="copy")
    await bot.send_poll(
        1,
        "question?",
        [types.InputPollOption(text="a"), types.InputPollOption(text="b")],
        type="quiz",
        correct_option_ids=[0],
        explanation="because",
    )
    await bot.answer_inline_query(
        "query-1",
        [
            types.InlineQueryResultArticle(
                id="1",
                title="t",
                input_message_content=types.InputTextMessageContent(message_text="<b>x</b>"),
            ),
            types.InlineQueryResultPhoto(
                id="2",
                photo_url="https://e.x/p.jpg",
                thumbnail_url="https://e.x/t.jpg",
                caption="c",
            ),  # fmt: skip
            types.InlineQueryResultCachedDocument(id="3", title="d", document_file_id="doc"),
        ],
    )


@asynccontextmanager
async def aiogram_bot(fake: FakeTelegram, **defaults: Any) -> AsyncIterator[aiogram.Bot]:
    session = AiogramSession(api=AiogramServer.from_base(fake.url))
    bot = aiogram.Bot(fake.token, session=session, default=AiogramDefaults(**defaults))
    try:
        yield bot
    finally:
        await session.close()


def recorded(fake: FakeTelegram) -> list[tuple[str, dict[str, Any]]]:
    """The calls, less one documented difference: aiogram also sends the deprecated
    ``disable_web_page_preview`` (from ``link_preview_is_disabled``) beside the
    ``link_preview_options`` that carry it; tgfast sends the current parameter only."""
    calls = []
    for call in fake.calls:
        params = dict(call.params)
        # (even beside link_preview_options that say otherwise: see the "own" call)
        assert params.pop("disable_web_page_preview", True) is True  # the fake types it

        calls.append((call.method, params))
    return calls


async def same_calls(defaults: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The conversation's calls through aiogram's Bot and tgfast's, each on a fresh
    FakeTelegram (message ids then match); asserts they are equal."""
    async with FakeTelegram() as fake, aiogram_bot(fake, **defaults) as theirs:
        await conversation(theirs, at)
        expected = recorded(fake)
    async with (
        FakeTelegram() as fake,
        Bot(
            fake.token,
            server=fake.url,
            default=DefaultBotProperties(**defaults),
            rate_limiter=None,  # 14 sends to one chat: paced, they take 10 s
        ) as ours,
    ):
        await conversation(ours, tt)
        assert recorded(fake) == expected
        assert fake.errors == []
    return expected


async def test_defaults_make_the_same_calls_as_aiogram() -> None:
    expected = await same_calls(DEFAULTS)
    # the script reaches the defaults it is about
    flat = repr(expected)
    for needle in ("'quote_parse_mode': 'HTML'", "'show_caption_above_media': True",
                   "'allow_sending_without_reply': True", "'prefer_small_media': True",
                   "'text_parse_mode'", "'protect_content': True"):  # fmt: skip
        assert needle in flat, needle


async def test_without_defaults_the_calls_match_too() -> None:
    expected = await same_calls({})
    assert len(expected) == 14
    assert "parse_mode" not in repr(expected), expected


async def test_a_method_object_gets_the_nested_defaults_too(fake: FakeTelegram) -> None:
    defaults = DefaultBotProperties(parse_mode="MarkdownV2")
    async with Bot(fake.token, server=fake.url, default=defaults) as bot:
        media = [tt.InputMediaPhoto(media="p1", caption="one"), tt.InputMediaPhoto(media="p2")]
        await bot(tgfast.methods.SendMediaGroup(chat_id=1, media=media))
        # the object itself is unchanged: the default is filled in when it is sent
        assert media[0].parse_mode == Default("parse_mode")
        assert media[0].to_dict().get("parse_mode") is None
    (call,) = fake.calls_to("sendMediaGroup")
    assert [m["parse_mode"] for m in call.params["media"]] == ["MarkdownV2"] * 2


async def test_uploads_and_webhook_answers_get_the_nested_defaults(
    fake: FakeTelegram, http: aiohttp.ClientSession
) -> None:
    defaults = DefaultBotProperties(parse_mode="HTML", show_caption_above_media=True)
    async with Bot(fake.token, server=fake.url, default=defaults, rate_limiter=None) as bot:
        # multipart: the media around an uploaded file still get the defaults
        upload = tt.BufferedInputFile(b"\x89PNG", "a.png")
        await bot.send_media_group(
            1, [tt.InputMediaPhoto(media=upload, caption="a"), tt.InputMediaPhoto(media="b")]
        )
        (call,) = fake.calls_to("sendMediaGroup")
        assert call.files and [m["parse_mode"] for m in call.params["media"]] == ["HTML"] * 2
        assert call.params["media"][0]["show_caption_above_media"] is True
        # a method object returned as the webhook answer
        dp = tgfast.Dispatcher()

        @dp.message()
        async def reply(message: tt.Message) -> tgfast.methods.SendMediaGroup:
            media = [tt.InputMediaPhoto(media=m, caption="<b>c</b>") for m in ("x", "y")]
            return tgfast.methods.SendMediaGroup(chat_id=message.chat.id, media=media)

        async with served(dp, bot, reply_mode=True) as server:
            status, body, _ = await post(http, server.url or "", message(1, 3, "hi"))
        assert status == 200
        answer = orjson.loads(body)
        assert answer["method"] == "sendMediaGroup"
        assert [m["parse_mode"] for m in answer["media"]] == ["HTML"] * 2


async def test_disable_notification_is_applied_unlike_aiogram(fake: FakeTelegram) -> None:
    """A documented difference: aiogram 3.31 keeps the property but applies it nowhere."""
    async with aiogram_bot(fake, disable_notification=True) as theirs:
        await theirs.send_message(1, "x")
    async with Bot(
        fake.token, server=fake.url, default=DefaultBotProperties(disable_notification=True)
    ) as ours:
        await ours.send_message(1, "x")
    theirs_call, ours_call = fake.calls_to("sendMessage")
    assert "disable_notification" not in theirs_call.params
    assert ours_call.params["disable_notification"] is True


# -- downloads ----------------------------------------------------------------------------


async def test_downloads_return_what_aiogram_returns(fake: FakeTelegram, tmp_path: Path) -> None:
    content = b"0123456789" * 5000
    info = fake.add_file(content)
    results: dict[str, list[Any]] = {}
    async with aiogram_bot(fake) as theirs, Bot(fake.token, server=fake.url) as ours:
        for name, bot in (("aiogram", theirs), ("tgfast", ours)):
            out = results[name] = []
            memory = await bot.download(info["file_id"])
            out.append((type(memory).__name__, memory.tell(), memory.read() == content))
            unrewound = await bot.download(info["file_id"], seek=False)
            out.append(unrewound.tell())
            with open(tmp_path / f"{name}.bin", "wb") as f:
                assert await bot.download(info["file_id"], f) is f
            out.append((tmp_path / f"{name}.bin").read_bytes() == content)
            await bot.download_file(info["file_path"], str(tmp_path / f"{name}-str.bin"))
            out.append((tmp_path / f"{name}-str.bin").read_bytes() == content)
            file = await bot.get_file(info["file_id"])
            out.append((await bot.download(file)).read() == content)
    assert results["tgfast"] == results["aiogram"]
    assert results["tgfast"][0] == ("BytesIO", 0, True)


async def test_a_local_server_behind_a_path_wrapper(fake: FakeTelegram, tmp_path: Path) -> None:
    here = tmp_path / "mounted"
    (here / "docs").mkdir(parents=True)
    (here / "docs" / "a.txt").write_bytes(b"local bytes")
    wrapper = SimpleFilesPathWrapper(Path("/var/lib/tba"), here)
    server = TelegramAPIServer.from_base(fake.url, is_local=True, wrap_local_file=wrapper)
    assert server.local_dir == str(here)
    async with Bot(fake.token, session=AiohttpSession(api=server)) as bot:
        assert (await bot.download_file("/var/lib/tba/docs/a.txt")).read() == b"local bytes"
        with pytest.raises(tgfast.TgfastError, match="refusing to read"):
            await bot.download_file("/var/lib/tba/../../etc/hostname")
    bare = TelegramAPIServer.from_base(fake.url, is_local=True)
    async with Bot(fake.token, session=AiohttpSession(api=bare)) as bot:
        with pytest.raises(tgfast.TgfastError, match="local_dir"):
            await bot.download_file(str(here / "docs" / "a.txt"))


# -- proxies ------------------------------------------------------------------------------


async def socks5_proxy(seen: list[tuple[str, int]]) -> asyncio.Server:
    """A minimal SOCKS5 proxy (no authentication, CONNECT only) on 127.0.0.1."""

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        finally:
            writer.close()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        _ver, n = await reader.readexactly(2)
        await reader.readexactly(n)
        writer.write(b"\x05\x00")
        _ver, _cmd, _rsv, atyp = await reader.readexactly(4)
        if atyp == 1:
            host = ".".join(str(b) for b in await reader.readexactly(4))
        else:
            (length,) = await reader.readexactly(1)
            host = (await reader.readexactly(length)).decode()
        port = int.from_bytes(await reader.readexactly(2), "big")
        seen.append((host, port))
        up_reader, up_writer = await asyncio.open_connection(host, port)
        writer.write(b"\x05\x00\x00\x01" + bytes(4) + bytes(2))
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    return await asyncio.start_server(handle, "127.0.0.1", 0)


async def test_a_socks5_proxy_carries_the_calls(fake: FakeTelegram) -> None:
    seen: list[tuple[str, int]] = []
    proxy = await socks5_proxy(seen)
    port = proxy.sockets[0].getsockname()[1]
    try:
        session = AiohttpSession(proxy=f"socks5://127.0.0.1:{port}")
        async with Bot(fake.token, session=session, server=fake.url) as bot:
            assert (await bot.get_me()).id == bot.id
        assert seen and seen[0][1] == int(fake.url.rsplit(":", 1)[1])
        # a chain of one, aiogram's list form, goes through it too
        session = AiohttpSession(proxy=[f"socks5://127.0.0.1:{port}"])
        async with Bot(fake.token, session=session, server=fake.url) as bot:
            await bot.get_me()
        assert len(seen) == 2
    finally:
        proxy.close()
        await proxy.wait_closed()


def test_socks_without_the_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "aiohttp_socks", None)
    with pytest.raises(ImportError, match=r"tgfast\[socks\]"):
        AiohttpSession(proxy="socks5://127.0.0.1:1080")
    # an http proxy is aiohttp's own: no extra needed
    assert AiohttpSession(proxy="http://127.0.0.1:3128").proxy == "http://127.0.0.1:3128"
