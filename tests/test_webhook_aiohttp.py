"""aiogram's request handlers (``tgfast.webhook``) in a real aiohttp application on
127.0.0.1, fed by FakeTelegram; aiogram's own handlers are the reference where they
are run side by side."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from server_support import message, post

from tgfast import Bot, Dispatcher
from tgfast.methods import SendMessage
from tgfast.testing import FakeTelegram
from tgfast.types import Message
from tgfast.webhook.aiohttp_server import (
    SimpleRequestHandler,
    TokenBasedRequestHandler,
    ip_filter_middleware,
    setup_application,
)
from tgfast.webhook.security import DEFAULT_TELEGRAM_NETWORKS, IPFilter

SECRET = "hook-Secret_1"


@asynccontextmanager
async def serving(app: web.Application) -> AsyncIterator[str]:
    """``app`` listening on a free port of 127.0.0.1 (its base URL); on the way out the
    application shuts down as ``web.run_app`` shuts it down."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    try:
        yield f"http://{host}:{port}"
    finally:
        await runner.cleanup()


def echo(dp: Dispatcher, seen: list[str]) -> None:
    @dp.message()
    async def on_message(message: Message) -> None:
        seen.append(message.text or "")
        await message.answer(f"echo: {message.text}")


async def eventually(condition: Any, timeout: float = 5.0) -> None:
    for _ in range(int(timeout / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition not met in time")


# -- SimpleRequestHandler ---------------------------------------------------------------


async def test_simple_handler_handles_updates_in_background(bot: Bot, fake: FakeTelegram) -> None:
    dp = Dispatcher()
    seen: list[str] = []
    echo(dp, seen)
    app = web.Application()
    SimpleRequestHandler(dispatcher=dp, bot=bot, secret_token=SECRET).register(app, path="/wh")
    async with serving(app) as base:
        assert (
            await fake.deliver(message(1, 7, "one"), url=f"{base}/wh", secret_token=SECRET) == 200
        )
        assert (
            await fake.deliver(message(2, 7, "two"), url=f"{base}/wh", secret_token=SECRET) == 200
        )
        await eventually(lambda: len(fake.sent_messages(7)) == 2)
    assert seen == ["one", "two"]  # in order: one chat's updates one at a time
    assert [m["text"] for m in fake.sent_messages(7)] == ["echo: one", "echo: two"]


async def aiogram_app(fake: FakeTelegram) -> tuple[web.Application, Any]:
    """aiogram's own SimpleRequestHandler on the fake: the reference for statuses."""
    import aiogram
    from aiogram.client.session.aiohttp import AiohttpSession
    from aiogram.client.telegram import TelegramAPIServer
    from aiogram.webhook.aiohttp_server import SimpleRequestHandler as AiogramHandler

    session = AiohttpSession(api=TelegramAPIServer.from_base(fake.url))
    bot = aiogram.Bot(fake.token, session=session)
    app = web.Application()
    AiogramHandler(dispatcher=aiogram.Dispatcher(), bot=bot, secret_token=SECRET).register(
        app, path="/wh"
    )
    return app, bot


@pytest.mark.parametrize("framework", ["tgfast", "aiogram"])
async def test_a_wrong_secret_is_401_as_in_aiogram(
    framework: str, bot: Bot, fake: FakeTelegram, http: aiohttp.ClientSession
) -> None:
    if framework == "aiogram":
        app, _ = await aiogram_app(fake)
    else:
        app = web.Application()
        SimpleRequestHandler(Dispatcher(), bot, secret_token=SECRET).register(app, path="/wh")
    async with serving(app) as base:
        url = f"{base}/wh"
        assert (await post(http, url, message(1, 5, "none")))[0] == 401
        assert (await post(http, url, message(2, 5, "wrong"), secret=SECRET + "x"))[0] == 401
        assert (await post(http, url, message(3, 5, "prefix"), secret=SECRET[:-1]))[0] == 401
        assert (await post(http, url, message(4, 5, "right"), secret=SECRET))[0] == 200


async def test_without_background_the_returned_method_is_the_webhook_answer(
    bot: Bot, fake: FakeTelegram
) -> None:
    dp = Dispatcher()

    @dp.message()
    async def reply(message: Message) -> SendMessage:
        return SendMessage(chat_id=message.chat.id, text=f"re: {message.text}")

    app = web.Application()
    SimpleRequestHandler(dp, bot, handle_in_background=False).register(app, path="/wh")
    async with serving(app) as base:
        assert await fake.deliver(message(1, 9, "hi"), url=f"{base}/wh") == 200
    [call] = fake.calls_to("sendMessage")
    assert call.http_method == "WEBHOOK"  # performed by "Telegram", not called by the bot
    assert call.params == {"chat_id": 9, "text": "re: hi"}


async def test_redeliveries_are_handled_once_and_a_full_processor_answers_503(
    bot: Bot, fake: FakeTelegram, http: aiohttp.ClientSession
) -> None:
    dp = Dispatcher()
    release = asyncio.Event()
    seen: list[str] = []

    @dp.message()
    async def slow(message: Message) -> None:
        seen.append(message.text or "")
        await release.wait()

    app = web.Application()
    handler = SimpleRequestHandler(dp, bot, max_in_flight=1)
    handler.register(app, path="/wh")
    async with serving(app) as base:
        url = f"{base}/wh"
        assert (await post(http, url, message(1, 5, "first")))[0] == 200
        status, _, headers = await post(http, url, message(2, 6, "second"))
        assert status == 503 and headers["Retry-After"] == "1"  # Telegram delivers it again
        release.set()
        await eventually(lambda: handler.intake(bot).processor.in_flight == 0)
        assert (await post(http, url, message(1, 5, "first")))[0] == 200  # a redelivery
        assert (await post(http, url, message(2, 6, "second")))[0] == 200
        await eventually(lambda: len(seen) == 2)
    assert seen == ["first", "second"]
    assert handler.intake(bot).metrics.rejected["duplicate"] == 1


async def test_workflow_data_and_startup_shutdown_wiring(bot: Bot, fake: FakeTelegram) -> None:
    dp = Dispatcher()
    events: list[str] = []
    release = asyncio.Event()

    @dp.startup()
    async def started(bot: Bot, app: web.Application) -> None:
        events.append(f"startup {bot.id} {isinstance(app, web.Application)}")

    @dp.shutdown()
    async def stopped(bot: Bot) -> None:
        events.append("shutdown")

    @dp.message()
    async def handler(message: Message, answer: int) -> None:
        events.append(f"handler {answer}")
        await release.wait()
        events.append("handler done")

    app = web.Application()
    SimpleRequestHandler(dp, bot, answer=42).register(app, path="/wh")
    setup_application(app, dp, bot=bot)
    async with serving(app) as base:
        assert await fake.deliver(message(1, 5, "hi"), url=f"{base}/wh") == 200
        await eventually(lambda: "handler 42" in events)
        asyncio.get_running_loop().call_later(0.2, release.set)
    # the update taken was finished before the shutdown callbacks ran
    assert events == [f"startup {bot.id} True", "handler 42", "handler done", "shutdown"]
    assert bot.session.closed  # closed on cleanup, as aiogram closes it


# -- TokenBasedRequestHandler ----------------------------------------------------------


async def test_token_based_handler_gives_each_token_its_own_bot(
    fake: FakeTelegram, http: aiohttp.ClientSession
) -> None:
    dp = Dispatcher()
    seen: list[tuple[str, str, int]] = []

    @dp.message()
    async def who(message: Message, bot: Bot) -> None:
        seen.append((message.text or "", bot.token, id(bot)))
        if bot.token == fake.token:
            await message.answer("from the fake's bot")

    other = "987654:other-bot-token"
    app = web.Application()
    handler = TokenBasedRequestHandler(dp, bot_settings={"server": fake.url, "rate_limiter": None})
    handler.register(app, path="/webhook/{bot_token}")
    async with serving(app) as base:
        for i, token in enumerate([fake.token, other, fake.token], 1):
            assert (await post(http, f"{base}/webhook/{token}", message(i, 5, str(i))))[0] == 200
        assert (await post(http, f"{base}/webhook/not-a-token", message(9, 5, "x")))[0] == 404
        await eventually(lambda: len(seen) == 3 and len(fake.sent_messages(5)) == 2)
    by_text = {text: (token, bot_id) for text, token, bot_id in seen}
    assert by_text["1"][0] == by_text["3"][0] == fake.token and by_text["2"][0] == other
    assert by_text["1"][1] == by_text["3"][1] != by_text["2"][1]  # one Bot per token, kept
    assert set(handler.bots) == {fake.token, other}
    assert all(bot.session.closed for bot in handler.bots.values())


async def test_a_secret_telegram_would_refuse_is_refused_at_once(bot: Bot) -> None:
    with pytest.raises(ValueError, match="secret_token"):
        SimpleRequestHandler(Dispatcher(), bot, secret_token="has spaces")


def test_token_based_path_must_name_the_token() -> None:
    with pytest.raises(ValueError, match="bot_token"):
        TokenBasedRequestHandler(Dispatcher()).register(web.Application(), path="/webhook")


# -- IP filter ---------------------------------------------------------------------------


@pytest.mark.parametrize("framework", ["tgfast", "aiogram"])
async def test_ip_filter_middleware_reads_x_forwarded_for_as_aiogram(
    framework: str, http: aiohttp.ClientSession
) -> None:
    if framework == "aiogram":
        from aiogram.webhook.aiohttp_server import ip_filter_middleware as middleware
        from aiogram.webhook.security import IPFilter as Filter
    else:
        middleware, Filter = ip_filter_middleware, IPFilter  # type: ignore[assignment]

    async def ok(request: web.Request) -> web.Response:
        return web.Response(text="ok")

    app = web.Application(middlewares=[middleware(Filter.default())])
    app.router.add_post("/wh", ok)
    async with serving(app) as base:

        async def status(forwarded: str | None) -> int:
            headers = {} if forwarded is None else {"X-Forwarded-For": forwarded}
            async with http.post(f"{base}/wh", headers=headers) as resp:
                return resp.status

        assert await status("149.154.160.5") == 200  # a proxy on 127.0.0.1 names Telegram
        assert await status("91.108.4.17") == 200
        assert await status("1.2.3.4") == 401
        assert await status(None) == 401  # 127.0.0.1 itself is not Telegram


async def test_ip_filter_trusts_the_right_end_of_x_forwarded_for(
    http: aiohttp.ClientSession,
) -> None:
    """What the client wrote is the left end; the proxy appended the real peer."""

    async def ok(request: web.Request) -> web.Response:
        return web.Response(text="ok")

    app = web.Application(middlewares=[ip_filter_middleware(IPFilter.default())])
    app.router.add_post("/wh", ok)
    async with serving(app) as base:
        forged = {"X-Forwarded-For": "149.154.160.5, 1.2.3.4"}
        async with http.post(f"{base}/wh", headers=forged) as resp:
            assert resp.status == 401
    untrusting = web.Application(
        middlewares=[ip_filter_middleware(IPFilter.default(), trusted_proxies=())]
    )
    untrusting.router.add_post("/wh", ok)
    async with serving(untrusting) as base:
        async with http.post(f"{base}/wh", headers={"X-Forwarded-For": "149.154.160.5"}) as resp:
            assert resp.status == 401  # the peer is 127.0.0.1, and no proxy is believed


def test_ip_filter_agrees_with_aiogram() -> None:
    from aiogram.webhook.security import IPFilter as AiogramFilter

    ours, theirs = IPFilter.default(), AiogramFilter.default()
    ours.allow_ip("10.1.2.3")
    theirs.allow_ip("10.1.2.3")
    ours.allow("192.168.5.0/24")
    theirs.allow("192.168.5.0/24")
    for ip in ("149.154.160.1", "149.154.175.254", "149.154.176.1", "91.108.4.1",
               "91.108.8.1", "10.1.2.3", "10.1.2.4", "192.168.5.77", "8.8.8.8"):  # fmt: skip
        assert (ip in ours) == (ip in theirs), ip
        assert ours.check(ip) == theirs.check(ip), ip
    assert [str(n) for n in DEFAULT_TELEGRAM_NETWORKS] == ["149.154.160.0/20", "91.108.4.0/22"]
    with pytest.raises(ValueError):
        IPFilter().allow_ip(3.14)  # type: ignore[arg-type]
    assert ours._allowed_ips == theirs._allowed_ips  # aiogram's listing, for code reading it
    assert len(IPFilter.default()._allowed_ips) == 4094 + 1022 and not IPFilter()._allowed_ips
    v6 = IPFilter(["2001:db8::/64"])
    assert "2001:db8::1" in v6
    with pytest.raises(ValueError, match="too many addresses"):
        v6._allowed_ips  # noqa: B018


async def test_a_subclass_decides_the_bot_and_the_secret(
    bot: Bot, fake: FakeTelegram, http: aiohttp.ClientSession
) -> None:
    """aiogram's extension point: resolve_bot and verify_secret of one's own."""
    from tgfast.webhook.aiohttp_server import BaseRequestHandler

    asked: list[str] = []

    class PerTenant(BaseRequestHandler):
        async def resolve_bot(self, request: web.Request) -> Bot:
            return bot

        def verify_secret(self, telegram_secret_token: str, bot: Bot) -> bool:
            asked.append(telegram_secret_token)
            return telegram_secret_token == "tenant-secret"

        async def close(self) -> None:
            await bot.session.close()

    dp = Dispatcher()
    seen: list[str] = []
    echo(dp, seen)
    app = web.Application()
    PerTenant(dp, handle_in_background=True).register(app, path="/t")
    async with serving(app) as base:
        assert (await post(http, f"{base}/t", message(1, 3, "no")))[0] == 401
        assert (await post(http, f"{base}/t", message(2, 3, "yes"), secret="tenant-secret"))[
            0
        ] == 200
        await eventually(lambda: seen == ["yes"])
    assert asked == ["", "tenant-secret"]
