"""``serve(dispatcher, bot, ServeConfig(...))``: the ``tgfast`` command's worker, from code."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys

import aiohttp
import pytest
from server_support import make_bot, message, post

from tgfast import Bot, Dispatcher
from tgfast.cli import build_parser
from tgfast.server import ServeConfig, WebhookServer, serve
from tgfast.server.processing import DEFAULT_MAX_LAG
from tgfast.testing import FakeTelegram
from tgfast.types import Message

SECRET = "serve-secret"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_max_lag_goes_from_the_command_to_the_processor() -> None:
    """``--max-lag S`` (0: off) reaches the webhook's processor through the config."""
    dp = Dispatcher()
    bot = Bot("1:T", rate_limiter=None)
    for given, expected in (([], DEFAULT_MAX_LAG), (["--max-lag", "0.2"], 0.2),
                            (["--max-lag", "0"], None)):  # fmt: skip
        args = build_parser().parse_args(["webhook", "app:dp", "--token", "1:T", *given])
        assert args.max_lag == expected
        config = ServeConfig("webhook", max_lag=args.max_lag)
        server = WebhookServer(dp, bot, **config.webhook_options())
        assert server.processor.max_lag == expected
    with pytest.raises(SystemExit):
        build_parser().parse_args(["webhook", "app:dp", "--max-lag", "-1"])


def test_a_config_names_its_mode_and_maps_to_the_parts() -> None:
    config = ServeConfig("webhook", secret_token="s", max_in_flight=7, http="aiohttp")
    options = config.webhook_options()
    assert options["secret_token"] == "s" and options["max_in_flight"] == 7
    assert options["http"] == "aiohttp"
    assert ServeConfig("polling", poll_timeout=3).polling_options()["timeout"] == 3
    assert options["max_lag"] == DEFAULT_MAX_LAG
    assert ServeConfig("webhook", max_lag=None).webhook_options()["max_lag"] is None
    with pytest.raises(ValueError, match="mode must be"):
        ServeConfig("carrier-pigeon")  # type: ignore[arg-type]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
async def test_serve_takes_updates_registers_the_webhook_and_drains_on_sigterm(
    fake: FakeTelegram,
) -> None:
    dp = Dispatcher()

    @dp.message()
    async def echo(message: Message) -> None:
        await asyncio.sleep(0.05)
        await message.answer(message.text or "")

    port = free_port()
    config = ServeConfig(
        "webhook", port=port, secret_token=SECRET,
        webhook_url=f"https://bot.example.com/{port}",
    )  # fmt: skip
    bot = make_bot(fake)
    serving = asyncio.ensure_future(serve(dp, bot, config))
    url = f"http://127.0.0.1:{port}/webhook"
    async with aiohttp.ClientSession() as http:
        for _ in range(200):
            try:
                status = (await post(http, url, message(1, 1, "hi"), secret=SECRET))[0]
                break
            except aiohttp.ClientConnectionError:
                await asyncio.sleep(0.05)
        assert status == 200
    os.kill(os.getpid(), signal.SIGTERM)  # serve handles it: drain, then return
    assert await asyncio.wait_for(serving, 10) == 0
    assert [m["text"] for m in fake.sent_messages()] == ["hi"]  # taken before: handled
    [registered] = fake.calls_to("setWebhook")
    assert registered.params["url"] == config.webhook_url
    assert registered.params["secret_token"] == SECRET
