"""The webhook application over real sockets: what it refuses, how it answers."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import aiohttp
import orjson
import pytest
from server_support import message, post, served

from tgfast import Bot, Dispatcher
from tgfast.methods import SendMessage, SendPhoto
from tgfast.server import SECRET_HEADER, WebhookServer
from tgfast.testing import FakeTelegram
from tgfast.types import BufferedInputFile, Message

SECRET = "s3cret-Token_1"


def echo_dispatcher() -> tuple[Dispatcher, list[str]]:
    dp = Dispatcher()
    handled: list[str] = []

    @dp.message()
    async def echo(message: Message) -> None:
        handled.append(message.text or "")
        await message.answer(message.text or "")

    return dp, handled


# -- the secret -------------------------------------------------------------------------


async def test_secret_token_is_required_and_checked(
    bot: Bot, fake: FakeTelegram, http: aiohttp.ClientSession
) -> None:
    dp, handled = echo_dispatcher()
    async with served(dp, bot, secret_token=SECRET) as server:
        assert server.url is not None
        assert (await post(http, server.url, message(1, 5, "none")))[0] == 403
        assert (await post(http, server.url, message(2, 5, "wrong"), secret="s3cret-Token_2"))[
            0
        ] == 403
        assert (await post(http, server.url, message(3, 5, "prefix"), secret=SECRET[:-1]))[0] == 403
        # a header that is not even ASCII is a 403, not a crash
        status, _, _ = await post(
            http, server.url, message(4, 5, "odd"), headers={SECRET_HEADER: "sécret"}
        )
        assert status == 403
        assert (await post(http, server.url, message(5, 5, "right"), secret=SECRET))[0] == 200
        await server.drain()
        assert handled == ["right"]
        assert server.metrics.rejected["secret"] == 4


async def test_telegram_delivers_with_the_registered_secret(bot: Bot, fake: FakeTelegram) -> None:
    dp, handled = echo_dispatcher()
    async with served(dp, bot, secret_token=SECRET) as server:
        await bot.set_webhook(server.url or "", secret_token=SECRET)
        assert await fake.deliver(message(1, 7, "via the fake")) == 200
        assert await fake.deliver(message(2, 7, "forged"), secret_token="other") == 403
        await server.drain()
    assert handled == ["via the fake"]
    assert [m["text"] for m in fake.sent_messages(7)] == ["via the fake"]


def test_a_secret_telegram_would_refuse_is_refused_up_front(bot: Bot) -> None:
    dp, _ = echo_dispatcher()
    for bad in ("", "has space", "x" * 257, "ünï"):
        with pytest.raises(ValueError, match="secret_token"):
            WebhookServer(dp, bot, secret_token=bad)


# -- bodies -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"", "invalid JSON"),
        (b"{not json", "invalid JSON"),
        (b"[1, 2]", "expected object"),
        (b'{"update_id": "1"}', "update_id"),
        (b'{"update_id": 1, "message": {"message_id": 1, "date": 1, "chat": {"id": "x"}}}',
         "chat"),
    ],
)  # fmt: skip
async def test_a_body_that_does_not_decode_is_a_400_with_the_reason_logged(
    bot: Bot,
    http: aiohttp.ClientSession,
    caplog: pytest.LogCaptureFixture,
    body: bytes,
    reason: str,
) -> None:
    dp, handled = echo_dispatcher()
    async with served(dp, bot) as server:
        with caplog.at_level(logging.WARNING, logger="tgfast.server"):
            status, answer, _ = await post(http, server.url or "", body)
        assert status == 400
        assert reason in answer.decode()
        [record] = [r for r in caplog.records if r.name == "tgfast.server"]
        assert "not an update" in record.getMessage() and reason in record.getMessage()
        # and the server is fine afterwards
        assert (await post(http, server.url or "", message(9, 1, "after")))[0] == 200
        await server.drain()
    assert handled == ["after"]
    assert server.metrics.rejected["bad_body"] == 1


async def test_oversized_bodies_are_413_whether_announced_or_streamed(
    bot: Bot, http: aiohttp.ClientSession
) -> None:
    dp, handled = echo_dispatcher()
    async with served(dp, bot, max_body_size=2048) as server:
        url = server.url or ""
        big = orjson.dumps(message(1, 1, "x" * 4096))
        assert (await post(http, url, big))[0] == 413

        async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: chunked transfer
            for i in range(0, len(big), 512):
                yield big[i : i + 512]

        async with http.post(url, data=chunks()) as resp:
            assert resp.status == 413
        fits = orjson.dumps(message(2, 1, "x" * 1000))
        assert len(fits) < 2048
        assert (await post(http, url, fits))[0] == 200
        await server.drain()
    assert handled == ["x" * 1000]
    assert server.metrics.rejected["too_large"] == 2


async def test_wrong_method_is_405_and_unknown_path_404(
    bot: Bot, http: aiohttp.ClientSession
) -> None:
    dp, handled = echo_dispatcher()
    async with served(dp, bot, path="/hook/abc") as server:
        base = (server.url or "").removesuffix("/hook/abc")
        async with http.get(f"{base}/hook/abc") as resp:
            assert resp.status == 405 and resp.headers["Allow"] == "POST"
        async with http.post(f"{base}/hook/other", data=orjson.dumps(message(1, 1, "x"))) as resp:
            assert resp.status == 404
        async with http.get(f"{base}/") as resp:
            assert resp.status == 404
        assert (await post(http, f"{base}/hook/abc", message(2, 1, "ok")))[0] == 200
        await server.drain()
    assert handled == ["ok"]
    assert server.metrics.rejected["method"] == 1
    assert server.metrics.rejected["path"] == 2


# -- answering --------------------------------------------------------------------------


async def test_acknowledges_before_the_handler_finishes(
    bot: Bot, http: aiohttp.ClientSession
) -> None:
    dp = Dispatcher()
    release = asyncio.Event()
    finished: list[int] = []

    @dp.message()
    async def slow(message: Message) -> None:
        await release.wait()
        finished.append(message.message_id)

    async with served(dp, bot) as server:
        status, body, _ = await post(http, server.url or "", message(1, 1, "slow"))
        assert (status, body) == (200, b"")
        assert finished == [] and server.processor.in_flight == 1
        release.set()
        await server.drain()
    assert finished == [1]


async def test_reply_mode_answers_with_the_method_object(
    bot: Bot, fake: FakeTelegram, http: aiohttp.ClientSession
) -> None:
    dp = Dispatcher()

    @dp.message()
    async def reply(message: Message) -> SendMessage:
        return SendMessage(chat_id=message.chat.id, text=f"re: {message.text}")

    async with served(dp, bot, reply_mode=True) as server:
        status, body, headers = await post(http, server.url or "", message(1, 3, "hi"))
        assert status == 200 and headers["Content-Type"] == "application/json"
        assert orjson.loads(body) == {"method": "sendMessage", "chat_id": 3, "text": "re: hi"}
        # through the fake, Telegram performs the method from the webhook answer
        await bot.set_webhook(server.url or "")
        assert await fake.deliver(message(2, 3, "again")) == 200
    [call] = fake.calls_to("sendMessage")
    assert call.http_method == "WEBHOOK" and call.params["text"] == "re: again"


async def test_reply_mode_falls_back_to_a_call_when_the_handler_is_slow(
    bot: Bot, fake: FakeTelegram, http: aiohttp.ClientSession
) -> None:
    dp = Dispatcher()
    release = asyncio.Event()

    @dp.message()
    async def slow(message: Message) -> SendMessage:
        await release.wait()
        return SendMessage(chat_id=message.chat.id, text="late")

    async with served(dp, bot, reply_mode=True, reply_timeout=0.05) as server:
        status, body, _ = await post(http, server.url or "", message(1, 4, "hi"))
        assert (status, body) == (200, b"")  # gave up waiting
        assert fake.calls_to("sendMessage") == []
        release.set()
        await server.drain()
    [call] = fake.calls_to("sendMessage")
    assert call.http_method == "POST" and call.params == {"chat_id": 4, "text": "late"}
    assert server.metrics.handled["message"] == 1


async def test_reply_mode_calls_a_method_that_uploads_a_file(
    bot: Bot, fake: FakeTelegram, http: aiohttp.ClientSession
) -> None:
    dp = Dispatcher()

    @dp.message()
    async def photo(message: Message) -> SendPhoto:
        return SendPhoto(chat_id=message.chat.id, photo=BufferedInputFile(b"\x89PNG", "a.png"))

    @dp.edited_message()
    async def by_id(message: Message) -> SendPhoto:
        return SendPhoto(chat_id=message.chat.id, photo="AgACAgIAAx")

    async with served(dp, bot, reply_mode=True) as server:
        status, body, _ = await post(http, server.url or "", message(1, 4, "photo"))
        assert (status, body) == (200, b"")  # multipart cannot be a webhook answer
        await server.drain()
        [call] = fake.calls_to("sendPhoto")
        assert call.http_method == "POST" and call.files["photo"].data == b"\x89PNG"
    async with served(dp, bot, reply_mode=True) as server:
        edited = message(2, 4, "edited")
        edited["edited_message"] = edited.pop("message")
        status, body, _ = await post(http, server.url or "", edited)
        assert orjson.loads(body) == {"method": "sendPhoto", "chat_id": 4, "photo": "AgACAgIAAx"}


async def test_a_method_returned_in_fast_mode_is_sent_by_a_call(
    bot: Bot, fake: FakeTelegram, http: aiohttp.ClientSession
) -> None:
    dp = Dispatcher()

    @dp.message()
    async def reply(message: Message) -> SendMessage:
        return SendMessage(chat_id=message.chat.id, text="called")

    async with served(dp, bot) as server:
        assert (await post(http, server.url or "", message(1, 8, "x")))[0:2] == (200, b"")
        await server.drain()
    assert [m["text"] for m in fake.sent_messages(8)] == ["called"]


# -- health and readiness ---------------------------------------------------------------


async def test_healthz_and_readyz_follow_the_life_cycle(
    bot: Bot, http: aiohttp.ClientSession
) -> None:
    dp = Dispatcher()
    release = asyncio.Event()

    @dp.message()
    async def slow(message: Message) -> None:
        await release.wait()

    async with served(dp, bot) as server:
        base = (server.url or "").removesuffix("/webhook")
        for path, expected in (("/healthz", 200), ("/readyz", 200)):
            async with http.get(base + path) as resp:
                assert resp.status == expected
        assert (await post(http, server.url or "", message(1, 1, "x")))[0] == 200
        draining = asyncio.ensure_future(server.drain())
        await asyncio.sleep(0)
        async with http.get(base + "/readyz") as resp:
            assert resp.status == 503 and await resp.text() == "draining"
        async with http.get(base + "/healthz") as resp:
            assert resp.status == 200  # alive, only not ready
        status, _, headers = await post(http, server.url or "", message(2, 1, "late"))
        assert status == 503 and headers["Retry-After"] == "1"
        assert not draining.done()
        release.set()
        await draining
    assert server.metrics.rejected["draining"] == 1
