"""Albums over real processes: ``tgfast webhook --workers 2 --redis`` with a real
redis-server and the Bot API a FakeTelegram. Albums of 2 to 10 parts whose parts reach
both workers, each part delivered again, are each handed to the handler exactly once,
complete and in order."""

from __future__ import annotations

import asyncio
import functools
import os
import signal
from collections import defaultdict
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from redis.asyncio import Redis
from server_support import deliver_like_telegram
from supervised import Supervised, answers, eventually
from test_server_supervisor import consecutive_free_ports

from tgfast.testing import FakeTelegram, updates

pytestmark = pytest.mark.slow

SECRET = "album-secret"
BOT = f"{Path(__file__).resolve().parent / 'support' / 'album_bot.py'}:dp"
deliver = functools.partial(deliver_like_telegram, secret=SECRET)
SIZES = range(2, 11)


def part(update_id: int, chat_id: int, message_id: int) -> dict[str, Any]:
    photo = [{"file_id": f"F{message_id}", "file_unique_id": f"u{message_id}", "width": 1,
              "height": 1}]  # fmt: skip
    body = updates.message(chat_id=chat_id, message_id=message_id, date=1,
                           media_group_id=f"g{chat_id}", photo=photo)  # fmt: skip
    return updates.update(update_id=update_id, message=body)


def albums() -> dict[int, list[dict[str, Any]]]:
    """chat -> the parts of its album, one album of each size in its own chat."""
    out, update_id = {}, 0
    for size in SIZES:
        chat = 700 + size
        out[chat] = []
        for n in range(size):
            update_id += 1
            out[chat].append(part(update_id, chat, 1000 * size + n))
    return out


Fleet = tuple[Supervised, int, Path]


@pytest.fixture
async def fleet_of(fake: FakeTelegram, redis_url: str, tmp_path: Path) -> AsyncIterator[Any]:
    """``await fleet_of(delay)``: two workers (``--port-per-worker``: worker w on port +
    w) with that quiet period, and the parts log; stopped at the end."""
    made: list[Supervised] = []

    async def make(delay: float = 1.0) -> Fleet:
        port = consecutive_free_ports(2)
        parts_log = tmp_path / "parts.log"
        process = await Supervised.start(
            "webhook", BOT, "--workers", "2", "--port-per-worker", "--port", str(port),
            "--redis", redis_url, "--token", fake.token, "--api-url", fake.url,
            "--secret", SECRET, "--no-rate-limit", cwd=tmp_path,
            ALBUM_PARTS_LOG=str(parts_log), ALBUM_DELAY=str(delay), TGFAST_SEEN_LEASE="1",
        )  # fmt: skip
        made.append(process)
        await process.wait_ready(2)
        return process, port, parts_log

    yield make
    for process in made:
        await process.close()


def handled_by(parts_log: Path) -> dict[int, set[str]]:
    """message id -> the workers that handled it as a part."""
    out: dict[int, set[str]] = defaultdict(set)
    for line in parts_log.read_text().splitlines():
        worker, message_id = line.split()
        out[int(message_id)].add(worker)
    return out


async def settled(fake: FakeTelegram, count: int, quiet: float = 1.5) -> None:
    """Until ``count`` messages were sent and nothing more came for ``quiet`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    seen, since = -1, loop.time()
    while loop.time() < deadline:
        now = len(fake.sent_messages())
        if now != seen:
            seen, since = now, loop.time()
        elif now >= count and loop.time() - since >= quiet:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{len(fake.sent_messages())} messages sent, {count} expected")


def assert_each_album_once_complete_in_order(
    fake: FakeTelegram, sent: dict[int, list[dict[str, Any]]]
) -> None:
    for chat, parts in sent.items():
        ids = " ".join(str(p["message"]["message_id"]) for p in parts)
        assert [text for text, _, _ in answers(fake, chat)] == [f"album {ids}"], chat


async def test_parts_split_across_workers_and_redelivered_make_one_album_each(
    fleet_of: Any, fake: FakeTelegram
) -> None:
    _, port, parts_log = await fleet_of()
    sent = albums()
    url = [f"http://127.0.0.1:{port + w}/webhook" for w in (0, 1)]

    async def send(parts: list[dict[str, Any]]) -> None:
        for n, update in enumerate(parts):  # part n to worker n % 2, in reverse order
            await deliver(http, url[n % 2], update)
        for n, update in enumerate(parts):  # each part delivered again, to the other one
            await deliver(http, url[(n + 1) % 2], update)

    async with aiohttp.ClientSession() as http:
        await asyncio.gather(*(send(parts[::-1]) for parts in sent.values()))
    await settled(fake, len(sent))
    assert_each_album_once_complete_in_order(fake, sent)
    by_part = handled_by(parts_log)
    for parts in sent.values():  # every part handled once, by the worker it was sent to
        for n, update in enumerate(parts[::-1]):
            assert by_part[update["message"]["message_id"]] == {str(n % 2)}
    # whichever worker's quiet period ends first hands an album over: a busy machine can
    # give every album to one of them, so only "by these workers, no other" is certain
    assert {worker for _, worker, _ in answers(fake)} <= {0, 1}


async def test_behind_one_port_with_redeliveries(
    fake: FakeTelegram, redis_url: str, tmp_path: Path
) -> None:
    """Both workers on one port (SO_REUSEPORT): the kernel picks a worker for each new
    connection, so a part and its redelivery may land on either."""
    port = consecutive_free_ports(1)
    parts_log = tmp_path / "parts.log"
    process = await Supervised.start(
        "webhook", BOT, "--workers", "2", "--port", str(port),
        "--redis", redis_url, "--token", fake.token, "--api-url", fake.url,
        "--secret", SECRET, "--no-rate-limit", cwd=tmp_path, ALBUM_PARTS_LOG=str(parts_log),
    )  # fmt: skip
    try:
        await process.wait_ready(2)
        sent = albums()
        url = f"http://127.0.0.1:{port}/webhook"
        # a new connection for every post, as from many Telegram servers
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as http:

            async def send(parts: list[dict[str, Any]]) -> None:
                await asyncio.gather(*(deliver(http, url, u) for u in parts + parts))

            await asyncio.gather(*(send(parts) for parts in sent.values()))
        await settled(fake, len(sent))
        assert_each_album_once_complete_in_order(fake, sent)
        by_part = handled_by(parts_log)
        assert all(len(workers) == 1 for workers in by_part.values())
        assert len(by_part) == sum(SIZES)
        split = [chat for chat, parts in sent.items()
                 if len({w for p in parts for w in by_part[p["message"]["message_id"]]}) == 2]  # fmt: skip
        assert split, "no album reached both workers: the test proved nothing"
    finally:
        await process.close()


async def test_an_album_whose_worker_died_while_waiting_is_taken_over(
    fleet_of: Any, fake: FakeTelegram, redis_url: str
) -> None:
    """Every part to worker 1, which is killed (SIGKILL) once they are stored and before
    its quiet period ends: worker 0's sweep finds the album quiet and nobody waiting."""
    process, port, _ = await fleet_of(5.0)
    victim = process.ready[1]
    chat = 900
    parts = [part(n, chat, 50 + n) for n in range(1, 5)]
    bot_id = fake.token.partition(":")[0]
    stored = f"tgfast:album:{bot_id}:{chat}:g{chat}:parts"
    redis = Redis.from_url(redis_url)
    try:
        async with aiohttp.ClientSession() as http:
            for update in parts:
                await deliver(http, f"http://127.0.0.1:{port + 1}/webhook", update)
        for _ in range(300):  # the parts stored: the quiet period (5 s) has begun
            if await redis.hlen(stored) == len(parts) + 1:  # and "@last"
                break
            await asyncio.sleep(0.01)
        else:
            raise AssertionError("the parts were not stored")
        os.kill(victim, signal.SIGKILL)
        await eventually(lambda: answers(fake, chat), timeout=30, what="the album taken over")
        await asyncio.sleep(1.5)  # and no second answer, from the restarted worker say
    finally:
        await redis.aclose()
    ((text, _, pid),) = answers(fake, chat)
    assert text == "album 51 52 53 54"
    assert pid != victim
