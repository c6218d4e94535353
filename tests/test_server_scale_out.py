"""Scale-out with real parts: a real nginx (round robin) in front of one supervisor
with two workers (``--port-per-worker``), a real redis-server holding what they share
(``--redis``), and the Bot API a FakeTelegram in the test process.

Updates are posted the way Telegram posts them: to the balancer, and posted again
after a 502/503/refused connection (Telegram's redelivery).
"""

from __future__ import annotations

import asyncio
import functools
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from nginx_server import Nginx
from redis.asyncio import Redis
from server_support import deliver_like_telegram, message, post
from supervised import BOT, Supervised, alive, answers, eventually
from test_server_supervisor import consecutive_free_ports

from tgfast.testing import FakeTelegram

# a real nginx fleet: scripts/test.sh runs it on the main Python only
pytestmark = pytest.mark.slow

SECRET = "scale-out-secret"
deliver = functools.partial(deliver_like_telegram, secret=SECRET)  # post until a 200


class Fleet:
    """The supervisor, its two workers' ports and the nginx in front of them."""

    def __init__(self, process: Supervised, port: int, lb: Nginx) -> None:
        self.process = process
        self.ports = (port, port + 1)
        self.lb = lb

    @property
    def url(self) -> str:
        return f"{self.lb.url}/webhook"

    def worker_url(self, worker: int, path: str = "/webhook") -> str:
        return f"http://127.0.0.1:{self.ports[worker]}{path}"

    async def metric(self, http: aiohttp.ClientSession, worker: int, line: str) -> int:
        """The value of one sample of a worker's ``/metrics`` (0 when absent)."""
        async with http.get(self.worker_url(worker, "/metrics")) as resp:
            text = await resp.text()
        for sample in text.splitlines():
            name, _, value = sample.rpartition(" ")
            if name == line:
                return int(float(value))
        return 0


@pytest.fixture
async def fleet_of(fake: FakeTelegram, redis_url: str, tmp_path: Path) -> AsyncIterator[Any]:
    """``await fleet_of(*extra_args, proxy_bind=None)``: start the fleet (``proxy_bind``:
    the loopback address nginx connects to the workers from, not 127.0.0.1); everything
    is stopped at the end."""
    made: list[Fleet] = []

    async def make(*extra: str, proxy_bind: str | None = None) -> Fleet:
        port = consecutive_free_ports(2)
        process = await Supervised.start(
            "webhook", BOT, "--workers", "2", "--port-per-worker", "--port", str(port),
            "--redis", redis_url, "--token", fake.token, "--api-url", fake.url,
            "--secret", SECRET, *extra, cwd=tmp_path,
            TGFAST_SEEN_LEASE="1",  # a dead worker's updates are taken over after 1 s
        )  # fmt: skip
        lb = Nginx([port, port + 1])
        if proxy_bind is not None:
            config = lb.config.read_text()
            proxying = "proxy_pass http://tgfast_workers;"
            assert proxying in config
            lb.config.write_text(
                config.replace(proxying, f"{proxying}\n            proxy_bind {proxy_bind};")
            )
        made.append(Fleet(process, port, lb))
        await process.wait_ready(2)
        lb.start()
        return made[-1]

    yield make
    for fleet in made:
        fleet.lb.close()
        await fleet.process.close()


async def test_a_conversation_goes_on_across_workers(
    fleet_of: Any, fake: FakeTelegram, redis_url: str
) -> None:
    fleet = await fleet_of()
    chat = 501
    steps = ["/form", "Ann", "33"]
    async with aiohttp.ClientSession() as http:
        for n, text in enumerate(steps, 1):
            assert await deliver(http, fleet.url, message(n, chat, text)) == 1
            await eventually(lambda n=n: len(fake.sent_messages(chat)) == n, what=f"answer {n}")
    replies = answers(fake, chat)
    assert [text for text, _, _ in replies] == ["name?", "age?", "Ann, 33: saved"]
    # round robin: the steps were handled by both workers, each step where the
    # previous one was not, so the state can only have come through Redis
    workers = [worker for _, worker, _ in replies]
    assert workers[0] != workers[1] != workers[2], replies
    pids = {pid for _, _, pid in replies}
    assert pids == set(fleet.process.ready.values())
    redis = Redis.from_url(redis_url)
    try:  # the rate limiter's buckets are in Redis too (the limits hold for both)
        assert await redis.keys(f"tgfast:ratelimit:{fake.token.partition(':')[0]}:*")
        assert await redis.keys("tgfast:seen:*")
    finally:
        await redis.aclose()


async def test_a_redelivery_to_the_other_worker_is_handled_once(
    fleet_of: Any, fake: FakeTelegram
) -> None:
    fleet = await fleet_of("--no-rate-limit")
    count, settled = 20, 4
    async with aiohttp.ClientSession() as http:
        for update_id in range(1, count + 1):
            update = message(update_id, 600 + update_id, f"once {update_id}")
            # the same update at the same moment on both workers (Telegram redelivers
            # when the first answer was slow; the balancer picks another worker): the
            # copy that comes second is refused while the first runs, acknowledged
            # as a duplicate once it is done. Which copy wins is a race.
            first = update_id % 2
            await asyncio.gather(
                *(deliver(http, fleet.worker_url(w), update) for w in (first, 1 - first))
            )
        for update_id in range(count + 1, count + settled + 1):
            # a redelivery after the first copy was acknowledged: the winner is known,
            # and each worker is the first for some
            update = message(update_id, 600 + update_id, f"once {update_id}")
            first = update_id % 2
            for w in (first, 1 - first):
                await deliver(http, fleet.worker_url(w), update)
        duplicate = 'tgfast_rejected_total{reason="duplicate"}'
        handled = 'tgfast_updates_handled_total{kind="message"}'

        async def total(line: str) -> int:
            return sum([await fleet.metric(http, w, line) for w in (0, 1)])

        everything = count + settled
        assert await total(duplicate) == everything  # counted before the 200 went out
        await eventually(lambda: len(fake.sent_messages()) >= everything)
        assert await total(handled) == everything
    texts = sorted(text for text, _, _ in answers(fake))
    assert texts == sorted(f"once {n}" for n in range(1, everything + 1))
    for update_id in range(count + 1, everything + 1):
        [(_, worker, _)] = answers(fake, 600 + update_id)
        assert worker == update_id % 2


async def test_a_killed_worker_is_routed_around_and_restarted(
    fleet_of: Any, fake: FakeTelegram
) -> None:
    fleet = await fleet_of("--no-rate-limit")
    victim = fleet.process.ready[1]
    sent = iter(range(1, 100_000))
    acknowledged: list[int] = []
    stop_load = asyncio.Event()

    async def load(http: aiohttp.ClientSession) -> None:
        while not stop_load.is_set():
            update_id = next(sent)
            await deliver(http, fleet.url, message(update_id, 10_000 + update_id, f"u{update_id}"))
            acknowledged.append(update_id)
            await asyncio.sleep(0.01)

    async with aiohttp.ClientSession() as http:
        senders = [asyncio.ensure_future(load(http)) for _ in range(3)]
        await eventually(lambda: len(acknowledged) >= 30, what="the load to run")
        os.kill(victim, signal.SIGKILL)
        await fleet.process.wait_log(rf"worker 1 \(pid {victim}\) was killed by SIGKILL")
        # while worker 1 is down every update gets its 200 from worker 0
        after_kill = len(acknowledged)
        await eventually(lambda: len(acknowledged) >= after_kill + 30, what="load after the kill")
        await eventually(
            lambda: fleet.process.ready[1] != victim, what="the supervisor to restart worker 1"
        )
        restarted = fleet.process.ready[1]
        # and nginx sends updates to the restarted worker again
        await eventually(
            lambda: any(pid == restarted for _, _, pid in answers(fake)),
            what="the restarted worker to get updates",
        )
        stop_load.set()
        await asyncio.gather(*senders)
    # every update that got a 200 was handled: those acknowledged after the death by
    # the living worker, those in flight on the victim taken over from the journal
    late = {f"u{n}" for n in acknowledged[after_kill:]}
    everything = {f"u{n}" for n in acknowledged}
    await eventually(lambda: everything <= {text for text, _, _ in answers(fake)},
                     what="every acknowledged update")  # fmt: skip
    assert victim not in {pid for text, _, pid in answers(fake) if text in late}
    assert not alive(victim)
    fleet.process.signal(signal.SIGTERM)
    assert await fleet.process.wait() == 0, fleet.process.log


async def test_updates_a_killed_worker_acknowledged_are_handled_by_another(
    fleet_of: Any, fake: FakeTelegram
) -> None:
    # fast acknowledgement (the default): the 200 goes out before the handler runs, so a
    # SIGKILL mid-handler would lose the update; the journal in Redis hands it over
    fleet = await fleet_of("--no-rate-limit")
    count = 8
    tags = {f"crash{n}" for n in range(count)}
    in_flight = "tgfast_updates_in_flight"
    async with aiohttp.ClientSession() as http:
        for n in range(count):  # acknowledged at once, answered 2 s later
            update = message(n + 1, 900 + n, f"slow 2 crash{n}")
            assert await deliver(http, fleet.url, update) == 1
        held = [await fleet.metric(http, worker, in_flight) for worker in (0, 1)]
    assert held == [count // 2, count // 2], held  # round robin
    victim = fleet.process.ready[1]
    os.kill(victim, signal.SIGKILL)
    await fleet.process.wait_log(rf"worker 1 \(pid {victim}\) was killed by SIGKILL")
    await eventually(lambda: len(answers(fake)) >= count, timeout=10, what="every update")
    await asyncio.sleep(0.5)  # a duplicate would come now
    handled = answers(fake)
    assert sorted(text for text, _, _ in handled) == sorted(tags)  # each once
    assert victim not in {pid for _, _, pid in handled}
    assert "took over 4 updates of bot" in fleet.process.log
    fleet.process.signal(signal.SIGTERM)
    assert await fleet.process.wait() == 0, fleet.process.log


async def test_an_update_in_flight_on_a_killed_worker_is_not_lost(
    fleet_of: Any, fake: FakeTelegram
) -> None:
    # reply mode: the 200 goes out once the handler is done, so a 200 should mean handled
    # even when the worker is killed mid-update (SIGKILL: nothing drains)
    fleet = await fleet_of("--no-rate-limit", "--reply-mode", "--reply-timeout", "10")
    in_flight = "tgfast_updates_in_flight"
    async with aiohttp.ClientSession() as http:
        posted = asyncio.ensure_future(
            post(http, fleet.url, message(1, 42, "slow 1 in-flight"), secret=SECRET)
        )
        holder: list[int] = []

        async def find_holder() -> None:
            while not holder:
                for worker in (0, 1):
                    if await fleet.metric(http, worker, in_flight) == 1:
                        holder.append(worker)
                await asyncio.sleep(0.01)

        await asyncio.wait_for(find_holder(), 10)
        victim = fleet.process.ready[holder[0]]
        os.kill(victim, signal.SIGKILL)
        # nginx moved it on to the other worker, which refuses it as busy while the dead
        # worker's lease lasts (never a 200 for an update nobody will handle)
        status, _, _ = await posted
        assert status == 503
        survivor = 1 - holder[0]
        assert await fleet.metric(http, survivor, 'tgfast_rejected_total{reason="busy"}') >= 1
        assert not fake.sent_messages(42)
        # Telegram delivers it again: once the lease lapsed, a live worker handles it (the
        # survivor, on that delivery or from the journal, or the restarted worker from
        # the journal), and the redelivery is acknowledged
        assert await deliver(http, fleet.url, message(1, 42, "slow 1 in-flight")) >= 1
    await eventually(lambda: fake.sent_messages(42), timeout=5, what="the update to be handled")
    await asyncio.sleep(0.5)  # a second answer would come now
    (handled,) = answers(fake, 42)
    assert handled[2] != victim


async def test_sigterm_drains_every_worker_behind_the_balancer(
    fleet_of: Any, fake: FakeTelegram
) -> None:
    fleet = await fleet_of("--no-rate-limit")
    pids = dict(fleet.process.ready)
    count = 30
    async with aiohttp.ClientSession() as http:
        for update_id in range(1, count + 1):  # acknowledged at once, answered 0.5 s later
            update = message(update_id, 700 + update_id, f"slow 0.5 tag{update_id}")
            assert await deliver(http, fleet.url, update) == 1
        assert len(fake.sent_messages()) < count  # most still in flight
        fleet.process.signal(signal.SIGTERM)
        await fleet.process.wait_log("stopping 2 workers")
        # draining workers refuse new updates: the balancer has nowhere to send them
        status, _, _ = await post(http, fleet.url, message(999, 799, "late"), secret=SECRET)
        assert status in (502, 503)
    assert await fleet.process.wait() == 0, fleet.process.log
    handled = {text: pid for text, _, pid in answers(fake)}
    assert sorted(handled) == sorted(f"tag{n}" for n in range(1, count + 1))
    assert set(handled.values()) == set(pids.values())
    assert not any(alive(pid) for pid in pids.values())


async def test_the_ip_allow_list_behind_nginx_believes_only_the_trusted_proxy(
    fleet_of: Any, fake: FakeTelegram
) -> None:
    # nginx connects to the workers from 127.0.0.4, the one trusted proxy; a client on
    # 127.0.0.1 or .3 posting to a worker directly is no proxy, whatever it writes in
    # X-Forwarded-For (Linux routes all of 127.0.0.0/8 to the loopback interface)
    fleet = await fleet_of(
        "--no-rate-limit", "--trusted-proxy", "127.0.0.4", "--allow-ip", "127.0.0.2/32",
        proxy_bind="127.0.0.4",
    )  # fmt: skip
    forged = {"X-Forwarded-For": "127.0.0.2"}

    def client(address: str) -> aiohttp.ClientSession:
        return aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(address, 0)))

    async with (
        client("127.0.0.2") as allowed,
        client("127.0.0.3") as other,
        client("127.0.0.1") as local,
    ):
        refused = [  # (session, url, headers): each must get a 403
            (other, fleet.url, None),  # through nginx, from outside the allow-list
            (other, fleet.url, forged),  # nginx appends .3: the right end is the client
            (other, fleet.worker_url(0), forged),  # straight to a worker: not a proxy
            (other, fleet.worker_url(1), forged),
            (local, fleet.worker_url(0), forged),  # nginx's default address, not trusted
        ]
        for n, (http, url, headers) in enumerate(refused, 1):
            update = message(n, 800 + n, f"refused {n}")
            status, _, _ = await post(http, url, update, secret=SECRET, headers=headers)
            assert status == 403, (n, url, headers, status)
        accepted = [  # through nginx (round robin: both workers), and straight from .2
            (allowed, fleet.url),
            (allowed, fleet.url),
            (allowed, fleet.worker_url(0)),
        ]
        for n, (http, url) in enumerate(accepted, 101):
            status, _, _ = await post(http, url, message(n, 800 + n, f"allowed {n}"), secret=SECRET)
            assert status == 200, (n, url, status)
        await eventually(lambda: len(answers(fake)) >= len(accepted), what="the allowed updates")
        await asyncio.sleep(0.3)  # an answer to a refused update would come now
        forbidden = 'tgfast_rejected_total{reason="forbidden_ip"}'
        counts = [await fleet.metric(local, w, forbidden) for w in (0, 1)]
    assert sum(counts) == len(refused), counts
    texts = sorted(text for text, _, _ in answers(fake))
    assert texts == sorted(f"allowed {n}" for n in range(101, 101 + len(accepted)))
    assert {worker for _, worker, _ in answers(fake)} == {0, 1}
