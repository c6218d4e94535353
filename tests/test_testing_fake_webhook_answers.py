"""FakeTelegram performs webhook answers in every encoding Telegram takes (aiogram's
handlers answer with multipart forms), and ``--fake``'s ``/fake/updates`` says how the
handling of each update ended."""

from __future__ import annotations

import re
import textwrap
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp
from aiohttp import web
from server_support import TgfastProcess, message

from tgfast.testing import FakeTelegram


@asynccontextmanager
async def serving(app: web.Application) -> AsyncIterator[str]:
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    host, port = runner.addresses[0][:2]
    try:
        yield f"http://{host}:{port}/wh"
    finally:
        await runner.cleanup()


async def test_aiogram_multipart_answers_are_performed(fake: FakeTelegram) -> None:
    import aiogram
    from aiogram.client.session.aiohttp import AiohttpSession
    from aiogram.client.telegram import TelegramAPIServer
    from aiogram.methods import SendMessage, SendPhoto
    from aiogram.types import BufferedInputFile
    from aiogram.types import Message as AiogramMessage
    from aiogram.webhook.aiohttp_server import SimpleRequestHandler

    dp = aiogram.Dispatcher()

    @dp.message(aiogram.F.text == "photo")
    async def photo(message: AiogramMessage) -> SendPhoto:
        picture = BufferedInputFile(b"\xff\xd8jpeg", filename="pic.jpg")
        return SendPhoto(chat_id=message.chat.id, photo=picture, caption="a picture")

    @dp.message()
    async def text(message: AiogramMessage) -> SendMessage:
        return SendMessage(chat_id=message.chat.id, text=f"re: {message.text}")

    bot = aiogram.Bot(fake.token, session=AiohttpSession(api=TelegramAPIServer.from_base(fake.url)))
    app = web.Application()
    SimpleRequestHandler(dp, bot, handle_in_background=False).register(app, path="/wh")
    async with serving(app) as url:
        assert await fake.deliver(message(1, 4, "hi"), url=url) == 200
        assert await fake.deliver(message(2, 4, "photo"), url=url) == 200
    send, upload = [c for c in fake.calls if c.http_method == "WEBHOOK"]
    assert send.content_type == "multipart/form-data"
    assert (send.method, send.params["chat_id"], send.params["text"]) == (
        "sendMessage",
        4,
        "re: hi",
    )
    assert upload.method == "sendPhoto" and upload.params["photo"].startswith("attach://")
    assert upload.files[upload.params["photo"][len("attach://") :]].data == b"\xff\xd8jpeg"
    texts = [m.get("text") or m.get("caption") for m in fake.sent_messages(4)]
    assert texts == ["re: hi", "a picture"]
    assert "photo" in fake.sent_messages(4)[1]


async def test_urlencoded_and_json_answers_are_performed(fake: FakeTelegram) -> None:
    async def urlencoded(request: web.Request) -> web.Response:
        body = "method=sendMessage&chat_id=8&text=form+answer&disable_notification=true"
        return web.Response(body=body, content_type="application/x-www-form-urlencoded")

    async def json(request: web.Request) -> web.Response:
        return web.json_response({"method": "sendMessage", "chat_id": 8, "text": "json answer"})

    async def nothing(request: web.Request) -> web.Response:
        return web.json_response({})  # aiogram's answer when the handler returns nothing

    for handler in (urlencoded, json, nothing):
        app = web.Application()
        app.router.add_post("/wh", handler)
        async with serving(app) as url:
            assert await fake.deliver(message(1, 8, "x"), url=url) == 200
    [form, plain] = fake.calls_to("sendMessage")
    assert form.params == {"chat_id": 8, "text": "form answer", "disable_notification": True}
    assert plain.params == {"chat_id": 8, "text": "json answer"}


APP = """
from tgfast import Dispatcher, F
from tgfast.types import Message

dp = Dispatcher()


@dp.message(F.text == "boom")
async def boom(message: Message) -> None:
    raise RuntimeError("the handler broke")


@dp.message(F.text)
async def hi(message: Message) -> None:
    await message.answer("hi")
"""

_FAKE_FEED = re.compile(r"feed it: .* (http://\S+)/fake/updates")


async def test_fake_updates_reports_the_outcome(tmp_path: Path) -> None:
    (tmp_path / "outcome_app.py").write_text(textwrap.dedent(APP))
    for mode in ("webhook", "polling"):
        served, base = await TgfastProcess.start(
            mode, "outcome_app:dp", "--fake", "--port", "0", "--no-uvloop",
            cwd=tmp_path, ready=_FAKE_FEED,
        )  # fmt: skip
        try:
            async with aiohttp.ClientSession() as http:
                feed: list[dict[str, object]] = [
                    {"text": "hi", "chat_id": 5},
                    {"text": "boom", "chat_id": 5},
                ]
                if mode == "webhook":  # polling: Telegram holds back kinds not asked for
                    feed.append({"callback_data": "nobody listens", "chat_id": 5})
                async with http.post(f"{base}/fake/updates", json=feed) as r:
                    report = await r.json()
        finally:
            assert await served.stop() == 0
        expected = ["handled", "failed", "unhandled"][: len(feed)]
        assert [item["outcome"] for item in report] == expected, mode
        assert "the handler broke" in "".join(served.log)
