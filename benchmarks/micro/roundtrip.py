"""Client round trip: ``sendMessage`` against a mock Bot API server in another process.

    python benchmarks/micro/roundtrip.py            # full run (~1.5 min on 2 cores)
    python benchmarks/micro/roundtrip.py --quick    # smoke run (< 30 s), noisier
    python benchmarks/micro/roundtrip.py --json out.json
    python benchmarks/micro/roundtrip.py --profile tgfast   # cProfile one contender instead

The bar of issue #3: tgfast within 1.15x of the floor's median latency over
sequential calls, and at 0.85x of the floor's throughput or better with 64
calls in flight, in the same run, with the rate limiter off.

Contenders (one small interface each: ``call()`` does one round trip):

* ``floor``: one ``aiohttp.ClientSession`` (default connector) POSTing a
  pre-serialized orjson body, ``await resp.read()``, ``orjson.loads``.
* ``aiogram``: ``Bot(token, session=AiohttpSession(api=TelegramAPIServer.from_base(url)))``,
  ``await bot.send_message(chat_id, text)``, as aiogram users run it.
* ``tgfast``: ``Bot(token, server=url, rate_limiter=None)``,
  ``await bot.send_message(chat_id, text)``.  Skipped, with the reason, while
  ``tgfast.Bot`` does not exist.

How it measures
* The mock server (``mock_api.py``) runs in its own process.  With two or
  more CPUs the client is pinned to one and the server to another: left to
  the scheduler, the two sometimes share a core (a round trip then costs no
  cross-core wake-up) and sometimes not, and the floor's latency jumps
  between ~90 and ~150 µs from round to round.  ``--no-pin`` to compare.
* Every contender runs on the same event loop type, uvloop by default (what
  tgfast uses), in one process, with GC enabled.
* A round, per contender: warm-up, N sequential calls each timed with
  ``perf_counter_ns``, warm-up with 64 in flight, M calls with 64 in flight
  (64 coroutines looping) timed as a whole.  The contenders take turns of
  ``SEQ_BLOCK`` and ``CONC_BLOCK`` calls, the order rotating every turn, so
  that a noisy neighbour (this machine is shared) hits all of them alike.
  Per round: median/p90/p99 latency, client CPU per sequential call,
  calls/s, and the CPU both processes used while 64 were in flight.
  Reported: the median over rounds.  Latency ratios are contender / floor
  within each round (5,000 calls each), median over rounds; throughput
  ratios are contender / floor within each turn (the two measured a second
  apart), median over all turns: a neighbour busy for a few seconds skews a
  turn, not the result.
* Nothing that fails counts: every answer's ``message_id`` is checked (the
  first answer in full), and the server's request counter must grow by
  exactly the number of calls made; its connection counter shows keep-alive.

Output: Markdown on stdout (``--no-machine-line`` leaves out the first line,
for ``run.py``); progress on stderr.
"""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__

import argparse  # noqa: E402
import asyncio  # noqa: E402
import contextlib  # noqa: E402
import cProfile  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import pstats  # noqa: E402
import select  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from collections.abc import Awaitable, Callable, Iterator  # noqa: E402
from dataclasses import asdict, dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
if str(HERE.parent) not in sys.path:  # run.py, the report's formatting
    sys.path.insert(1, str(HERE.parent))

import mock_api  # noqa: E402
from machine import version as _version  # noqa: E402
from run import fmt_ratio, fmt_time, machine_line, md_table  # noqa: E402

TOKEN = "1234567890:AAFakeTokenOfTheRoundTripBenchmark_0"
INFLIGHT = 64
SEQ_BLOCK = 100  # sequential calls per turn (the contenders take turns)
CONC_BLOCK = 2000  # calls per turn with INFLIGHT in flight
BAR_SEQUENTIAL = 1.15  # tgfast median latency / floor's, at most
BAR_THROUGHPUT = 0.85  # tgfast calls/s / floor's, at least
NAMES = ("floor", "aiogram", "tgfast", "tgfast-answer", "tgfast-fast")
FLOOR = "floor"
LABELS = {
    "floor": "floor: aiohttp POST + orjson.loads",
    "aiogram": "aiogram `bot.send_message`",
    "tgfast": "tgfast `bot.send_message`",
    "tgfast-answer": "tgfast `message.answer` (a bound `SendMessage`, awaited)",
    "tgfast-fast": "tgfast `bot.send_message` over `FastSession` (the fast transport)",
}


@dataclass(frozen=True)
class Settings:
    rounds: int
    seq_warmup: int
    seq_calls: int
    conc_warmup: int
    conc_calls: int


SETTINGS = {
    "full": Settings(rounds=5, seq_warmup=500, seq_calls=5000, conc_warmup=1000, conc_calls=20000),
    "quick": Settings(rounds=3, seq_warmup=100, seq_calls=1000, conc_warmup=256, conc_calls=4000),
}


class Missing(Exception):
    """A contender that cannot run here (not installed, API not there yet)."""


class BenchmarkError(Exception):
    """A contender answered wrongly, or its calls did not all reach the server."""


# --------------------------------------------------------------------------
# contenders
# --------------------------------------------------------------------------


@dataclass
class Client:
    call: Callable[[], Awaitable[Any]]  # one sendMessage round trip
    message_id: Callable[[Any], int]  # the answer's message_id (checked on every call)
    full_check: Callable[[Any], bool]  # the first answer, checked field by field
    close: Callable[[], Awaitable[None]]


def _check_fields(message_id: int, chat_id: int, from_id: int, text: str) -> bool:
    return (message_id, chat_id, from_id, text) == (
        mock_api.MESSAGE_ID,
        mock_api.CHAT_ID,
        mock_api.BOT_ID,
        mock_api.TEXT,
    )


async def open_floor(url: str) -> Client:
    import aiohttp
    import orjson

    session = aiohttp.ClientSession()
    endpoint = f"{url}/bot{TOKEN}/sendMessage"
    body = orjson.dumps({"chat_id": mock_api.CHAT_ID, "text": mock_api.TEXT})
    headers = {"Content-Type": "application/json"}
    loads = orjson.loads

    async def call() -> dict[str, Any]:
        async with session.post(endpoint, data=body, headers=headers) as resp:
            return loads(await resp.read())

    def full_check(answer: dict[str, Any]) -> bool:
        m = answer["result"]
        return answer["ok"] is True and _check_fields(
            m["message_id"], m["chat"]["id"], m["from"]["id"], m["text"]
        )

    return Client(call, lambda a: a["result"]["message_id"], full_check, session.close)


async def open_aiogram(url: str) -> Client:
    try:
        from aiogram import Bot
        from aiogram.client.session.aiohttp import AiohttpSession
        from aiogram.client.telegram import TelegramAPIServer
        from aiogram.types import Message
    except ImportError as exc:
        raise Missing(f"aiogram not importable: {exc}") from exc

    bot = Bot(TOKEN, session=AiohttpSession(api=TelegramAPIServer.from_base(url)))
    chat_id, text = mock_api.CHAT_ID, mock_api.TEXT

    def call() -> Awaitable[Message]:
        return bot.send_message(chat_id, text)

    def full_check(m: Message) -> bool:
        return isinstance(m, Message) and _check_fields(
            m.message_id, m.chat.id, m.from_user.id if m.from_user else 0, m.text or ""
        )

    return Client(call, lambda m: m.message_id, full_check, bot.session.close)


async def open_tgfast(url: str) -> Client:
    try:
        import tgfast
    except ImportError as exc:
        raise Missing(f"tgfast not importable: {exc}") from exc
    Bot = getattr(tgfast, "Bot", None)
    if Bot is None:
        raise Missing("`tgfast.Bot` does not exist yet (the client is not built)")
    from tgfast.types import Message

    bot = Bot(TOKEN, server=url, rate_limiter=None)
    chat_id, text = mock_api.CHAT_ID, mock_api.TEXT

    def call() -> Awaitable[Message]:
        return bot.send_message(chat_id, text)

    def full_check(m: Message) -> bool:
        return isinstance(m, Message) and _check_fields(
            m.message_id, m.chat.id, m.from_user.id if m.from_user else 0, m.text or ""
        )

    return Client(call, lambda m: m.message_id, full_check, bot.session.close)


async def open_tgfast_answer(url: str) -> Client:
    """The shortcut path: ``message.answer(text)`` builds a ``SendMessage`` bound to the
    bot, and awaiting it sends it (what a handler's ``await message.answer`` does)."""
    client = await open_tgfast(url)
    import tgfast
    from tgfast.types import Message

    bot = tgfast.Bot(TOKEN, server=url, rate_limiter=None)
    chat = {"id": mock_api.CHAT_ID, "type": "private", "first_name": "A"}
    message = tgfast.convert(Message, {"message_id": 1, "date": 0, "chat": chat})
    message._bot = bot
    text = mock_api.TEXT

    def call() -> Awaitable[Message]:
        return message.answer(text)

    await client.close()
    return Client(call, client.message_id, client.full_check, bot.session.close)


async def open_tgfast_fast(url: str) -> Client:
    """``tgfast`` over the fast transport (``FastSession``) instead of aiohttp's client."""
    import tgfast
    from tgfast.client.session.fast import FastSession

    client = await open_tgfast(url)
    await client.close()
    bot = tgfast.Bot(TOKEN, server=url, rate_limiter=None, session=FastSession())
    chat_id, text = mock_api.CHAT_ID, mock_api.TEXT

    def call() -> Awaitable[Any]:
        return bot.send_message(chat_id, text)

    return Client(call, client.message_id, client.full_check, bot.session.close)


OPENERS: dict[str, Callable[[str], Awaitable[Client]]] = {
    "floor": open_floor,
    "aiogram": open_aiogram,
    "tgfast": open_tgfast,
    "tgfast-answer": open_tgfast_answer,
    "tgfast-fast": open_tgfast_fast,
}


# --------------------------------------------------------------------------
# the mock server process
# --------------------------------------------------------------------------


@dataclass
class ServerProcess:
    proc: subprocess.Popen[str]
    port: int
    client_cpu: int | None
    server_cpu: int | None
    exit_line: str = ""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextlib.contextmanager
def mock_server(pin: bool) -> Iterator[ServerProcess]:
    """Start mock_api.py; with ``pin``, put it on one CPU and this process on another."""
    global CLIENT_CPU
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "mock_api.py")], stdout=subprocess.PIPE, text=True, cwd=HERE
    )
    server = ServerProcess(proc, 0, None, None)
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    try:
        if pin and len(cpus) >= 2:
            server.client_cpu, server.server_cpu = cpus[0], cpus[1]
            os.sched_setaffinity(proc.pid, {server.server_cpu})
            os.sched_setaffinity(0, {server.client_cpu})
            CLIENT_CPU = server.client_cpu
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        line = proc.stdout.readline() if ready else ""
        if not line.strip().isdigit():
            raise BenchmarkError(f"mock server did not start (first output line: {line!r})")
        server.port = int(line)
        yield server
    finally:
        if server.client_cpu is not None:
            os.sched_setaffinity(0, set(cpus))
            CLIENT_CPU = None
        proc.terminate()
        try:
            out, _ = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
        lines = (out or "").strip().splitlines()
        server.exit_line = lines[-1] if lines else ""
        if proc.returncode != 0:
            print(f"mock server exited with status {proc.returncode}", file=sys.stderr)


class ServerStats:
    """Reads the mock server's counters over one kept-alive connection of its own."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def get(self) -> dict[str, Any]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        assert self.reader is not None
        self.writer.write(b"GET /_stats HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        head = await self.reader.readuntil(b"\r\n\r\n")
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        return json.loads(await self.reader.readexactly(length))

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(ConnectionError):
                await self.writer.wait_closed()


# --------------------------------------------------------------------------
# measuring
# --------------------------------------------------------------------------


@dataclass
class RoundResult:
    seq_p50_ns: float
    seq_p90_ns: float
    seq_p99_ns: float
    seq_cpu_ns: float  # client CPU time per sequential call
    calls_per_s: float
    client_cpu: float  # fraction of one core during the 64-in-flight phase
    server_cpu: float
    others_cpu: float | None  # share of the client's CPU other processes (or the host) took
    new_connections: int  # opened during this round's 64-in-flight phases
    turn_calls_per_s: list[float]  # calls/s of each turn with 64 in flight


def _percentile(sorted_ns: list[int], q: float) -> float:
    return float(sorted_ns[min(len(sorted_ns) - 1, int(q * len(sorted_ns)))])


def _wrong(name: str, answer: Any) -> BenchmarkError:
    return BenchmarkError(f"{name}: unexpected answer {answer!r:.300}")


async def sequential(name: str, client: Client, calls: int) -> list[int]:
    """Per-call latencies (ns) of ``calls`` calls made one after another."""
    call, message_id, expected = client.call, client.message_id, mock_api.MESSAGE_ID
    clock = time.perf_counter_ns
    latencies = [0] * calls
    for i in range(calls):
        t0 = clock()
        answer = await call()
        latencies[i] = clock() - t0
        if message_id(answer) != expected:
            raise _wrong(name, answer)
    return latencies


async def concurrent(name: str, client: Client, calls: int, inflight: int) -> float:
    """Make ``calls`` calls, ``inflight`` at a time; return the elapsed seconds."""
    call, message_id, expected = client.call, client.message_id, mock_api.MESSAGE_ID
    left = calls

    async def worker() -> None:
        nonlocal left
        while left > 0:
            left -= 1
            answer = await call()
            if message_id(answer) != expected:
                raise _wrong(name, answer)

    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(inflight)))
    return time.perf_counter() - t0


def _turns(names: list[str], calls: int, block: int, shift: int) -> Iterator[tuple[str, int]]:
    """(contender, calls) in turns of ``block`` calls, the order rotating every turn."""
    for turn, start in enumerate(range(0, calls, block)):
        k = (shift + turn) % len(names)
        for name in names[k:] + names[:k]:
            yield name, min(block, calls - start)


async def sequential_interleaved(
    clients: dict[str, Client], settings: Settings, stats: ServerStats, shift: int
) -> dict[str, tuple[list[int], float]]:
    """Per contender: the latencies (ns) of its timed sequential calls, and CPU s per call.

    The contenders take turns of SEQ_BLOCK calls, so that whatever the
    machine's neighbours do at the time hits all of them alike.
    """
    latencies: dict[str, list[int]] = {name: [] for name in clients}
    cpu = dict.fromkeys(clients, 0.0)
    for name, client in clients.items():
        await sequential(name, client, settings.seq_warmup)
    gc.collect()
    before = await stats.get()
    for name, calls in _turns(list(clients), settings.seq_calls, SEQ_BLOCK, shift):
        cpu0 = time.process_time()
        latencies[name] += await sequential(name, clients[name], calls)
        cpu[name] += time.process_time() - cpu0
    seen = (await stats.get())["requests"] - before["requests"]
    made = settings.seq_calls * len(clients)
    if seen != made:
        raise BenchmarkError(f"made {made} sequential calls, the server saw {seen}")
    return {name: (latencies[name], cpu[name] / settings.seq_calls) for name in clients}


_CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
CLIENT_CPU: int | None = None  # the CPU the client is pinned to, if it is


def _cpu_busy_seconds(cpu: int | None) -> float | None:
    """Seconds one CPU has spent busy (anything but idle) since boot, from /proc/stat."""
    if cpu is None:
        return None
    try:
        with open("/proc/stat", encoding="ascii") as f:
            for line in f:
                if line.startswith(f"cpu{cpu} "):
                    user, nice, system, _idle, _iowait, irq, softirq, steal = map(
                        int, line.split()[1:9]
                    )
                    return (user + nice + system + irq + softirq + steal) / _CLK_TCK
    except (OSError, ValueError):
        pass
    return None


@dataclass
class _Busy:
    calls: int = 0
    seconds: float = 0.0
    client_cpu: float = 0.0
    server_cpu: float = 0.0
    others_cpu: float | None = 0.0  # what else ran on the client's CPU (s)
    connections: int = 0
    turns: list[float] = field(default_factory=list)  # calls/s of each turn


async def throughput_interleaved(
    clients: dict[str, Client], settings: Settings, stats: ServerStats, shift: int
) -> dict[str, _Busy]:
    """Per contender: its calls with INFLIGHT in flight, in turns of CONC_BLOCK calls."""
    busy = {name: _Busy() for name in clients}
    for name, client in clients.items():
        before = await stats.get()
        await concurrent(name, client, settings.conc_warmup, INFLIGHT)
        busy[name].connections += (await stats.get())["connections"] - before["connections"]
    gc.collect()
    for name, calls in _turns(list(clients), settings.conc_calls, CONC_BLOCK, shift):
        before = await stats.get()
        core0 = _cpu_busy_seconds(CLIENT_CPU)
        cpu0 = time.process_time()
        elapsed = await concurrent(name, clients[name], calls, INFLIGHT)
        cpu1 = time.process_time()
        core1 = _cpu_busy_seconds(CLIENT_CPU)
        after = await stats.get()
        if after["requests"] - before["requests"] != calls:
            raise BenchmarkError(
                f"{name}: made {calls} calls but the server saw "
                f"{after['requests'] - before['requests']} requests"
            )
        b = busy[name]
        b.turns.append(calls / elapsed)
        b.calls += calls
        b.seconds += elapsed
        b.client_cpu += cpu1 - cpu0
        b.server_cpu += after["cpu"] - before["cpu"]
        if core0 is None or core1 is None or b.others_cpu is None:
            b.others_cpu = None
        else:
            b.others_cpu += max(0.0, core1 - core0 - (cpu1 - cpu0))
        b.connections += after["connections"] - before["connections"]
    return busy


async def run_round(
    clients: dict[str, Client], settings: Settings, stats: ServerStats, shift: int
) -> dict[str, RoundResult]:
    latencies = await sequential_interleaved(clients, settings, stats, shift)
    busy = await throughput_interleaved(clients, settings, stats, shift)
    results: dict[str, RoundResult] = {}
    for name in clients:
        ordered = sorted(latencies[name][0])
        b = busy[name]
        results[name] = RoundResult(
            seq_p50_ns=float(statistics.median(ordered)),
            seq_p90_ns=_percentile(ordered, 0.90),
            seq_p99_ns=_percentile(ordered, 0.99),
            seq_cpu_ns=latencies[name][1] * 1e9,
            calls_per_s=b.calls / b.seconds,
            client_cpu=b.client_cpu / b.seconds,
            server_cpu=b.server_cpu / b.seconds,
            others_cpu=None if b.others_cpu is None else b.others_cpu / b.seconds,
            new_connections=b.connections,
            turn_calls_per_s=b.turns,
        )
    return results


class _ProbeConnection(asyncio.Protocol):
    """Raw keep-alive client for the server-capacity probe: one request at a time."""

    def __init__(self, request: bytes, answer_len: int, deadline: float, counts: list[int]):
        self.request = request
        self.answer_len = answer_len
        self.deadline = deadline
        self.counts = counts
        self.pending = 0
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        transport.write(self.request)  # type: ignore[attr-defined]

    def data_received(self, data: bytes) -> None:
        self.pending += len(data)
        while self.pending >= self.answer_len:
            self.pending -= self.answer_len
            self.counts[0] += 1
            if time.perf_counter() < self.deadline:
                self.transport.write(self.request)  # type: ignore[attr-defined]
            elif not self.done.done():
                self.done.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_result(None)


async def server_capacity(port: int, stats: ServerStats, seconds: float) -> tuple[float, float]:
    """(requests/s, server CPU fraction) with a raw asyncio client, INFLIGHT connections."""
    loop = asyncio.get_running_loop()
    body = b'{"chat_id":123456789,"text":"x"}'
    request = (
        b"POST /bot%s/sendMessage HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
        % (TOKEN.encode(), len(body), body)
    )
    answer_len = len(mock_api._Answers().send_message)
    counts = [0]
    deadline = time.perf_counter() + seconds
    before = await stats.get()
    t0 = time.perf_counter()
    conns = []
    for _ in range(INFLIGHT):
        _, conn = await loop.create_connection(
            lambda: _ProbeConnection(request, answer_len, deadline, counts), "127.0.0.1", port
        )
        conns.append(conn)
    await asyncio.gather(*(c.done for c in conns))
    elapsed = time.perf_counter() - t0
    after = await stats.get()
    for c in conns:
        c.transport.close()
    return counts[0] / elapsed, (after["cpu"] - before["cpu"]) / elapsed


# --------------------------------------------------------------------------
# the run
# --------------------------------------------------------------------------


@dataclass
class Report:
    mode: str
    settings: Settings
    loop: str
    pinned: str
    versions: dict[str, str]
    missing: dict[str, str] = field(default_factory=dict)
    rounds: list[dict[str, RoundResult]] = field(default_factory=list)
    capacity: tuple[float, float] | None = None
    first_connections: dict[str, int] = field(default_factory=dict)  # opened by the first call
    all_connections: int = 0  # opened by the contenders over the whole run
    server_exit: str = ""


def _loop_factory(loop: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    if loop == "asyncio":
        return None
    import uvloop

    return uvloop.new_event_loop


def versions() -> dict[str, str]:
    names = ("aiohttp", "aiogram", "orjson", "uvloop", "tgfast")
    return {"Python": platform.python_version(), **{n: _version(n) for n in names}}


async def run_all(report: Report, server: ServerProcess, names: list[str]) -> None:
    stats = ServerStats(server.port)
    clients: dict[str, Client] = {}
    try:
        start = await stats.get()
        for name in names:
            try:
                client = await OPENERS[name](server.url)
            except Missing as exc:
                report.missing[name] = str(exc)
                print(f"skipping {name}: {exc}", file=sys.stderr)
                continue
            clients[name] = client
            before = await stats.get()
            first = await client.call()
            if not client.full_check(first):
                raise _wrong(name, first)
            after = await stats.get()
            report.first_connections[name] = after["connections"] - before["connections"]
        if FLOOR not in clients:
            raise BenchmarkError("the floor could not run: nothing to compare with")
        for r in range(report.settings.rounds):
            results = await run_round(clients, report.settings, stats, r % len(clients))
            report.rounds.append(results)
            for name, res in results.items():
                print(
                    f"round {r + 1}/{report.settings.rounds} {name:8} "
                    f"p50 {res.seq_p50_ns / 1000:7.1f} µs  {res.calls_per_s:8.0f} calls/s  "
                    f"(client CPU {res.client_cpu:.0%}, server CPU {res.server_cpu:.0%})",
                    file=sys.stderr,
                    flush=True,
                )
        report.all_connections = (await stats.get())["connections"] - start["connections"]
        gc.collect()
        report.capacity = await server_capacity(server.port, stats, 1.0)
    finally:
        for client in clients.values():
            await client.close()
        await stats.close()


def profile(name: str, settings: Settings, loop: str, pin: bool, out: str | None) -> int:
    """Run one contender's phases under cProfile; print the top costs to stdout."""

    async def go(server: ServerProcess) -> None:
        client = await OPENERS[name](server.url)
        try:
            await sequential(name, client, settings.seq_warmup)
            await concurrent(name, client, settings.conc_warmup, INFLIGHT)
            prof = cProfile.Profile()
            prof.enable()
            await sequential(name, client, settings.seq_calls)
            await concurrent(name, client, settings.conc_calls, INFLIGHT)
            prof.disable()
        finally:
            await client.close()
        if out:
            prof.dump_stats(out)
        stats = pstats.Stats(prof, stream=sys.stdout).sort_stats("tottime")
        stats.print_stats(30)
        stats.sort_stats("cumulative").print_stats(30)

    with mock_server(pin) as server, asyncio.Runner(loop_factory=_loop_factory(loop)) as runner:
        runner.run(go(server))
    return 0


# --------------------------------------------------------------------------
# rendering
# --------------------------------------------------------------------------


def _ratios(report: Report, name: str, key: str) -> list[float]:
    return [
        getattr(r[name], key) / getattr(r[FLOOR], key)
        for r in report.rounds
        if name in r and FLOOR in r
    ]


def _turn_ratios(report: Report, name: str) -> list[float]:
    """calls/s of ``name`` / the floor's, turn by turn (turns seconds apart, not minutes)."""
    return [
        mine / floor
        for r in report.rounds
        if name in r
        for mine, floor in zip(r[name].turn_calls_per_s, r[FLOOR].turn_calls_per_s, strict=True)
    ]


def _quartiles(values: list[float]) -> str:
    if len(values) < 4:
        return _spread(values)
    q1, _, q3 = statistics.quantiles(values, n=4)
    return f"IQR {fmt_ratio(q1)}–{fmt_ratio(q3)} over {len(values)} turns"


def _median(report: Report, name: str, key: str) -> float:
    return statistics.median(getattr(r[name], key) for r in report.rounds if name in r)


def _bar_ratio(r: float) -> str:
    return f"{r:.3f}×"  # enough digits that the shown figure agrees with PASS/FAIL


def _spread(values: list[float]) -> str:
    return f"{fmt_ratio(min(values))}–{fmt_ratio(max(values))}" if len(values) > 1 else ""


def summary(report: Report) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    ran = [n for n in NAMES if report.rounds and n in report.rounds[0]]
    for name in ran:
        out[name] = {
            key: _median(report, name, key)
            for key in (
                "seq_p50_ns",
                "seq_p90_ns",
                "seq_p99_ns",
                "seq_cpu_ns",
                "calls_per_s",
                "client_cpu",
                "server_cpu",
            )
        }
        out[name]["latency_ratio"] = statistics.median(_ratios(report, name, "seq_p50_ns"))
        out[name]["throughput_ratio"] = statistics.median(_turn_ratios(report, name))
        out[name]["latency_extra_ns"] = statistics.median(
            r[name].seq_p50_ns - r[FLOOR].seq_p50_ns for r in report.rounds if name in r
        )
        out[name]["connections"] = report.first_connections.get(name, 0) + sum(
            r[name].new_connections for r in report.rounds
        )
    return out


def bar_verdict(report: Report) -> dict[str, Any] | None:
    if "tgfast" not in summary(report):
        return None
    s = summary(report)["tgfast"]
    return {
        "latency_ratio": s["latency_ratio"],
        "throughput_ratio": s["throughput_ratio"],
        "sequential_pass": s["latency_ratio"] <= BAR_SEQUENTIAL,
        "throughput_pass": s["throughput_ratio"] >= BAR_THROUGHPUT,
    }


def render(report: Report) -> str:
    s = report.settings
    summ = summary(report)
    v = report.versions
    rows = []
    for name, m in summ.items():
        rows.append(
            [
                LABELS[name],
                f"{fmt_time(m['seq_p50_ns'] / 1e9)} ({fmt_ratio(m['latency_ratio'])}"
                + (f", {m['latency_extra_ns'] / 1e3:+.1f} µs)" if name != FLOOR else ")"),
                fmt_time(m["seq_p90_ns"] / 1e9),
                fmt_time(m["seq_p99_ns"] / 1e9),
                fmt_time(m["seq_cpu_ns"] / 1e9),
                f"{m['calls_per_s']:,.0f} ({fmt_ratio(m['throughput_ratio'])})",
                f"{m['client_cpu']:.0%} / {m['server_cpu']:.0%}",
            ]
        )
    for name in report.missing:
        rows.append([LABELS[name], "missing", "", "", "", "", ""])
    header = [
        "contender",
        "sequential p50",
        "p90",
        "p99",
        "client CPU per call",
        f"calls/s, {INFLIGHT} in flight",
        "CPU use client / server",
    ]
    parts = [
        "## Client round trip: `sendMessage` against a mock Bot API server",
        "",
        f"Event loop: **{report.loop}** for every contender"
        + (" (tgfast's default)" if report.loop == "uvloop" else "")
        + "; the mock server (`benchmarks/micro/mock_api.py`, a raw asyncio Protocol on uvloop, "
        f"canned {len(mock_api.SEND_MESSAGE_BODY)} B answer) runs in another process; "
        f"{report.pinned}. Python {v['Python']}, aiohttp {v['aiohttp']}, aiogram {v['aiogram']}, "
        f"orjson {v['orjson']}, uvloop {v['uvloop']}, tgfast {v['tgfast']}.",
        "",
        (
            f"{report.mode.capitalize()} run, {len(report.rounds)} rounds; per round and "
            f"contender: {s.seq_warmup:,} warm-up + {s.seq_calls:,} sequential calls, then "
            f"{s.conc_warmup:,} warm-up + {s.conc_calls:,} calls with {INFLIGHT} in flight; the "
            f"contenders take turns of {SEQ_BLOCK} and {min(CONC_BLOCK, s.conc_calls):,} calls "
            "(the order rotating every turn), so that the machine's noise hits them alike. "
            "Figures: median over rounds. (×): latency = contender / floor within each round, "
            "median over rounds (and the median extra latency over the floor's); calls/s = "
            "contender / floor within each turn, median over all turns. GC enabled. Every "
            "answer's `message_id` is checked, and the server must count exactly one request "
            "per call."
        ),
        "",
        md_table(header, rows),
    ]
    verdict = bar_verdict(report)
    parts += ["", "### Against the bar of issue #3 (same run, rate limiter off)", ""]
    if verdict is None:
        reason = report.missing.get("tgfast", "tgfast did not run")
        parts.append(f"Not measured: {reason}.")
    else:
        lat = _ratios(report, "tgfast", "seq_p50_ns")
        tput = _turn_ratios(report, "tgfast")
        parts.append(
            md_table(
                ["bar", "result (spread)", "met"],
                [
                    [
                        f"tgfast sequential median ≤ {BAR_SEQUENTIAL}× floor",
                        f"{_bar_ratio(verdict['latency_ratio'])} (rounds {_spread(lat)})",
                        "PASS" if verdict["sequential_pass"] else "FAIL",
                    ],
                    [
                        f"tgfast calls/s with {INFLIGHT} in flight ≥ {BAR_THROUGHPUT}× floor",
                        f"{_bar_ratio(verdict['throughput_ratio'])} ({_quartiles(tput)})",
                        "PASS" if verdict["throughput_pass"] else "FAIL",
                    ],
                ],
            )
        )
    notes = []
    spreads = []
    for name in summ:
        if name == FLOOR:
            continue
        spreads.append(
            f"{name} latency {_spread(_ratios(report, name, 'seq_p50_ns'))}, "
            f"throughput {_spread(_ratios(report, name, 'calls_per_s'))} "
            f"(turn by turn: {_quartiles(_turn_ratios(report, name))})"
        )
    if spreads and len(report.rounds) > 1:
        notes.append("Ratios to the floor, round by round: " + "; ".join(spreads) + ".")
    notes.append(
        "Keep-alive check, TCP connections opened over the whole run: "
        + ", ".join(f"{n} {int(m['connections'])}" for n, m in summ.items())
        + f" (first call + {INFLIGHT}-in-flight phases); {report.all_connections} in all."
    )
    if report.capacity:
        rate, cpu = report.capacity
        best = max(m["calls_per_s"] for m in summ.values())
        busiest = max(r[n].server_cpu for r in report.rounds for n in r)
        notes.append(
            f"Mock server headroom: in the {INFLIGHT}-in-flight phases the server used at most "
            f"{busiest:.0%} of its core; a raw asyncio client (no HTTP library, {INFLIGHT} "
            f"connections) drove it to {rate:,.0f} requests/s (server CPU {cpu:.0%}), "
            f"{rate / best:.1f}× the fastest contender."
        )
    others = [r[n].others_cpu for r in report.rounds for n in r]
    known = [x for x in others if x is not None]
    if known and len(known) == len(others):
        worst = max(known)
        line = (
            f"other processes (and the hypervisor) took {statistics.median(known):.0%} of "
            f"the client's CPU while {INFLIGHT} calls were in flight (median over rounds and "
            f"contenders), {worst:.0%} at worst."
        )
        notes.append(f"**Noisy run:** {line}" if worst > 0.1 else line[0].upper() + line[1:])
    for name, reason in report.missing.items():
        notes.append(f"Missing `{name}`: {reason}")
    parts += ["", *(f"- {n}" for n in notes)]
    return "\n".join(parts)


def to_json(report: Report) -> dict[str, Any]:
    return {
        "mode": report.mode,
        "settings": asdict(report.settings),
        "loop": report.loop,
        "pinned": report.pinned,
        "versions": report.versions,
        "machine": machine_line(),
        "missing": report.missing,
        "rounds": [{n: asdict(r) for n, r in rnd.items()} for rnd in report.rounds],
        "summary": summary(report),
        "bar": bar_verdict(report),
        "server_capacity": report.capacity,
        "server_exit": report.server_exit,
        "connections": {"first_call": report.first_connections, "all": report.all_connections},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="sendMessage round trip against a mock Bot API server: floor, aiogram, tgfast."
    )
    parser.add_argument("--quick", action="store_true", help="short smoke run (< 30 s), noisier")
    parser.add_argument(
        "--json", metavar="PATH", help="also save settings, every round and the summary"
    )
    parser.add_argument("--rounds", type=int, help="override the number of rounds")
    parser.add_argument(
        "--contender", action="append", choices=NAMES, help="run only these (the floor always runs)"
    )
    parser.add_argument("--loop", choices=("uvloop", "asyncio"), default="uvloop")
    parser.add_argument(
        "--no-pin", dest="pin", action="store_false", help="do not pin client and server to CPUs"
    )
    parser.add_argument("--no-machine-line", action="store_true", help="for run.py")
    parser.add_argument("--profile", choices=NAMES, help="cProfile one contender, no table")
    parser.add_argument("--profile-out", metavar="PATH", help="with --profile: save the pstats")
    args = parser.parse_args(argv)

    mode = "quick" if args.quick else "full"
    settings = SETTINGS[mode]
    if args.rounds:
        settings = Settings(**{**asdict(settings), "rounds": args.rounds})
    if args.profile:
        return profile(args.profile, settings, args.loop, args.pin, args.profile_out)
    names = [n for n in NAMES if n == FLOOR or not args.contender or n in args.contender]

    if not args.no_machine_line:
        print(machine_line(), flush=True)
    with mock_server(args.pin) as server:
        pinned = (
            f"client pinned to CPU {server.client_cpu}, server to CPU {server.server_cpu}"
            if server.client_cpu is not None
            else "client and server not pinned"
        )
        report = Report(mode, settings, args.loop, pinned, versions())
        with asyncio.Runner(loop_factory=_loop_factory(args.loop)) as runner:
            runner.run(run_all(report, server, names))
    report.server_exit = server.exit_line
    print(f"mock server: {server.exit_line}", file=sys.stderr)
    print("\n" + render(report), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(to_json(report), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
