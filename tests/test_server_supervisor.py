"""``tgfast webhook --workers N``: the supervisor, its workers and their life cycle.

Real processes on real ports of 127.0.0.1; the Bot API is a FakeTelegram in the test.
"""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from redis_server import RedisServer, free_port
from server_support import message, post
from supervised import BOT, Supervised, alive, answers, eventually
from test_cli import run_cli

from tgfast.testing import FakeTelegram

SECRET = "supervisor-test-secret"


def consecutive_free_ports(count: int) -> int:
    """The first of ``count`` consecutive free ports."""
    for _ in range(50):
        first = free_port()
        if first + count > 65535:
            continue
        socks = []
        try:
            for port in range(first, first + count):
                sock = socket.socket()
                socks.append(sock)
                sock.bind(("127.0.0.1", port))
            return first
        except OSError:
            continue
        finally:
            for sock in socks:
                sock.close()
    raise AssertionError("no consecutive free ports")


@pytest.fixture
async def supervised() -> AsyncIterator[list[Supervised]]:
    """Supervisors started by the test; killed (workers too) if the test left them."""
    started: list[Supervised] = []
    yield started
    for process in started:
        await process.close()


async def start(
    started: list[Supervised], fake: FakeTelegram, tmp_path: Path, *args: str, workers: int = 2
) -> Supervised:
    process = await Supervised.start(
        "webhook", BOT, "--workers", str(workers), "--token", fake.token,
        "--api-url", fake.url, "--secret", SECRET, "--no-rate-limit", "--no-uvloop", *args,
        cwd=tmp_path,
    )  # fmt: skip
    started.append(process)
    return process


def new_connections() -> aiohttp.ClientSession:
    """A client that opens a connection per request (so SO_REUSEPORT spreads them)."""
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True))


async def post_ok(
    http: aiohttp.ClientSession, url: str, update_id: int, chat: int, text: str
) -> None:
    status, body, _ = await post(http, url, message(update_id, chat, text), secret=SECRET)
    assert status == 200, (status, body)


# -- usage ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["webhook", BOT, "--fake", "--workers", "2"], "--fake runs one process"),
        (["webhook", BOT, "--token", "1:a", "--port", "0", "--workers", "2"],
         "--port 0 with --workers 2"),
        (["polling", BOT, "--token", "1:a", "--workers", "2"],
         "polling with --workers 2 needs --redis"),
        (["webhook", BOT, "--token", "1:a", "--workers", "0"], "must be at least 1"),
        (["webhook", BOT, "--token", "1:a", "--workers", "3", "--port", "65534",
          "--port-per-worker"], "go past 65535"),
    ],
)  # fmt: skip
async def test_usage_errors(tmp_path: Path, args: list[str], error: str) -> None:
    code, _, err = await run_cli(*args, cwd=tmp_path)
    assert code == 2, err
    assert error in err
    assert "worker 0 started" not in err  # refused before any worker ran


# -- serving --------------------------------------------------------------------------------


async def test_workers_share_the_port_and_keep_secrets_off_their_command_line(
    supervised: list[Supervised], fake: FakeTelegram, tmp_path: Path
) -> None:
    port = free_port()
    process = await start(supervised, fake, tmp_path, "--port", str(port))
    pids = await process.wait_ready(2)
    assert len(set(pids.values())) == 2
    assert f"2 workers on 127.0.0.1:{port} (shared, SO_REUSEPORT)" in process.log
    assert (
        "without --redis: FSM state, redelivered-update dedup and rate limits are per worker"
        in (process.log)
    )
    for pid in pids.values():
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        assert b"webhook" in argv and b"--workers" in argv
        assert not any(fake.token.encode() in arg or SECRET.encode() in arg for arg in argv), argv
        assert b"--token" not in argv and b"--secret" not in argv
        assert argv[argv.index(b"--workers") + 1] == b"1"
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        assert f"TGFAST_TOKEN={fake.token}".encode() in environ

    url = f"http://127.0.0.1:{port}/webhook"
    async with new_connections() as http:
        for update_id in range(1, 41):
            await post_ok(http, url, update_id, 100 + update_id, f"hi {update_id}")
    await eventually(lambda: len(fake.sent_messages()) == 40, what="40 answers")
    handled_by = {pid for chat in range(101, 141) for _, _, pid in answers(fake, chat)}
    assert handled_by == set(pids.values())  # the kernel spread the connections over both

    process.signal(signal.SIGTERM)
    assert await process.wait() == 0, process.log
    assert "all 2 workers stopped" in process.log
    assert fake.token not in process.log and SECRET not in process.log


async def test_port_per_worker(
    supervised: list[Supervised], fake: FakeTelegram, tmp_path: Path
) -> None:
    port = consecutive_free_ports(2)
    process = await start(supervised, fake, tmp_path, "--port", str(port), "--port-per-worker")
    pids = await process.wait_ready(2)
    assert f"2 workers on 127.0.0.1, ports {port}-{port + 1} (one each)" in process.log
    async with aiohttp.ClientSession() as http:
        for worker in (0, 1):
            async with http.get(f"http://127.0.0.1:{port + worker}/readyz") as resp:
                assert resp.status == 200
            for n in range(3):
                update_id = 10 * worker + n + 1
                await post_ok(http, f"http://127.0.0.1:{port + worker}/webhook", update_id,
                              7, f"to {worker}")  # fmt: skip
    await eventually(lambda: len(fake.sent_messages(7)) == 6)
    for text, worker, pid in answers(fake, 7):
        assert text == f"to {worker}" and pid == pids[worker]
    process.signal(signal.SIGTERM)
    assert await process.wait() == 0, process.log


async def test_a_dead_worker_is_restarted_with_growing_delays(
    supervised: list[Supervised], fake: FakeTelegram, tmp_path: Path
) -> None:
    port = consecutive_free_ports(2)
    process = await start(supervised, fake, tmp_path, "--port", str(port), "--port-per-worker")
    pids = await process.wait_ready(2)
    survivor = pids[0]
    victims = [pids[1]]
    for delay in ("0.5", "1.0"):
        victim = victims[-1]
        killed_at = time.monotonic()
        os.kill(victim, signal.SIGKILL)
        await process.wait_log(
            rf"worker 1 \(pid {victim}\) was killed by SIGKILL after [\d.]+ s; "
            rf"restarting in {delay} s"
        )
        await eventually(lambda v=victim: process.ready[1] != v, what="worker 1 to be back")
        assert time.monotonic() - killed_at >= float(delay)
        victims.append(process.ready[1])
    assert process.ready[0] == survivor  # the other worker was left alone
    assert not any(alive(pid) for pid in victims[:-1])
    # the restarted worker serves on worker 1's port
    async with aiohttp.ClientSession() as http:
        await post_ok(http, f"http://127.0.0.1:{port + 1}/webhook", 1, 9, "back")
    await eventually(lambda: answers(fake, 9) == [("back", 1, victims[-1])])
    # it did not register the webhook again (no --webhook-url here: nobody did)
    assert fake.calls_to("setWebhook") == []
    process.signal(signal.SIGTERM)
    assert await process.wait() == 0, process.log


async def test_sigterm_drains_every_worker(
    supervised: list[Supervised], fake: FakeTelegram, tmp_path: Path
) -> None:
    port = free_port()
    process = await start(
        supervised, fake, tmp_path, "--port", str(port),
        "--webhook-url", "https://bot.example.com/webhook",
    )  # fmt: skip
    pids = await process.wait_ready(2)
    await eventually(lambda: fake.webhook is not None)
    async with new_connections() as http:
        for update_id in range(1, 21):  # acknowledged at once, answered 0.5 s later
            await post_ok(http, f"http://127.0.0.1:{port}/webhook", update_id, 200 + update_id,
                          f"slow 0.5 tag{update_id}")  # fmt: skip
    assert len(fake.sent_messages()) < 20  # still in flight when the signal comes
    process.signal(signal.SIGTERM)
    assert await process.wait() == 0, process.log
    handled = {text: pid for chat in range(201, 221) for text, _, pid in answers(fake, chat)}
    assert sorted(handled) == sorted(f"tag{n}" for n in range(1, 21))
    assert set(handled.values()) == set(pids.values())  # both workers drained theirs
    assert len(fake.calls_to("setWebhook")) == 1  # worker 0 alone registered it
    assert not any(alive(pid) for pid in pids.values())


async def test_a_second_signal_forces_the_exit(
    supervised: list[Supervised], fake: FakeTelegram, tmp_path: Path
) -> None:
    port = free_port()
    process = await start(supervised, fake, tmp_path, "--port", str(port))
    pids = await process.wait_ready(2)
    async with new_connections() as http:
        for update_id in range(1, 11):
            await post_ok(http, f"http://127.0.0.1:{port}/webhook", update_id, 300 + update_id,
                          "slow 60 never")  # fmt: skip
    process.signal(signal.SIGTERM)
    await process.wait_log("stopping 2 workers")
    await eventually(lambda: process.log.count("draining, send it again") == 2)
    process.signal(signal.SIGINT)
    assert await process.wait(timeout=15) == 1, process.log
    assert fake.sent_messages() == []
    assert "forced exit" in process.log
    assert not any(alive(pid) for pid in pids.values())


@pytest.mark.parametrize("failure", ["import", "port"])
async def test_workers_that_cannot_start_make_it_give_up(
    supervised: list[Supervised], fake: FakeTelegram, tmp_path: Path, failure: str
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        app = "no_such_module_here:dp" if failure == "import" else BOT
        process = await Supervised.start(
            "webhook", app, "--workers", "2", "--token", fake.token, "--api-url", fake.url,
            "--port", port, cwd=tmp_path,
        )  # fmt: skip
        supervised.append(process)
        code = await process.wait(timeout=30)
    assert code == (2 if failure == "import" else 1), process.log
    assert "every worker failed to start" in process.log
    assert process.log.count(" started (pid ") <= 4  # no restart loop
    if failure == "import":
        assert "no module named 'no_such_module_here'" in process.log
    else:
        assert "Errno" in process.log


async def test_workers_drain_when_the_supervisor_is_killed(
    supervised: list[Supervised], fake: FakeTelegram, tmp_path: Path
) -> None:
    port = free_port()
    process = await start(supervised, fake, tmp_path, "--port", str(port))
    pids = await process.wait_ready(2)
    process.signal(signal.SIGKILL)
    await eventually(
        lambda: not any(alive(pid) for pid in pids.values()), what="the orphaned workers to exit"
    )


# -- polling --------------------------------------------------------------------------------


async def test_polling_workers_take_turns_with_one_poller(
    supervised: list[Supervised], fake: FakeTelegram, tmp_path: Path, redis_server: RedisServer
) -> None:
    """``polling --workers 2 --redis``: one worker polls, the other waits for the lock;
    when the poller stops (SIGTERM: it drains, confirms, lets go) the other takes over,
    and every update is handled exactly once."""
    redis_server.flushall()
    process = await Supervised.start(
        "polling", BOT, "--workers", "2", "--token", fake.token, "--api-url", fake.url,
        "--redis", redis_server.url, "--no-rate-limit", "--no-uvloop", "--timeout", "1",
        cwd=tmp_path,
    )  # fmt: skip
    supervised.append(process)
    await process.wait_ready(2)
    await process.wait_log(r"this worker holds tgfast:poller:\d+ and polls")

    def feed(chat: int, text: str) -> None:
        update = message(0, chat, text)
        del update["update_id"]  # numbered by the fake
        fake.add_update(update)

    for n in range(10):
        feed(300 + n % 3, f"first {n}")
    await eventually(lambda: len(fake.sent_messages()) == 10, what="the first 10 answers")
    pollers = {pid for chat in (300, 301, 302) for _, _, pid in answers(fake, chat)}
    assert len(pollers) == 1  # one worker polled them all
    (leader,) = pollers
    os.kill(leader, signal.SIGTERM)  # a rolling restart of the poller
    await eventually(lambda: not alive(leader), what="the poller to drain and exit")
    for n in range(10):
        feed(310 + n % 3, f"second {n}")
    await eventually(lambda: len(fake.sent_messages()) == 20, what="the next 10 answers")
    later = {pid for chat in (310, 311, 312) for _, _, pid in answers(fake, chat)}
    assert leader not in later and len(later) == 1  # another worker took over
    texts = sorted(text for chat in range(300, 313) for text, _, _ in answers(fake, chat))
    assert texts == sorted([f"first {n}" for n in range(10)] + [f"second {n}" for n in range(10)])
    process.signal(signal.SIGTERM)
    assert await process.wait() == 0, process.log
