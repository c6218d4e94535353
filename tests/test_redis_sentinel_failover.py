"""A Redis failover under webhook load, with real parts: a redis-server master and its
replica watched by three redis-sentinel processes, ``tgfast webhook --workers 3
--redis redis+sentinel://...`` in front of them, and a FakeTelegram as the Bot API.

Conversations are started (their FSM state and data written, and acknowledged by the
replica: ``WAIT``); then twelve Telegram-like senders post updates to the workers
while the master is killed (SIGKILL). The sentinels promote the replica within a few
seconds. Asserted: every update acknowledged (200) is answered exactly once; the
answers are 200 or 503 with ``Retry-After``, never an error or a dropped connection,
and no worker dies; the conversations go on after the failover from the state written
before it.
"""

from __future__ import annotations

import asyncio
import itertools
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest
from redis_sentinel import SentinelFleet
from server_support import deliver_like_telegram, message, post
from supervised import BOT, Supervised, answers, eventually
from test_server_supervisor import consecutive_free_ports

from tgfast.testing import FakeTelegram

pytestmark = [
    pytest.mark.slow,  # five Redis processes and a fleet of workers
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes"),
]

SECRET = "sentinel-failover"
WORKERS = 3
SENDERS = 12
CONVERSATIONS = 6  # chats 1..6
LOAD_CHATS = range(100, 124)


@pytest.fixture
def fleet() -> Iterator[SentinelFleet]:
    with SentinelFleet(down_after_ms=1000, failover_timeout_ms=5000) as fleet:
        yield fleet


async def test_acknowledged_updates_are_handled_once_across_a_sentinel_failover(
    fleet: SentinelFleet, fake: FakeTelegram, tmp_path: Path
) -> None:
    port = consecutive_free_ports(WORKERS)
    urls = [f"http://127.0.0.1:{port + n}/webhook" for n in range(WORKERS)]
    bot = await Supervised.start(
        "webhook", BOT, "--workers", str(WORKERS), "--port-per-worker", "--port", str(port),
        "--redis", fleet.url(db=1), "--token", fake.token, "--api-url", fake.url,
        "--secret", SECRET, "--max-in-flight", "2", cwd=tmp_path,
    )  # fmt: skip
    try:
        ready = await bot.wait_ready(WORKERS)
        async with aiohttp.ClientSession() as http:
            await _run(fleet, fake, bot, http, urls)
        assert bot.ready == ready, f"a worker was restarted:\n{bot.log}"
        bot.signal()
        assert await bot.wait() == 0, bot.log
    finally:
        await bot.close()
    assert "Traceback" not in bot.log, bot.log


async def _run(
    fleet: SentinelFleet,
    fake: FakeTelegram,
    bot: Supervised,
    http: aiohttp.ClientSession,
    urls: list[str],
) -> None:
    ids = itertools.count(1)
    worker = itertools.cycle(urls)

    async def deliver(chat: int, text: str) -> None:
        await deliver_like_telegram(http, next(worker), message(next(ids), chat, text),
                                    secret=SECRET)  # fmt: skip

    # -- before: conversations half way through, on the replica too ----------------------
    for step, text in enumerate(("/form", "Ann"), 1):  # each step once the last is answered
        for chat in range(1, CONVERSATIONS + 1):
            await deliver(chat, text if step == 1 else f"{text}{chat}")
        await eventually(lambda step=step: len(fake.sent_messages()) == step * CONVERSATIONS,
                         15, f"answer {step} of each conversation")  # fmt: skip
    fleet.sync_replica()

    # -- the load, and the master killed under it ----------------------------------------
    statuses: list[tuple[float, float, int, str | None]] = []  # (sent, took, status, Retry-After)
    acknowledged: list[str] = []
    stop = asyncio.Event()

    async def sender(n: int) -> None:
        while not stop.is_set():
            update_id = next(ids)
            text = f"e{update_id}"
            update = message(update_id, LOAD_CHATS[update_id % len(LOAD_CHATS)], text)
            while True:  # as Telegram: the same update again until a 200
                started = time.monotonic()
                status, _, headers = await post(http, next(worker), update, secret=SECRET)
                took = time.monotonic() - started
                statuses.append((started, took, status, headers.get("Retry-After")))
                if status == 200:
                    acknowledged.append(text)
                    break
                assert status == 503, (status, bot.log)
                await asyncio.sleep(float(headers.get("Retry-After") or 1) * 0.02)
            await asyncio.sleep(0.005)

    senders = [asyncio.ensure_future(sender(n)) for n in range(SENDERS)]
    try:
        await asyncio.sleep(1.0)
        before = len(acknowledged)
        killed = time.monotonic()
        fleet.kill_master()
        await asyncio.get_running_loop().run_in_executor(None, fleet.wait_failover)
        promoted = time.monotonic()
        after = len(acknowledged)
        await asyncio.sleep(1.5)  # the load goes on on the new master
        stop.set()
        await asyncio.wait_for(asyncio.gather(*senders), 30)
    finally:
        stop.set()
        for task in senders:
            task.cancel()
    assert before > 0 and len(acknowledged) > after, (before, after, len(acknowledged))

    # -- every acknowledged update answered, once ----------------------------------------
    def load_answers() -> Counter[str]:
        return Counter(text for text, _, _ in answers(fake) if text.startswith("e"))

    await eventually(lambda: len(load_answers()) >= len(acknowledged), 30, "every answer")
    await asyncio.sleep(1.0)  # a second answer to anything would come meanwhile
    answered = load_answers()
    assert set(answered) == set(acknowledged)
    assert [text for text, count in answered.items() if count > 1] == []
    assert len(acknowledged) == len(set(acknowledged))

    # -- the outage was 503s with Retry-After, nothing else ------------------------------
    refused = [(sent, retry) for sent, _, status, retry in statuses if status != 200]
    assert all(retry is not None and int(retry) >= 1 for _, retry in refused), refused
    during = [(took, status) for sent, took, status, _ in statuses if killed <= sent <= promoted]
    assert [status for _, status in during].count(503) > 0, "no refusal during the failover"
    # no answer waited longer than the client waits for a master (5 s), and a margin
    slowest = max(took for _, took, _, _ in statuses)
    assert slowest < 7.0, slowest
    print(
        f"\nfailover {promoted - killed:.1f} s after the kill; {len(acknowledged)} updates "
        f"acknowledged ({before} before the kill), {len(refused)} answers 503 "
        f"({[s for _, s in during].count(503)} of {len(during)} posts during the failover); "
        f"slowest answer {slowest:.2f} s"
    )

    # -- after: the conversations go on from what was written before ---------------------
    for chat in range(1, CONVERSATIONS + 1):
        await deliver(chat, str(20 + chat))
    await eventually(lambda: len(fake.sent_messages()) >= 3 * CONVERSATIONS + len(acknowledged),
                     15, "the conversations' last answers")  # fmt: skip
    for chat in range(1, CONVERSATIONS + 1):
        texts = [text for text, _, _ in answers(fake, chat)]
        assert texts == ["name?", "age?", f"Ann{chat}, {20 + chat}: saved"], texts
