"""One long-poller among several workers: ``RedisLeaderLock`` against a real
redis-server, and ``serve_polling(leader=...)`` against FakeTelegram."""

from __future__ import annotations

import asyncio
import sys
import textwrap
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from redis.asyncio import Redis
from redis_server import RedisServer, free_port
from server_support import message, subprocess_env

from tgfast import Bot, Dispatcher
from tgfast.client import NO_RETRY
from tgfast.redis import RedisLeaderLock, connect_redis, poller_key
from tgfast.server import Backoff, Poller, Signals, serve_polling
from tgfast.tasks import cancel_and_wait
from tgfast.testing import FakeTelegram
from tgfast.types import Message

TTL = 1.0  # renewals every 1/3 s: a loaded machine stalls far less than 2/3 s
FAST = Backoff(min_delay=0.01, max_delay=0.05)


@pytest.fixture
async def locks(redis_url: str) -> AsyncIterator[Callable[..., RedisLeaderLock]]:
    """Make locks on their own clients (standing for processes); all closed at the end."""
    made: list[RedisLeaderLock] = []

    def make(key: str = "tgfast:poller:1", ttl: float = TTL) -> RedisLeaderLock:
        lock = RedisLeaderLock.from_url(redis_url, key=key, ttl=ttl, connect_timeout=0.2)
        made.append(lock)
        return lock

    yield make
    for lock in made:
        await lock.close()


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    client = connect_redis(redis_url)
    yield client
    await client.aclose()


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.005)


# -- the lock ---------------------------------------------------------------------------


async def test_one_of_two_contenders_holds_it_and_keeps_it_by_renewing(
    locks: Callable[..., RedisLeaderLock], redis: Redis
) -> None:
    a, b = locks(), locks()
    assert a.lost.is_set() and not a.held  # not held before acquiring
    assert await a.try_acquire()
    assert not await b.try_acquire()
    assert a.held and not a.lost.is_set() and b.lost.is_set()
    waiting = asyncio.ensure_future(b.acquire())
    await asyncio.sleep(3 * TTL)  # three TTLs: only renewals keep it
    assert a.held and not waiting.done()
    assert await redis.get("tgfast:poller:1") == a.token.encode()
    await a.release()
    assert a.lost.is_set() and not a.held
    await asyncio.wait_for(waiting, 2 * TTL)  # b's next try finds it free
    assert b.held
    assert await redis.get("tgfast:poller:1") == b.token.encode()
    assert 0 < await redis.pttl("tgfast:poller:1") <= TTL * 1000


async def test_a_dead_holders_lock_expires_and_another_takes_over(
    locks: Callable[..., RedisLeaderLock],
) -> None:
    a, b = locks(), locks()
    await a.acquire()
    assert a._renewing is not None
    await cancel_and_wait(a._renewing)  # a hangs: no renewal, no release
    started = time.monotonic()
    await asyncio.wait_for(b.acquire(), 3 * TTL)
    assert time.monotonic() - started > TTL / 2  # it waited for the expiry, not less
    assert b.held and not a.held  # a's own view ends with its last renewal's validity


async def test_a_killed_holder_process_is_replaced_within_the_ttl(
    locks: Callable[..., RedisLeaderLock], redis_url: str, redis: Redis
) -> None:
    script = textwrap.dedent(f"""
        import asyncio, sys
        from tgfast.redis import RedisLeaderLock

        async def main():
            lock = RedisLeaderLock.from_url({redis_url!r}, key="tgfast:poller:1", ttl={TTL})
            await lock.acquire()
            print(lock.token, flush=True)
            await asyncio.sleep(60)

        asyncio.run(main())
    """)
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, stdout=asyncio.subprocess.PIPE, env=subprocess_env()
    )
    try:
        assert child.stdout is not None
        token = (await asyncio.wait_for(child.stdout.readline(), 30)).decode().strip()
        assert token and await redis.get("tgfast:poller:1") == token.encode()
        b = locks()
        assert not await b.try_acquire()
        child.kill()  # no release: only the expiry frees it
        await asyncio.wait_for(b.acquire(), 3 * TTL)
        assert await redis.get("tgfast:poller:1") == b.token.encode()
    finally:
        if child.returncode is None:
            child.kill()
        await child.communicate()


async def test_a_holder_that_loses_it_notices(
    locks: Callable[..., RedisLeaderLock], redis: Redis
) -> None:
    a = locks()
    await a.acquire()
    await redis.set("tgfast:poller:1", "someone else", px=10_000)  # a stalled past its TTL
    await asyncio.wait_for(a.lost.wait(), 2 * TTL)  # its next renewal finds another token
    assert not a.held
    await a.release()  # compare-and-delete: the other holder's key stays
    assert await redis.get("tgfast:poller:1") == b"someone else"


async def test_a_lock_still_holding_our_token_is_taken_back_at_once(
    locks: Callable[..., RedisLeaderLock], redis: Redis
) -> None:
    a = locks(ttl=5)
    await a.acquire()
    a._lose("a renewal that failed on our side only")
    assert not a.held
    await asyncio.wait_for(a.acquire(), 1)  # nobody else can have it: no wait for expiry
    assert a.held and await redis.pttl("tgfast:poller:1") > 4000


async def test_redis_down_fails_fast_and_acquire_retries_until_it_is_back(
    redis_server: RedisServer, locks: Callable[..., RedisLeaderLock]
) -> None:
    a = locks()
    await a.acquire()
    redis_server.stop()
    try:
        await asyncio.wait_for(a.lost.wait(), 2 * TTL)  # the renewal fails: lost
        waiting = asyncio.ensure_future(a.acquire())
        await asyncio.sleep(TTL)
        assert not waiting.done() and not a.held
    finally:
        redis_server.start()
    await asyncio.wait_for(waiting, 5)
    assert a.held


async def connections(redis: Redis, expected: int) -> int:
    """The server's client count once it is ``expected`` (a hang-up is news a moment late)."""
    for _ in range(200):
        count = len(await redis.client_list())
        if count == expected:
            break
        await asyncio.sleep(0.005)
    return count


async def test_release_hangs_up_and_a_new_acquire_connects_again(
    redis_url: str, redis: Redis
) -> None:
    client = connect_redis(redis_url)  # redis-py: the lock sends through a RespClient like it
    lock = RedisLeaderLock(client, "tgfast:poller:9", ttl=TTL)
    before = len(await redis.client_list())
    await lock.acquire()
    assert await connections(redis, before + 1) == before + 1
    await lock.release()
    assert await redis.get("tgfast:poller:9") is None
    assert await connections(redis, before) == before  # not left open after a release
    await lock.acquire()
    assert await redis.get("tgfast:poller:9") == lock.token.encode()
    await lock.close()
    assert await redis.get("tgfast:poller:9") is None
    assert await client.ping() is True  # the client given is not closed
    await client.aclose()


def test_keys_and_bad_ttls() -> None:
    assert poller_key(123) == "tgfast:poller:123"
    assert poller_key(123, "app:poller") == "app:poller:123"
    with pytest.raises(ValueError, match="ttl must be a positive number"):
        RedisLeaderLock.from_url("redis://127.0.0.1:1/0", key="k", ttl=0)


async def test_async_with_is_one_term(locks: Callable[..., RedisLeaderLock], redis: Redis) -> None:
    a = locks()
    async with a as lock:
        assert lock is a and a.held
        assert "held=True" in repr(a)
    assert not a.held and await redis.get("tgfast:poller:1") is None


# -- polling with the lock --------------------------------------------------------------


class Worker:
    """One polling worker: its own Bot, Dispatcher, lock and signals, on the shared fake."""

    def __init__(self, name: str, fake: FakeTelegram, lock: RedisLeaderLock,
                 handled: list[tuple[str, str]], gate: asyncio.Event | None = None) -> None:  # fmt: skip
        self.name = name
        self.lock = lock
        self.bot = Bot(fake.token, server=fake.url, rate_limiter=None, retry=NO_RETRY)
        self.signals = Signals()
        self.poller: Poller | None = None
        dp = Dispatcher()

        @dp.message()
        async def record(message: Message) -> None:
            if gate is not None:
                await gate.wait()
            handled.append((name, message.text or ""))

        self.dp = dp
        self.task: asyncio.Task[int] | None = None

    def start(self, **options: Any) -> None:
        def ready(poller: Poller) -> None:
            self.poller = poller

        self.task = asyncio.ensure_future(
            serve_polling(self.dp, self.bot, signals=self.signals, leader=self.lock,
                          on_ready=ready, timeout=1, backoff=FAST, **options)
        )  # fmt: skip

    async def stop(self) -> int:
        assert self.task is not None
        self.signals.request_stop()
        return await asyncio.wait_for(self.task, 10)


def add(fake: FakeTelegram, texts: list[str]) -> None:
    for text in texts:
        update = message(0, 7, text)
        del update["update_id"]  # numbered by the fake
        fake.add_update(update)


@pytest.fixture
async def workers(
    fake: FakeTelegram, locks: Callable[..., RedisLeaderLock]
) -> AsyncIterator[Callable[..., Worker]]:
    made: list[Worker] = []

    def make(name: str, handled: list[tuple[str, str]], **kwargs: Any) -> Worker:
        key = poller_key(int(fake.token.partition(":")[0]))
        worker = Worker(name, fake, locks(key=key), handled, **kwargs)
        made.append(worker)
        return worker

    yield make
    for worker in made:
        if worker.task is not None and not worker.task.done():
            await worker.stop()


def texts(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


async def test_two_workers_one_poller_each_update_once_and_a_takeover(
    fake: FakeTelegram, workers: Callable[..., Worker]
) -> None:
    handled: list[tuple[str, str]] = []
    one, two = workers("one", handled), workers("two", handled)
    one.start()
    two.start()
    await until(lambda: one.lock.held or two.lock.held)
    leader, follower = (one, two) if one.lock.held else (two, one)
    add(fake, texts("a", 30))
    await until(lambda: len(handled) == 30)
    assert {name for name, _ in handled} == {leader.name}
    assert not follower.lock.held and follower.poller is not None
    assert follower.poller.offset is None  # it never fetched

    assert await leader.stop() == 0  # drains, confirms as the holder, releases
    await until(lambda: follower.lock.held, timeout=3 * TTL)
    add(fake, texts("b", 30))
    await until(lambda: len(handled) == 60)
    assert await follower.stop() == 0

    count = Counter(text for _, text in handled)
    assert count == Counter(texts("a", 30) + texts("b", 30))  # each exactly once
    assert {text for name, text in handled if name == follower.name} == set(texts("b", 30))
    for worker in (leader, follower):  # never two at once: Telegram would answer 409
        assert worker.poller is not None
        assert worker.poller.metrics.api_calls.get(("getUpdates", 409), 0) == 0


async def test_a_poller_that_loses_the_lock_stops_and_its_updates_are_handled_once(
    fake: FakeTelegram, workers: Callable[..., Worker], redis: Redis
) -> None:
    handled: list[tuple[str, str]] = []
    gate = asyncio.Event()  # the old holder's handlers are slow: they finish after it lost
    one = workers("one", handled, gate=gate)
    one.start(max_in_flight=3)
    await until(lambda: one.lock.held)
    add(fake, texts("a", 10))
    assert one.poller is not None
    await until(lambda: one.poller is not None and one.poller.processor.in_flight == 3)
    # 3 taken, never confirmed (no room: no next getUpdates). It stalls; another takes over.
    two = workers("two", handled)
    polls = len(fake.calls_to("getUpdates"))
    await redis.set(one.lock.key, two.lock.token, px=int(TTL * 1000))
    two.start()
    await asyncio.wait_for(one.lock.lost.wait(), 2 * TTL)
    await until(lambda: two.lock.held)
    await until(lambda: len(fake.calls_to("getUpdates")) > polls)  # two fetches the 3 again
    await asyncio.sleep(0.1)
    assert handled == []  # two waits while one still works on them (busy, not duplicate)
    gate.set()
    await until(lambda: len(handled) == 10)
    add(fake, texts("b", 5))
    await until(lambda: len(handled) == 15)

    count = Counter(text for _, text in handled)
    assert count == Counter(texts("a", 10) + texts("b", 5))  # each exactly once
    assert sorted(text for name, text in handled if name == "one") == texts("a", 3)
    assert two.poller is not None and two.poller.metrics.rejected["duplicate"] == 3
    assert one.poller._request is None and not one.lock.held  # one polls no more
    assert await one.stop() == 0
    assert not await one.poller.confirm()  # not the holder: confirms nothing
    assert await two.stop() == 0


async def test_a_stop_while_waiting_for_the_lock_exits_at_once(
    fake: FakeTelegram, workers: Callable[..., Worker], redis: Redis
) -> None:
    handled: list[tuple[str, str]] = []
    worker = workers("one", handled)
    await redis.set(worker.lock.key, "another worker", px=60_000)
    worker.start()
    await until(lambda: worker.poller is not None)
    await asyncio.sleep(TTL / 2)  # it is waiting for the lock
    started = time.monotonic()
    assert await worker.stop() == 0
    assert time.monotonic() - started < TTL
    assert fake.calls_to("getUpdates") == []
    assert await redis.get(worker.lock.key) == b"another worker"


async def test_redis_down_stops_polling_and_it_resumes_when_redis_returns(
    fake: FakeTelegram, workers: Callable[..., Worker], redis_server: RedisServer
) -> None:
    handled: list[tuple[str, str]] = []
    worker = workers("one", handled)
    worker.start()
    await until(lambda: worker.lock.held)
    add(fake, ["before"])
    await until(lambda: len(handled) == 1)
    redis_server.stop()
    try:
        await asyncio.wait_for(worker.lock.lost.wait(), 2 * TTL)
        await until(lambda: worker.poller is not None and worker.poller._request is None)
        polls = len(fake.calls_to("getUpdates"))
        add(fake, ["during"])
        await asyncio.sleep(TTL)
        assert handled == [("one", "before")]  # not fetched: it cannot prove it is alone
        assert len(fake.calls_to("getUpdates")) == polls
    finally:
        redis_server.start()
    await until(lambda: len(handled) == 2)
    assert handled[-1] == ("one", "during") and worker.lock.held
    assert await worker.stop() == 0


async def test_without_redis_at_start_nothing_polls_until_it_comes(fake: FakeTelegram) -> None:
    port = free_port()
    lock = RedisLeaderLock.from_url(
        f"redis://127.0.0.1:{port}/0", key="tgfast:poller:1", ttl=TTL, connect_timeout=0.2
    )
    handled: list[tuple[str, str]] = []
    worker = Worker("one", fake, lock, handled)
    worker.start()
    add(fake, ["waiting"])
    await asyncio.sleep(TTL)
    assert fake.calls_to("getUpdates") == [] and handled == []
    with RedisServer(port):
        await until(lambda: handled == [("one", "waiting")])
        assert await worker.stop() == 0
        await lock.close()
