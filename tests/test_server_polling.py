"""Long polling against FakeTelegram: offsets, order, bounds, faults, and a clean stop."""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from server_support import message

from tgfast import (
    Bot,
    Dispatcher,
    TelegramNetworkError,
    TelegramServerError,
    TelegramUnauthorized,
)
from tgfast.client import NO_RETRY
from tgfast.server import Backoff, Poller, Signals, serve_polling
from tgfast.testing import FakeTelegram
from tgfast.types import CallbackQuery, Message

FAST = Backoff(min_delay=0.01, max_delay=0.04)


@pytest.fixture
async def bot(fake: FakeTelegram) -> AsyncIterator[Bot]:
    async with Bot(fake.token, server=fake.url, rate_limiter=None, retry=NO_RETRY) as bot:
        yield bot


def add(fake: FakeTelegram, chat: int, text: str) -> dict[str, Any]:
    update = message(0, chat, text)
    del update["update_id"]  # numbered by the fake
    return fake.add_update(update)


def recorder() -> tuple[Dispatcher, dict[int, list[str]]]:
    dp = Dispatcher()
    seen: dict[int, list[str]] = defaultdict(list)

    @dp.message()
    async def record(message: Message) -> None:
        seen[message.chat.id].append(message.text or "")

    return dp, seen


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.005)


def get_updates_calls(fake: FakeTelegram) -> list[dict[str, Any]]:
    return [c.params for c in fake.calls_to("getUpdates")]


async def test_polls_in_order_per_chat_and_confirms_the_offset_on_stop(
    bot: Bot, fake: FakeTelegram
) -> None:
    dp, seen = recorder()

    @dp.callback_query()
    async def query(callback_query: CallbackQuery) -> None: ...

    for n in range(5):
        for chat in (1, 2, 3):
            add(fake, chat, f"{chat}-{n}")
    poller = Poller(dp, bot, timeout=5, backoff=FAST)
    running = asyncio.ensure_future(poller.run())
    await until(lambda: sum(map(len, seen.values())) == 15)
    last = add(fake, 2, "late")  # arrives while the long poll waits
    await until(lambda: seen[2][-1:] == ["late"])
    started = time.monotonic()
    poller.stop()
    await running
    assert time.monotonic() - started < 2  # the pending long poll was cancelled, not awaited

    for chat in (1, 2, 3):
        assert seen[chat][:5] == [f"{chat}-{n}" for n in range(5)]
    calls = get_updates_calls(fake)
    assert calls[0]["allowed_updates"] == ["callback_query", "message"]  # sorted, as aiogram
    assert calls[0]["timeout"] == 5 and "offset" not in calls[0]
    assert calls[-1] == {"offset": last["update_id"] + 1, "limit": 1, "timeout": 0}
    assert poller.offset == last["update_id"] + 1

    # a new poller on the same queue fetches nothing twice
    dp2, seen2 = recorder()
    poller2 = Poller(dp2, bot, timeout=1, backoff=FAST)
    running = asyncio.ensure_future(poller2.run())
    add(fake, 4, "new")
    await until(lambda: seen2 == {4: ["new"]})
    poller2.stop()
    await running
    assert dict(seen2) == {4: ["new"]}


async def test_stops_fetching_while_full_and_never_asks_for_more_than_it_can_take(
    bot: Bot, fake: FakeTelegram
) -> None:
    dp = Dispatcher()
    gate = asyncio.Event()
    handled: list[str] = []

    @dp.message()
    async def work(message: Message) -> None:
        await gate.wait()
        handled.append(message.text or "")

    for n in range(10):
        add(fake, 1, str(n))
    poller = Poller(dp, bot, timeout=1, max_in_flight=3, backoff=FAST)
    running = asyncio.ensure_future(poller.run())
    await until(lambda: poller.processor.in_flight == 3)
    calls_when_full = len(fake.calls_to("getUpdates"))
    await asyncio.sleep(0.1)
    assert len(fake.calls_to("getUpdates")) == calls_when_full  # paused, not polling
    assert poller.processor.in_flight == 3
    gate.set()
    await until(lambda: len(handled) == 10)
    poller.stop()
    await running
    assert handled == [str(n) for n in range(10)]
    assert all(params["limit"] <= 3 for params in get_updates_calls(fake))


async def test_retry_after_is_honoured(bot: Bot, fake: FakeTelegram) -> None:
    dp, seen = recorder()
    answered: list[tuple[int, float]] = []
    bot.on_api_call = lambda method, status: answered.append((status, time.monotonic()))
    flood = fake.fail("getUpdates", error_code=429, retry_after=1)
    add(fake, 1, "after the flood")
    poller = Poller(dp, bot, timeout=1, backoff=FAST)
    running = asyncio.ensure_future(poller.run())
    await until(lambda: seen[1] == ["after the flood"])
    poller.stop()
    await running
    assert flood.hits == 1
    (first_status, flooded_at), (second_status, next_at) = answered[:2]
    assert (first_status, second_status) == (429, 200)
    assert next_at - flooded_at >= 0.95


async def test_server_errors_and_disconnects_back_off_and_lose_nothing(
    bot: Bot, fake: FakeTelegram
) -> None:
    dp, seen = recorder()
    for n in range(6):
        add(fake, 1, str(n))
    bad_gateway = fake.http_error("getUpdates", status=502, times=2)
    dropped = fake.drop("getUpdates", times=2)
    server_error = fake.fail("getUpdates", error_code=500, times=1)
    poller = Poller(dp, bot, timeout=1, limit=2, backoff=FAST)
    running = asyncio.ensure_future(poller.run())
    await until(lambda: len(seen[1]) == 6)
    # a fault in the middle of the batches too
    fake.drop("getUpdates", times=1)
    for n in range(6, 9):
        add(fake, 1, str(n))
    await until(lambda: len(seen[1]) == 9)
    poller.stop()
    await running
    assert seen[1] == [str(n) for n in range(9)]  # in order, none twice, none lost
    assert (bad_gateway.hits, dropped.hits, server_error.hits) == (2, 2, 1)


def test_backoff_doubles_up_to_its_cap_with_jitter() -> None:
    backoff = Backoff(min_delay=0.5, max_delay=4.0, factor=2.0, jitter=0.25)
    for failures, base in [(0, 0.5), (1, 1.0), (2, 2.0), (3, 4.0), (10, 4.0), (500, 4.0)]:
        delays = {backoff.delay(failures) for _ in range(50)}
        assert all(0.75 * base <= d <= base for d in delays)
        assert len(delays) > 1  # jittered


async def test_a_conflict_with_a_webhook_is_retried_until_it_is_deleted(
    bot: Bot, fake: FakeTelegram
) -> None:
    dp, seen = recorder()
    await bot.set_webhook("http://127.0.0.1:9/hook")
    add(fake, 1, "waiting")
    poller = Poller(dp, bot, timeout=1, backoff=FAST)
    running = asyncio.ensure_future(poller.run())
    await until(lambda: len(fake.calls_to("getUpdates")) >= 3)
    assert seen == {}
    await bot.delete_webhook()
    await until(lambda: seen[1] == ["waiting"])
    poller.stop()
    await running


async def test_drop_pending_updates_forgets_what_waits(bot: Bot, fake: FakeTelegram) -> None:
    dp, seen = recorder()
    add(fake, 1, "old")
    poller = Poller(dp, bot, timeout=1, drop_pending_updates=True, backoff=FAST)
    running = asyncio.ensure_future(poller.run())
    await until(lambda: len(fake.calls_to("getUpdates")) >= 1)
    add(fake, 1, "new")
    await until(lambda: seen[1] == ["new"])
    poller.stop()
    await running
    [delete] = fake.calls_to("deleteWebhook")
    assert delete.params == {"drop_pending_updates": True}
    assert seen[1] == ["new"]


async def test_an_update_that_does_not_decode_is_skipped_not_fatal(
    bot: Bot, fake: FakeTelegram, caplog: pytest.LogCaptureFixture
) -> None:
    dp, seen = recorder()
    add(fake, 1, "before")
    fake.add_update({"message": {"message_id": "not an int", "date": 1}})
    add(fake, 1, "after")
    poller = Poller(dp, bot, timeout=1, backoff=FAST)
    running = asyncio.ensure_future(poller.run())
    await until(lambda: seen[1] == ["before", "after"])
    poller.stop()
    await running
    assert poller.metrics.rejected["bad_body"] == 1
    assert any("does not decode" in r.getMessage() for r in caplog.records)
    assert poller.offset == 4


async def test_the_one_by_one_fetch_fails_like_any_fetch(bot: Bot, fake: FakeTelegram) -> None:
    # the slow path behind a batch that does not decode calls the API itself: its
    # failures are the client's errors (retried by the fetch loop), with no URL in them
    poller = Poller(Dispatcher(), bot, timeout=1, backoff=FAST)
    fake.drop("getUpdates", times=1)
    with pytest.raises(TelegramNetworkError) as dropped:
        await poller._get_updates_one_by_one({"limit": 1})
    fake.http_error("getUpdates", status=502, times=1)
    with pytest.raises(TelegramServerError):
        await poller._get_updates_one_by_one({"limit": 1})
    assert bot.token.split(":")[1] not in str(dropped.value)


async def test_a_wrong_token_stops_polling(bot: Bot, fake: FakeTelegram) -> None:
    dp, _ = recorder()
    fake.fail("getUpdates", error_code=401, description="Unauthorized")
    poller = Poller(dp, bot, timeout=1, backoff=FAST)
    with pytest.raises(TelegramUnauthorized):
        await poller.run()


async def test_serve_polling_drains_and_confirms_on_stop(bot: Bot, fake: FakeTelegram) -> None:
    dp = Dispatcher()
    handled: list[str] = []
    events: list[str] = []

    @dp.message()
    async def echo(message: Message) -> None:
        await asyncio.sleep(0.02)
        handled.append(message.text or "")
        await message.answer(message.text or "")

    @dp.startup()
    async def on_startup() -> None:
        events.append("startup")

    @dp.shutdown()
    async def on_shutdown() -> None:
        events.append(f"shutdown after {len(handled)}")

    for n in range(20):
        add(fake, n % 4 + 1, str(n))
    signals = Signals()
    serving = asyncio.ensure_future(
        serve_polling(dp, bot, signals=signals, timeout=1, close_bot=False, backoff=FAST)
    )
    await until(lambda: len(handled) >= 1)
    signals.request_stop()  # with most of the batch still queued
    assert await serving == 0
    assert sorted(handled, key=int) == [str(n) for n in range(20)]
    assert events == ["startup", "shutdown after 20"]
    assert get_updates_calls(fake)[-1] == {"offset": 21, "limit": 1, "timeout": 0}
    assert len(fake.sent_messages()) == 20
