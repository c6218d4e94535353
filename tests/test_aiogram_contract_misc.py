"""aiogram's contract in smaller places (issue #25, item 10): the aiohttp request
handlers answer ``{}`` when there is no method to answer with, uploads read themselves
in ``chunk_size`` pieces, callback data raises aiogram's error types."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from server_support import message, post

from tgfast import Bot, Dispatcher
from tgfast.filters.callback_data import CallbackData, CallbackDataError
from tgfast.methods import SendMessage
from tgfast.types import BufferedInputFile, FSInputFile, Message
from tgfast.webhook.aiohttp_server import SimpleRequestHandler


@asynccontextmanager
async def serving(app: web.Application) -> AsyncIterator[str]:
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    try:
        yield f"http://{host}:{port}"
    finally:
        await runner.cleanup()


@pytest.mark.parametrize("background", [True, False])
async def test_no_method_to_answer_is_an_empty_json_object(bot: Bot, background: bool) -> None:
    dp = Dispatcher()

    @dp.message()
    async def quiet(message: Message) -> SendMessage | None:
        if message.text == "reply":
            return SendMessage(chat_id=message.chat.id, text="hi")
        return None

    app = web.Application()
    SimpleRequestHandler(dp, bot, handle_in_background=background).register(app, path="/wh")
    async with serving(app) as base, aiohttp.ClientSession() as http:
        status, body, headers = await post(http, f"{base}/wh", message(1, 7, "quiet"))
        assert (status, body) == (200, b"{}")
        assert headers["Content-Type"].startswith("application/json")
        status, body, _ = await post(http, f"{base}/wh", message(2, 7, "reply"))
        if background:
            assert (status, body) == (200, b"{}")
        else:
            assert status == 200 and b'"method":"sendMessage"' in body


async def test_uploads_read_in_chunks(tmp_path: Path) -> None:
    buffered = BufferedInputFile(b"\f" * 10, filename="file.bin", chunk_size=3)
    assert buffered.chunk_size == 3
    assert [c async for c in buffered.read(None)] == [b"\f" * 3] * 3 + [b"\f"]
    path = tmp_path / "f.bin"
    path.write_bytes(b"abcdefg")
    assert [c async for c in FSInputFile(path, chunk_size=2).read(None)] == [
        b"ab", b"cd", b"ef", b"g"
    ]  # fmt: skip
    loaded = BufferedInputFile.from_file(path, chunk_size=4)
    assert loaded.chunk_size == 4 and [c async for c in loaded.read(None)] == [b"abcd", b"efg"]
    with pytest.raises(ValueError, match="chunk_size"):
        BufferedInputFile(b"x", "x", chunk_size=0)


class Item(CallbackData, prefix="item"):
    name: str
    count: int


def test_callback_data_errors_are_aiogrames() -> None:
    with pytest.raises(ValueError, match="prefix required"):

        class NoPrefix(CallbackData):  # type: ignore[call-arg]
            x: int

    with pytest.raises(ValueError, match="Separator symbol '@'"):

        class BadSep(CallbackData, prefix="sp@m", sep="@"):
            x: int

    with pytest.raises(ValueError, match="Separator symbol"):
        Item(name="a:b", count=1).pack()
    with pytest.raises(ValueError, match="too long"):
        Item(name="x" * 64, count=1).pack()
    with pytest.raises(TypeError, match="takes 2 arguments but 3 were given"):
        Item.unpack("item:a:1:2")
    with pytest.raises(ValueError, match="Bad prefix"):
        Item.unpack("other:a:1")
    with pytest.raises(CallbackDataError):  # all of them tgfast's one error type too
        Item.unpack("item:a:1:2")
    assert Item.__separator__ == ":"
