"""``/metrics``: what is counted, and that the text is valid Prometheus exposition."""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess

import aiohttp
import prometheus_client
import pytest
from server_support import make_bot, message, post, served

from tgfast import Bot, Dispatcher, TelegramNetworkError, TelegramRetryAfter, __version__
from tgfast.client import ApiCall, RetryPolicy
from tgfast.methods import SendMessage
from tgfast.server import Metrics, UpdateProcessor
from tgfast.server.metrics import Histogram
from tgfast.testing import FakeTelegram
from tgfast.types import Message

_SAMPLE = re.compile(r'^([a-z_]+)(\{(?:[a-z_]+="(?:[^"\\]|\\.)*",?)*\})? (\S+)$')


def parse(text: str) -> dict[str, float]:
    """Sample -> value, checking the exposition format on the way."""
    assert text.endswith("\n")
    samples: dict[str, float] = {}
    types: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("# HELP "):
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            assert kind in ("counter", "gauge", "histogram") and name not in types
            types[name] = kind
            continue
        match = _SAMPLE.match(line)
        assert match, line
        name = match.group(1)
        family = re.sub(r"_(bucket|sum|count)$", "", name) if name not in types else name
        assert family in types, f"{name} has no TYPE"
        samples[name + (match.group(2) or "")] = float(match.group(3))
    return samples


async def test_the_bot_reports_every_attempt_to_its_observer(fake: FakeTelegram) -> None:
    seen: list[tuple[str, int]] = []
    retry = RetryPolicy(backoff=0.001, max_backoff=0.001)
    async with Bot(fake.token, server=fake.url, rate_limiter=None, retry=retry) as bot:
        assert bot.on_api_call is None
        await bot.send_message(1, "unobserved")
        bot.on_api_call = lambda method, status: seen.append((method, status))
        fake.fail("sendMessage", error_code=429, retry_after=0)
        await bot.send_message(1, "after a 429")
        fake.http_error("getMe", status=502)
        await bot.get_me()  # a get* is retried after a 5xx
        fake.drop("sendMessage")
        with pytest.raises(TelegramNetworkError):
            await bot.send_message(1, "lost")  # never repeated: it may have been sent
    assert seen == [
        ("sendMessage", 429), ("sendMessage", 200), ("getMe", 502), ("getMe", 200),
        ("sendMessage", 0),
    ]  # fmt: skip


def test_histogram_buckets_are_cumulative_with_le_bounds() -> None:
    histogram = Histogram((0.01, 0.1, 1.0))
    for value in (0.005, 0.01, 0.05, 0.5, 2.0, 3.0):
        histogram.observe(value)
    assert histogram.cumulative() == [("0.01", 2), ("0.1", 3), ("1", 4), ("+Inf", 6)]
    assert histogram.count == 6 and histogram.sum == pytest.approx(5.565)


def test_labels_are_escaped() -> None:
    metrics = Metrics()
    metrics.api_call('we"ird\\name\n', 200)
    samples = parse(metrics.render())
    assert samples['tgfast_api_calls_total{method="we\\"ird\\\\name\\n",status="200"}'] == 1


async def test_metrics_endpoint_counts_updates_calls_and_refusals(fake: FakeTelegram) -> None:
    dp = Dispatcher()
    gate = asyncio.Event()

    @dp.message(lambda message: message.text == "ok")
    async def ok(message: Message) -> SendMessage:
        return SendMessage(chat_id=message.chat.id, text="fine")

    @dp.message(lambda message: message.text == "boom")
    async def boom(message: Message) -> None:
        raise RuntimeError("handler bug")

    @dp.message(lambda message: message.text == "wait")
    async def wait(message: Message) -> None:
        await gate.wait()

    @dp.edited_message()
    async def flood(message: Message) -> None:
        await message.answer("flooded")

    async with make_bot(fake) as bot, aiohttp.ClientSession() as http:
        bot.retry = RetryPolicy(retry_after_attempts=0)
        async with served(dp, bot, secret_token="m", max_in_flight=2) as server:
            url = server.url or ""
            metrics_url = url.replace("/webhook", "/metrics")
            for n, text in enumerate(["ok", "ok", "boom", "unmatched"], start=1):
                assert (await post(http, url, message(n, n, text), secret="m"))[0] == 200
                await server.processor.join()  # in flight stays under the bound of 2
            edited = message(5, 5, "x")
            edited["edited_message"] = edited.pop("message")
            fake.fail("sendMessage", error_code=429, retry_after=3)
            assert (await post(http, url, edited, secret="m"))[0] == 200
            await server.processor.join()
            assert (await post(http, url, message(6, 6, "x"), secret="wrong"))[0] == 403
            assert (await post(http, url, b"{", secret="m"))[0] == 400
            assert (await post(http, url, message(1, 1, "ok"), secret="m"))[0] == 200  # redelivery
            for n in (7, 8):
                assert (await post(http, url, message(n, n, "wait"), secret="m"))[0] == 200
            assert (await post(http, url, message(9, 9, "wait"), secret="m"))[0] == 503
            async with http.get(metrics_url) as resp:
                assert resp.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
                samples = parse(await resp.text())
            gate.set()
            await server.drain()

    assert samples['tgfast_updates_received_total{kind="message"}'] == 6
    assert samples['tgfast_updates_received_total{kind="edited_message"}'] == 1
    assert samples['tgfast_updates_handled_total{kind="message"}'] == 2
    assert samples['tgfast_updates_failed_total{kind="message"}'] == 1
    assert samples['tgfast_updates_failed_total{kind="edited_message"}'] == 1  # its call got 429
    assert samples['tgfast_updates_unhandled_total{kind="message"}'] == 1
    assert samples["tgfast_handler_latency_seconds_count"] == 5
    assert samples['tgfast_handler_latency_seconds_bucket{le="+Inf"}'] == 5
    buckets = [
        v for k, v in samples.items() if k.startswith("tgfast_handler_latency_seconds_bucket")
    ]
    assert buckets == sorted(buckets)
    assert samples['tgfast_api_calls_total{method="sendMessage",status="200"}'] == 2
    assert samples['tgfast_api_calls_total{method="sendMessage",status="429"}'] == 1
    assert samples["tgfast_api_flood_waits_total"] == 1
    for reason, n in (("secret", 1), ("bad_body", 1), ("duplicate", 1), ("overloaded", 1)):
        assert samples[f'tgfast_rejected_total{{reason="{reason}"}}'] == n
    assert samples["tgfast_updates_in_flight"] == 2  # the two waiting handlers
    assert samples["tgfast_updates_in_flight_limit"] == 2
    assert samples["tgfast_active_chats"] == 2


async def test_several_hooks_see_each_attempt_and_metrics_keep_counting(
    fake: FakeTelegram,
) -> None:
    """A user's hook (the old slot and the list) no longer turns off ``api_calls_total``."""
    dp = Dispatcher()

    @dp.message()
    async def echo(message: Message) -> None:
        await message.answer("one")
        await message.answer("two")

    calls: list[ApiCall] = []
    old: list[tuple[str, int]] = []
    async with make_bot(fake) as bot, aiohttp.ClientSession() as http:
        bot.retry = RetryPolicy(backoff=0.001, max_backoff=0.001)
        bot.on_api_call = lambda method, status: old.append((method, status))
        bot.api_call_hooks.append(calls.append)
        bot.api_call_hooks.append(lambda call: 1 / 0)  # a broken hook is logged, no more
        async with served(dp, bot, secret_token="m") as server:
            fake.fail("sendMessage", error_code=429, retry_after=0)
            assert (await post(http, server.url or "", message(1, 5, "hi"), secret="m"))[0] == 200
            await server.processor.join()
            samples = parse(server.metrics.render())
    assert [(c.method, c.status, c.attempt) for c in calls] == [
        ("sendMessage", 429, 0), ("sendMessage", 200, 1), ("sendMessage", 200, 0),
    ]  # fmt: skip
    assert isinstance(calls[0].exception, TelegramRetryAfter) and calls[0].retry_after == 0
    assert calls[1].exception is None and calls[1].retry_after is None
    assert all(c.duration > 0 and c.started > 0 for c in calls)
    assert old == [("sendMessage", 429), ("sendMessage", 200), ("sendMessage", 200)]
    assert samples['tgfast_api_calls_total{method="sendMessage",status="200"}'] == 2
    assert samples['tgfast_api_calls_total{method="sendMessage",status="429"}'] == 1


async def test_a_network_error_reaches_the_hooks(fake: FakeTelegram) -> None:
    calls: list[ApiCall] = []
    async with Bot(fake.token, server=fake.url, rate_limiter=None) as bot:
        bot.api_call_hooks.append(calls.append)
        fake.drop("sendMessage")
        with pytest.raises(TelegramNetworkError):
            await bot.send_message(1, "lost")
    (call,) = calls
    assert call.status == 0 and isinstance(call.exception, TelegramNetworkError)


def test_process_gc_build_and_the_apps_own_metrics_on_one_page() -> None:
    registry = prometheus_client.CollectorRegistry()
    orders = prometheus_client.Counter("shop_orders", "Orders taken.", registry=registry)
    orders.inc(3)
    metrics = Metrics(app_registry=registry)
    metrics.received["message"] += 1
    samples = parse(metrics.render())
    assert samples["shop_orders_total"] == 3
    assert samples['tgfast_updates_received_total{kind="message"}'] == 1
    (build,) = [k for k in samples if k.startswith("tgfast_build_info{")]
    assert f'version="{__version__}"' in build and samples[build] == 1
    assert "process_cpu_seconds_total" not in samples  # not in this registry: only the app's

    default = parse(Metrics().render())  # prometheus_client's default registry
    assert default["process_cpu_seconds_total"] > 0
    assert default["process_resident_memory_bytes"] > 0 and default["process_open_fds"] > 0
    assert 'python_gc_collections_total{generation="0"}' in default
    mine = prometheus_client.Counter("tgfast_test_app_metric", "An app's counter.")
    try:
        mine.inc()
        assert parse(Metrics().render())["tgfast_test_app_metric_total"] == 1
    finally:
        prometheus_client.REGISTRY.unregister(mine)


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool not installed (the "
                    "format rules are checked by parse() in every test here)")  # fmt: skip
def test_promtool_accepts_the_page() -> None:
    metrics = Metrics()
    metrics.received["message"] += 2
    metrics.api_call('we"ird', 200)
    metrics.rejected["secret"] += 1
    metrics.latency.observe(0.02)
    metrics.gauge("updates_in_flight", "Updates taken and not finished.", lambda: 3)
    done = subprocess.run(
        ["promtool", "check", "metrics"], input=metrics.render(), capture_output=True,
        text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


async def test_two_processors_of_one_bot_both_count_its_calls(fake: FakeTelegram) -> None:
    """The first processor's metrics are bumped by the bot itself; a second one's, which
    cannot share that slot, through a hook: each sees every attempt, and 429s."""
    async with Bot(fake.token, server=fake.url, rate_limiter=None) as bot:
        first, second = Metrics(app_registry=None), Metrics(app_registry=None)
        UpdateProcessor(Dispatcher(), bot, metrics=first)
        UpdateProcessor(Dispatcher(), bot, metrics=second)
        assert second.on_api_call in bot.api_call_hooks
        assert first.on_api_call not in bot.api_call_hooks
        fake.fail("sendMessage", error_code=429, retry_after=0)
        await bot.send_message(1, "hi")
    for metrics in (first, second):
        assert dict(metrics.api_calls) == {("sendMessage", 429): 1, ("sendMessage", 200): 1}
        assert metrics.flood_waits == 1
