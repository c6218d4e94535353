"""Graceful shutdown: nothing acknowledged is lost, in-process and in a real process."""

from __future__ import annotations

import asyncio
import re
import signal
import sys
import textwrap
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import aiohttp
import pytest
from server_support import TgfastProcess, make_bot, message, post

from tgfast import Dispatcher
from tgfast.server import Signals, WebhookServer, serve_webhook
from tgfast.testing import FakeTelegram
from tgfast.types import Message

SECRET = "drain-test"


async def burst(
    http: aiohttp.ClientSession,
    url: str,
    chats: int,
    *,
    stopped: asyncio.Future[None],
    limit: int = 20_000,
    connections: int = 16,
) -> tuple[set[str], list[int]]:
    """Post updates over ``connections`` concurrent posters until the server, once
    ``stopped`` is done, refuses one (or ``limit`` were sent). Returns the texts
    acknowledged with a 200 and every status (0: the connection was refused/closed)."""
    acked: set[str] = set()
    statuses: list[int] = []
    numbers = iter(range(1, limit + 1))

    async def poster() -> None:
        for n in numbers:
            if stopped.done() and (503 in statuses or 0 in statuses):
                return
            try:
                status = (await post(http, url, message(n, n % chats + 1, f"u{n}"), secret=SECRET))[
                    0
                ]
            except aiohttp.ClientError:
                status = 0
            statuses.append(status)
            if status == 200:
                acked.add(f"u{n}")

    await asyncio.gather(*(poster() for _ in range(connections)))
    return acked, statuses


async def test_shutdown_in_the_middle_of_a_burst_loses_nothing_acknowledged(
    fake: FakeTelegram,
) -> None:
    dp = Dispatcher()

    @dp.message()
    async def echo(message: Message) -> None:
        await asyncio.sleep(0.005)
        await message.answer(message.text or "")

    signals = Signals()
    ready: asyncio.Future[WebhookServer] = asyncio.get_running_loop().create_future()
    async with make_bot(fake) as bot, aiohttp.ClientSession() as http:
        serving = asyncio.ensure_future(serve_webhook(
            dp, bot, port=0, secret_token=SECRET, signals=signals,
            on_ready=ready.set_result, close_bot=False,
        ))  # fmt: skip
        server = await ready
        url = server.url or ""

        async def stop_when_busy() -> int:
            while len(fake.sent_messages()) < 20:  # handlers are running
                await asyncio.sleep(0.001)
            signals.request_stop()
            return server.processor.in_flight

        stopper = asyncio.ensure_future(stop_when_busy())
        acked, statuses = await burst(http, url, chats=10, stopped=stopper)
        in_flight_at_stop = await stopper
        assert await serving == 0

    echoed = {m["text"] for m in fake.sent_messages()}
    assert echoed == acked  # every 200 was handled, nothing else was
    assert len(acked) >= 20 and in_flight_at_stop > 0
    assert 503 in statuses or 0 in statuses  # the burst did outlast the server
    assert statuses.count(200) == len(acked)


async def test_a_second_signal_drops_what_is_in_flight_at_once(fake: FakeTelegram) -> None:
    dp = Dispatcher()
    started = asyncio.Event()
    shutdown_called: list[bool] = []

    @dp.message()
    async def stuck(message: Message) -> None:
        started.set()
        await asyncio.Event().wait()

    @dp.shutdown()
    async def on_shutdown() -> None:
        shutdown_called.append(True)

    signals = Signals()
    ready: asyncio.Future[WebhookServer] = asyncio.get_running_loop().create_future()
    bot = make_bot(fake)
    async with aiohttp.ClientSession() as http:
        serving = asyncio.ensure_future(serve_webhook(
            dp, bot, port=0, secret_token=SECRET, signals=signals, on_ready=ready.set_result,
        ))  # fmt: skip
        server = await ready
        assert (await post(http, server.url or "", message(1, 1, "x"), secret=SECRET))[0] == 200
        await started.wait()
        signals.request_stop()
        await asyncio.sleep(0.05)
        assert not serving.done()  # draining: waits for the stuck handler
        signals.request_stop()
        assert await asyncio.wait_for(serving, 5) == 1
    assert shutdown_called == []  # a forced exit skips the shutdown callbacks
    assert bot.session.closed


# -- a real process ---------------------------------------------------------------------

BOT_MODULE = """
import asyncio

from tgfast import Dispatcher
from tgfast.types import Message

dp = Dispatcher()


@dp.message()
async def echo(message: Message) -> None:
    if message.text == "hang":
        await asyncio.Event().wait()
    await asyncio.sleep(0.01)
    await message.answer(message.text or "")
"""

_LISTENING = re.compile(r"listening on (http://\S+)")


StartBot = Callable[..., Awaitable[tuple[TgfastProcess, str]]]


@pytest.fixture
async def start_bot(fake: FakeTelegram, tmp_path: Path) -> AsyncIterator[StartBot]:
    """``await start_bot(*extra_args)``: ``python -m tgfast webhook bot.py:dp`` against
    the test's FakeTelegram; the process and its URL. Killed at the end if still running."""
    started: list[TgfastProcess] = []

    async def start(*extra: str) -> tuple[TgfastProcess, str]:
        module = tmp_path / "drain_bot.py"
        module.write_text(textwrap.dedent(BOT_MODULE))
        process, url = await TgfastProcess.start(
            "webhook", f"{module}:dp", "--port", "0", "--secret", SECRET,
            "--token", fake.token, "--api-url", fake.url, "--no-rate-limit", *extra,
            cwd=tmp_path, ready=_LISTENING,
        )  # fmt: skip
        started.append(process)
        return process, url

    yield start
    for process in started:
        await process.close()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=lambda sig: sig.name)
async def test_a_first_signal_to_a_real_process_mid_burst_loses_nothing_acknowledged(
    fake: FakeTelegram, start_bot: StartBot, sig: signal.Signals
) -> None:
    # SIGINT (Ctrl-C) as the first signal drains as SIGTERM does
    bot, url = await start_bot()
    async with aiohttp.ClientSession() as http:

        async def terminate_when_busy() -> None:
            while len(fake.sent_messages()) < 30:
                await asyncio.sleep(0.002)
            bot.proc.send_signal(sig)

        terminating = asyncio.ensure_future(terminate_when_busy())
        acked, statuses = await burst(http, url, chats=20, stopped=terminating)
        await terminating
        code = await bot.wait(30)

    log = "".join(bot.log)
    assert code == 0, log
    assert f"{sig.name}: draining" in log and "drained: every update taken was handled" in log
    echoed = {m["text"] for m in fake.sent_messages()}
    assert echoed == acked, (len(echoed), len(acked))
    assert len(acked) >= 30 and (503 in statuses or 0 in statuses)
    assert fake.token not in log


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("first", [signal.SIGTERM, signal.SIGINT], ids=lambda sig: sig.name)
async def test_a_second_sigterm_exits_a_real_process_at_once(
    fake: FakeTelegram, start_bot: StartBot, first: signal.Signals
) -> None:
    bot, url = await start_bot()
    async with aiohttp.ClientSession() as http:
        assert (await post(http, url, message(1, 1, "hang"), secret=SECRET))[0] == 200
        assert (await post(http, url, message(2, 2, "fine"), secret=SECRET))[0] == 200
        while not fake.sent_messages(2):
            await asyncio.sleep(0.005)
        bot.proc.send_signal(first)
        while not any(f"{first.name}: draining" in line for line in bot.log):
            await asyncio.sleep(0.005)
        async with http.get(url.replace("/webhook", "/readyz")) as resp:
            assert resp.status == 503  # not ready while draining
        status, _, headers = await post(http, url, message(3, 3, "late"), secret=SECRET)
        assert status == 503 and headers["Retry-After"] == "1"
        assert bot.proc.returncode is None  # still waiting for the hanging handler
        bot.proc.send_signal(signal.SIGTERM)
        code = await bot.wait(5)
    assert code == 1
    assert "forced exit: 1 updates in flight were dropped" in "".join(bot.log)
