"""End-to-end benchmark of issue #6: an echo bot under an open-loop update load.

    python benchmarks/e2e/run.py                 # full sweep (8-20 min on 2 cores)
    python benchmarks/e2e/run.py --quick         # 5 rates, 2 s each (about 3 min)
    python benchmarks/e2e/run.py --rates 500,1000 --duration 3 --contender tgfast
    python benchmarks/e2e/run.py --json out.json --tgfast-path /path/to/tgfast/build

Each contender (``floor``, ``aiogram``, ``tgfast``) runs an echo bot whose
handler sleeps 10 ms and sends the text back, as a separate process pinned
to one core; this process (the load generator and the sink, see
``loadgen.py`` and ``sink.py``) runs on the other.  For every rate, in
webhook mode and (aiogram, tgfast) in polling mode, a fresh bot process is
started, warmed up (1 s at up to 200 updates/s, every warm-up echo awaited),
then fed ``rate × duration`` updates on an absolute schedule.

An update counts as echoed if its echo reached the sink by the *deadline*:
the end of the schedule plus ``--drain`` seconds.  Latency is send (the
scheduled time) → echo, over every sent update, an update not echoed in time
counting as infinitely late.  After the deadline the run goes on (the
*extended drain*, up to ``--drain-max``) while echoes or retries still make
progress, to tell updates lost for good from late ones: ``acked lost``
counts updates acknowledged (200, or confirmed by a getUpdates offset) and
never echoed.  Bot CPU comes from ``/proc/<pid>/stat``: ``bot CPU`` over the
sending phase, ``CPU/update`` over the whole run divided by the updates
echoed.

Output: Markdown on stdout (machine line, one table per mode, the ceilings,
the bar of issue #6 with PASS/FAIL/n/a, notes); progress on stderr.
"""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__

import argparse  # noqa: E402
import asyncio  # noqa: E402
import contextlib  # noqa: E402
import dataclasses  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from importlib import metadata  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import coldstart  # noqa: E402
import report  # noqa: E402
from bots import (  # noqa: E402
    DEFAULT_PAIRS,
    NAMES,
    PAIRS,
    BotProcess,
    Launch,
    command,
    core_busy_seconds,
    environment,
    kill_all,
    tgfast_build,
)
from fleet import (  # noqa: E402
    Balancer,
    SharedRedis,
    Workers,
    consecutive_ports,
    supervisor_available,
)
from loadgen import WebhookPoster, pace  # noqa: E402
from record import Tracker, percentile  # noqa: E402
from report import RunResult  # noqa: E402
from sink import Sink  # noqa: E402
from updates import update_body  # noqa: E402

REPO = HERE.parents[1]
TOKEN = "123456789:AAE2eBenchmarkTokenForTheSink_0000000"
SECRET = "e2e-benchmark-secret_1"
WEBHOOK_PATH = "/webhook"
FULL_RATES = (200, 400, 700, 1000, 1500, 2000, 3000, 4000, 5000, 6000, 7000, 8000)
QUICK_RATES = (200, 700, 1500, 3000, 5000)
# Through nginx (--nginx): 2 workers x 3 contenders, 4-5 minutes here, under 10 on a busy machine.
NGINX_RATES = (400, 1000, 1500, 2000, 3000, 4000, 5000)
NGINX_QUICK_RATES = (400, 1500, 3000)
WARMUP_RATE = 200.0
VERSUS_GO = ("go", "minimal", "minimal-async", "minimal-aiohttp", "floor", "tgfast", "tgfast-fast",
             "aiogram")  # fmt: skip
VERSUS_GO_RATES = (1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000)
OVERLOAD_DRAIN_FACTOR = 6  # the overload run's extended drain: up to this x its duration
HARNESS_CPU: int | None = None  # the core this process is pinned to, if it is


class RunError(Exception):
    """The run could not be measured (the bot did not start, or not warm up)."""


@dataclass
class Settings:
    rates: list[float]
    duration: float
    drain: float  # seconds after the schedule's end that still count as in time
    drain_max: float  # extended drain: at most this long after the schedule's end
    idle: float  # extended drain ends after this long without progress
    warmup: float
    connections: int
    chats: int
    pin: bool
    loop: str
    pairs: list[tuple[str, str]]
    tgfast_path: str
    ref_path: str = ""  # the tgfast-ref contender's tgfast (--ref-path)
    nginx: bool = False  # through a real nginx, over each count of ``workers``
    workers: list[int] = field(default_factory=lambda: [1])
    supervisor: bool = False  # tgfast's N workers: its --workers supervisor, else N processes
    cores: float = 16.0  # the estimate: a machine of this many cores ...
    busy: float = 0.7  # ... each this busy at most ...
    redis_ms: float = 0.03  # ... and Redis costing this much CPU per update
    redis: bool = False  # --nginx: tgfast's workers share a real redis-server (--redis URL)
    tgfast_args: list[str] = field(default_factory=list)
    tries: int = 3  # runs of one (rate, contender, mode) at most, when neighbours disturb it
    noisy: float = 25.0  # % of a core taken by other processes that makes a run disturbed
    give_up_loss: float = 50.0  # % lost at one rate: higher rates of that contender skipped
    give_up_p99: float = math.inf  # ms; a p99 above it at one rate: likewise (--nginx: 1,000)
    burn_ms: float = 0.0  # CPU the tgfast echo handler burns per update (--burn)
    overload: bool = False  # find the clean rate, then run at twice it (--overload)
    overload_duration: float = 10.0  # seconds of the run at twice the clean rate


# --------------------------------------------------------------------------
# one run
# --------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def wait_ready(bot: Bot, mode: str, port: int, sink: Sink, timeout: float) -> None:
    """Webhook: the port accepts connections.  Polling: the bot called getUpdates."""
    end = time.perf_counter() + timeout
    polls = sink.methods["getupdates"]
    while time.perf_counter() < end:
        if not bot.alive():
            raise RunError(f"bot exited with status {bot.proc.returncode}: {bot.log_tail(8)}")
        if mode == "polling":
            if sink.methods["getupdates"] > polls:
                return
        else:
            with contextlib.suppress(OSError):
                _, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.close()
                return
        await asyncio.sleep(0.05)
    raise RunError(f"bot not ready after {timeout:g} s: {bot.log_tail(8)}")


Bot = BotProcess | Workers


async def wait_until(cond: Callable[[], bool], deadline: float, bot: Bot) -> None:
    # polled: the condition is a count the sink and the bot's exit move, no event to wait on
    while not cond() and time.perf_counter() < deadline and bot.alive():  # noqa: ASYNC110
        await asyncio.sleep(0.01)


class Feed:
    """Sends a tracker's updates to the bot: webhook POSTs or the sink's getUpdates queue."""

    def __init__(self, mode: str, sink: Sink, port: int, connections: int) -> None:
        self.mode, self.sink = mode, sink
        self.poster: WebhookPoster | None = None
        if mode == "webhook":
            self.poster = WebhookPoster(Tracker(0, 1), port, WEBHOOK_PATH, SECRET, connections)

    def emitter(self, tracker: Tracker) -> Callable[[int], None]:
        self.sink.trackers.append(tracker)
        if self.poster is not None:
            self.poster.tracker = tracker  # the previous block is fully acknowledged
            return self.poster.submit
        push = self.sink.push
        return lambda i: push(tracker, i, update_body(tracker, i))

    def progress(self) -> tuple[int, ...]:
        """Changes while anything is still moving (retries, acks, echoes)."""
        if self.poster is None:
            return (self.sink.methods["getupdates"],)
        t = self.poster.tracker
        return (t.requests, sum(t.statuses.values()))

    def close(self) -> None:
        if self.poster is not None:
            self.poster.close()
        self.sink.trackers.clear()
        self.sink.reset_queue()


async def warm_up(feed: Feed, bot: Bot, settings: Settings, rate: float) -> None:
    warm_rate = min(WARMUP_RATE, rate)
    tracker = Tracker(max(1, int(warm_rate * settings.warmup)), settings.chats)
    await pace(warm_rate, tracker, feed.emitter(tracker))
    await wait_until(tracker.all_echoed, time.perf_counter() + 15, bot)
    if not tracker.all_echoed():
        got = tracker.unique
        last = feed.poster.last_error if feed.poster else ""
        raise RunError(
            f"warm-up: {got}/{tracker.n} echoed; answers {dict(tracker.statuses)} {last}; "
            f"bot: {bot.log_tail(5)}"
        )
    feed.sink.trackers.remove(tracker)


async def measure(
    sink: Sink, name: str, mode: str, rate: float, settings: Settings, bot_cpu: int | None,
    workers: int = 1, redis: SharedRedis | None = None,
) -> RunResult:  # fmt: skip
    result = RunResult(name, mode, rate, settings.duration)
    if name != "tgfast":
        redis = None  # only tgfast's workers are given the shared Redis
    ports = consecutive_ports(workers) if settings.nginx else [free_port()]
    port = ports[0] if mode == "webhook" else 0
    launch = Launch(
        port=port, api_url=sink.url, token=TOKEN, secret=SECRET, path=WEBHOOK_PATH,
        loop=settings.loop, tgfast_path=settings.tgfast_path,
        tgfast_args=tuple(settings.tgfast_args), ref_path=settings.ref_path,
        burn_ms=settings.burn_ms,
    )  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="tgfast-e2e-") as tmp:
        bot: Bot
        balancer: Balancer | None = None
        if settings.nginx:
            bot = Workers(name, launch, ports, Path(tmp), settings.supervisor)
            balancer = Balancer(ports)
            result.balancer, result.workers = "nginx", workers
            result.deployment = bot.describe()
        else:
            bot = BotProcess(
                command(name, mode, launch), environment(name, launch), Path(tmp),
                Path(tmp) / "bot.log", bot_cpu,
            )  # fmt: skip
        feed = Feed(mode, sink, balancer.port if balancer else port, settings.connections)
        try:
            for p in ports if mode == "webhook" else [0]:
                await wait_ready(bot, mode, p, sink, timeout=60)
            if balancer is not None:
                await balancer.start()
            await warm_up(feed, bot, settings, rate)
            await asyncio.sleep(0.2)
            await _measured_run(feed, bot, settings, rate, bot_cpu, result, balancer, redis)
        except (RunError, RuntimeError) as exc:
            result.error = " ".join(str(exc).split())
        finally:
            feed.close()
            if balancer is not None:
                if result.error:
                    result.error += f" nginx: {balancer.error_log()}"
                balancer.close()
            status = await bot.stop()
            if not result.error and status not in (0, -15):
                result.last_error = f"bot exit status {status}: {bot.log_tail(3)}"
    return result


async def _measured_run(
    feed: Feed, bot: Bot, settings: Settings, rate: float, bot_cpu: int | None,
    result: RunResult, balancer: Balancer | None, redis: SharedRedis | None = None,
) -> None:  # fmt: skip
    clock = time.perf_counter
    tracker = Tracker(max(1, round(rate * settings.duration)), settings.chats)
    stray0, bad0, conns0 = feed.sink.stray_echoes, feed.sink.bad_requests, feed.sink.connections
    emit = feed.emitter(tracker)
    hcore0 = core_busy_seconds(HARNESS_CPU)
    cpu0, core0, harness0 = bot.cpu_seconds(), core_busy_seconds(bot_cpu), time.process_time()
    lb0, all0 = (balancer.cpu_seconds() if balancer else 0.0), core_busy_seconds(-1)
    kv0 = redis.cpu_seconds() if redis else 0.0
    wall0 = clock()
    sampler = asyncio.get_running_loop().create_task(
        _sample_cpu(bot, bot_cpu, wall0, settings.duration)
    )
    t0 = await pace(rate, tracker, emit)
    send_end = clock()
    samples = await sampler
    cpu1, harness1 = bot.cpu_seconds(), time.process_time()
    lb1 = balancer.cpu_seconds() if balancer else 0.0
    hcore1 = core_busy_seconds(HARNESS_CPU)
    schedule_end = t0 + (tracker.n - 1) / rate
    deadline = schedule_end + settings.drain
    await wait_until(tracker.all_echoed, deadline, bot)
    in_time = tracker.echoed_by(deadline)
    # Extended drain: while something still moves, find out what is late and what is lost.
    hard_end = schedule_end + max(settings.drain, settings.drain_max)
    last: tuple[int, ...] = ()
    moved = clock()
    while not tracker.all_echoed() and clock() < hard_end and bot.alive():
        state = (tracker.echoes, *feed.progress())
        if state != last:
            last, moved = state, clock()
        idle = settings.idle + (feed.poster.max_retry_after if feed.poster else 0.0)
        if clock() - moved > idle:
            break
        await asyncio.sleep(0.05)
    end = clock()
    cpu2, core2 = bot.cpu_seconds(), core_busy_seconds(bot_cpu)
    lb2, all2 = (balancer.cpu_seconds() if balancer else 0.0), core_busy_seconds(-1)
    harness2 = time.process_time()
    kv2 = redis.cpu_seconds() if redis else 0.0
    if isinstance(bot, Workers):
        split = bot.per_worker_cpu()
        result.worker_share = [100 * c / max(1e-9, sum(split)) for c in split]
    if not bot.alive():
        result.error = f"bot exited during the run (status {bot.proc.returncode})"

    echoed_total = tracker.unique
    lat = [x * 1000 for x in tracker.latencies(deadline)]
    lags = sorted(tracker.lags)
    refused = tracker.statuses[503] + tracker.statuses[429]
    other = sum(v for k, v in tracker.statuses.items() if k not in (200, 503, 429))
    result.sent = tracker.sent()
    result.echoed = in_time
    seconds = round(tracker.n / rate)  # whole seconds of the schedule
    result.echo_rates = _per_second(tracker.echoed, t0, seconds)
    result.timeline = _timeline(tracker, t0, seconds, samples)
    result.p50_ms = percentile(lat, 0.50)
    result.p99_ms = percentile(lat, 0.99)
    result.max_ms = lat[-1] if lat else math.nan
    result.cpu_pct = 100 * (cpu1 - cpu0) / max(1e-9, send_end - wall0)
    result.cpu_per_update_ms = 1000 * (cpu2 - cpu0) / echoed_total if echoed_total else math.nan
    result.refused = refused
    result.retries = tracker.retries
    result.errors = other + tracker.connection_errors
    result.acked_lost = tracker.acked_not_echoed()
    result.refused_undelivered = tracker.refused_not_echoed()
    result.late = echoed_total - in_time
    result.duplicates = tracker.duplicates
    result.wrong_chat = tracker.wrong_chat
    result.connections = tracker.connections
    result.lag_p99_ms = 1000 * percentile(lags, 0.99)
    result.harness_cpu_pct = 100 * (harness1 - harness0) / max(1e-9, send_end - wall0)
    if hcore0 is not None and hcore1 is not None:
        result.harness_others_pct = max(
            0.0, 100 * ((hcore1 - hcore0) - (harness1 - harness0)) / max(1e-9, send_end - wall0)
        )
    if core0 is not None and core2 is not None:
        result.others_pct = max(0.0, 100 * ((core2 - core0) - (cpu2 - cpu0)) / (end - wall0))
    if redis is not None and echoed_total:
        result.redis_cpu_per_update_ms = 1000 * (kv2 - kv0) / echoed_total
    if balancer is not None:
        result.nginx_cpu_pct = 100 * (lb1 - lb0) / max(1e-9, send_end - wall0)
        result.nginx_cpu_per_update_ms = (
            1000 * (lb2 - lb0) / echoed_total if echoed_total else math.nan
        )
        if bot_cpu is None and all0 is not None and all2 is not None:
            # nothing pinned: what other processes took of the whole machine, in % of a core
            ours = (cpu2 - cpu0) + (lb2 - lb0) + (harness2 - harness0) + (kv2 - kv0)
            result.others_pct = max(0.0, 100 * ((all2 - all0) - ours) / (end - wall0))
    result.stray = feed.sink.stray_echoes - stray0
    result.bad_requests = feed.sink.bad_requests - bad0
    result.api_connections = feed.sink.connections - conns0
    if feed.poster is not None and (other or tracker.connection_errors):
        result.last_error = feed.poster.last_error


def _per_second(times: list[float], t0: float, seconds: int) -> list[int]:
    """How many of ``times`` (0.0: none) fall in each whole second from ``t0``."""
    counts = [0] * seconds
    for t in times:
        k = int(t - t0) if t else -1
        if 0 <= k < seconds:
            counts[k] += 1
    return counts


async def _sample_cpu(
    bot: Bot, bot_cpu: int | None, t0: float, duration: float
) -> list[tuple[float, float, float | None]]:
    """(time, the bot's CPU seconds, its core's busy seconds) at ``t0`` and each whole
    second after it through the send phase: what the bot and its neighbours took, second
    by second."""
    clock = time.perf_counter
    samples = [(clock(), bot.cpu_seconds(), core_busy_seconds(bot_cpu))]
    for k in range(1, math.ceil(duration) + 1):
        await asyncio.sleep(max(0.0, t0 + k - clock()))
        samples.append((clock(), bot.cpu_seconds(), core_busy_seconds(bot_cpu)))
    return samples


def _timeline(
    tracker: Tracker, t0: float, seconds: int, samples: list[tuple[float, float, float | None]]
) -> list[dict[str, float | None]]:
    """Per whole second of the schedule: new updates due, re-sends, refusals, updates
    handled (echoed), the bot's CPU and what other processes took of its core (% of it)."""
    due = _per_second(tracker.due, t0, seconds)
    retries = _per_second(tracker.retry_times, t0, seconds)
    refused = _per_second(tracker.refusal_times, t0, seconds)
    handled = _per_second(tracker.echoed, t0, seconds)
    rows: list[dict[str, float | None]] = []
    for k in range(seconds):
        row: dict[str, float | None] = {
            "second": k, "new": due[k], "retries": retries[k], "refused": refused[k],
            "handled": handled[k], "bot_cpu_pct": None, "others_pct": None,
        }  # fmt: skip
        if k + 1 < len(samples):
            (ta, cpu_a, core_a), (tb, cpu_b, core_b) = samples[k], samples[k + 1]
            span = max(1e-9, tb - ta)
            row["bot_cpu_pct"] = 100 * (cpu_b - cpu_a) / span
            if core_a is not None and core_b is not None:
                row["others_pct"] = max(0.0, 100 * ((core_b - core_a) - (cpu_b - cpu_a)) / span)
        rows.append(row)
    return rows


# --------------------------------------------------------------------------
# the sweep
# --------------------------------------------------------------------------


def pin_cores(pin: bool) -> tuple[int | None, int | None]:
    """(harness CPU, bot CPU); pins this process to the first."""
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if not pin or len(cpus) < 2:
        return None, None
    global HARNESS_CPU
    os.sched_setaffinity(0, {cpus[0]})
    HARNESS_CPU = cpus[0]
    return cpus[0], cpus[1]


def disturbance(r: RunResult) -> float:
    """How much of the two cores other processes took during the run, in % (worst core)."""
    return max(r.others_pct or 0.0, r.harness_others_pct or 0.0)


def _progress(r: RunResult, took: float) -> str:
    mode = f"nginx×{r.workers}" if r.balancer else r.mode
    head = f"[e2e] {r.rate:>6g}/s {r.contender:>7} {mode:<7} try {r.tries} "
    if r.error:
        return head + f"ERROR {r.error[:200]} ({took:.1f} s)"
    line = head + (
        f"sent {r.sent} echoed {r.echoed} p99 {report.fmt_ms(r.p99_ms)} "
        f"cpu/upd {r.cpu_per_update_ms:.3f} ms refused {r.refused} acked-lost {r.acked_lost} "
        f"others {disturbance(r):.0f} % ({took:.1f} s)"
    )
    if r.refused and r.timeline:  # an overloaded try, kept or not: its seconds
        line += "\n        handled/s (others on the bot's core): " + " ".join(
            f"{s['handled']:g} ({s['others_pct'] or 0:.0f} %)" for s in r.timeline
        )
    return line


async def measure_quietly(
    sink: Sink, name: str, mode: str, rate: float, settings: Settings, bot_cpu: int | None,
    workers: int = 1, redis: SharedRedis | None = None,
) -> RunResult:  # fmt: skip
    """Measure; repeat a run that neighbours disturbed, keep the least disturbed one."""
    best: RunResult | None = None
    for attempt in range(1, settings.tries + 1):
        t = time.perf_counter()
        r = await measure(sink, name, mode, rate, settings, bot_cpu, workers, redis)
        r.tries = attempt
        print(_progress(r, time.perf_counter() - t), file=sys.stderr, flush=True)
        if best is None or (not r.error and (best.error or disturbance(r) < disturbance(best))):
            best = r
        if r.error or disturbance(r) <= settings.noisy:
            break
    assert best is not None
    return best


def variants(settings: Settings) -> list[tuple[str, str, int]]:
    """(contender, mode, workers) of every run at one rate."""
    counts = settings.workers if settings.nginx else [1]
    return [(name, mode, w) for w in counts for name, mode in settings.pairs]


async def sweep(settings: Settings, bot_cpu: int | None) -> list[RunResult]:
    sink = Sink()
    await sink.start()
    redis: SharedRedis | None = None
    if settings.redis:
        redis = SharedRedis()
        await redis.start()
        settings.tgfast_args = [*settings.tgfast_args, "--redis", redis.url]
    results: list[RunResult] = []
    given_up: set[tuple[str, str, int]] = set()
    runs = variants(settings)
    try:
        for k, rate in enumerate(settings.rates):
            shift = k % len(runs)
            # The order rotates from rate to rate: noise hits every contender alike.
            for name, mode, workers in runs[shift:] + runs[:shift]:
                if (name, mode, workers) in given_up:
                    continue
                r = await measure_quietly(sink, name, mode, rate, settings, bot_cpu, workers, redis)
                results.append(r)
                if not r.error and (
                    r.loss * 100 > settings.give_up_loss or r.p99_ms > settings.give_up_p99
                ):
                    given_up.add((name, mode, workers))
    finally:
        await sink.close()
        if redis is not None:
            redis.close()
    return results


async def overload(settings: Settings, bot_cpu: int | None) -> tuple[list[RunResult], RunResult]:
    """Issue #26's overload run, for one contender: its rates in order up to the first one
    not held (0 % loss, p99 < 50 ms), then ``overload_duration`` seconds at twice the
    highest one held. Meant with ``--burn``, so that the bot saturates within reach."""
    ((name, mode),) = settings.pairs
    sink = Sink()
    await sink.start()
    results: list[RunResult] = []
    try:
        for rate in settings.rates:
            r = await measure_quietly(sink, name, mode, rate, settings, bot_cpu)
            results.append(r)
            if not r.holds(report.TGFAST_P99_MS):
                break
        held = [r for r in results if r.holds(report.TGFAST_P99_MS)]
        if not held:
            raise SystemExit(f"{name} held none of the rates {settings.rates}: sweep lower")
        # Twice the clean rate for D seconds leaves about D seconds of the bot's work waiting
        # (at Telegram: here, in the generator) when the schedule ends, more when
        # neighbours slow the bot: the extended drain gets room for it, so that an update
        # still queued or in flight when the drain is cut is not counted lost or undelivered.
        longer = dataclasses.replace(
            settings, duration=settings.overload_duration,
            drain_max=max(settings.drain_max, OVERLOAD_DRAIN_FACTOR * settings.overload_duration),
        )  # fmt: skip
        over = await measure_quietly(sink, name, mode, 2 * held[-1].rate, longer, bot_cpu)
    finally:
        await sink.close()
    return results, over


# --------------------------------------------------------------------------
# output
# --------------------------------------------------------------------------


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "absent"


def _cpu_model() -> str:
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def describe_tgfast(build: dict[str, object]) -> str:
    if "error" in build:
        return f"tgfast not importable ({build['error']})"
    parts = []
    for key, what in (("decoder_compiled", "decoder"), ("routing_compiled", "routing")):
        v = build.get(key)
        parts.append(f"{what} {'compiled' if v else 'pure' if v is False else '?'}")
    if not build.get("cli"):
        parts.append("NO tgfast.cli")
    return f"tgfast {build.get('version')} ({', '.join(parts)})"


def machine_line(build: dict[str, object]) -> str:
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    deps = ", ".join(f"{d} {_version(d)}" for d in ("aiogram", "aiohttp", "uvloop", "orjson"))
    return (
        f"machine: {_cpu_model()}, {os.cpu_count()} cores | "
        f"{platform.python_implementation()} {platform.python_version()} | "
        f"{platform.platform()} | {describe_tgfast(build)}, {deps} | {now}"
    )


def render(
    results: list[RunResult], settings: Settings, cpus: tuple[int | None, int | None],
    build: dict[str, object],
) -> str:  # fmt: skip
    harness_cpu, bot_cpu = cpus
    pinning = (
        f"the bot pinned to CPU {bot_cpu}, the generator and the sink (one process) to "
        f"CPU {harness_cpu}"
        if bot_cpu is not None
        else "nothing pinned"
    )
    parts = [
        "### End-to-end: echo bot under an open-loop update load (issue #6)",
        "",
        (
            f"Settings: rates {', '.join(f'{r:g}' for r in settings.rates)} updates/s, "
            f"{settings.duration:g} s each; echoes count until {settings.drain:g} s after the last "
            f"send (extended drain up to {settings.drain_max:g} s to tell late from lost); "
            f"{settings.connections} webhook connections at most, {settings.chats:,} chats; "
            f"{pinning}; a fresh bot process per run, warmed up first; floor and aiogram on "
            f"{settings.loop}, tgfast on its CLI's default loop. The handler sleeps 10 ms, then "
            "sends the text back. Latency: scheduled send → echo at the sink, over every update "
            "sent (∞ = not echoed in time). `bot CPU`: % of one core while sending; "
            "`CPU/update`: bot CPU over the run / updates echoed. `refused`: 503/429 answers "
            "(retried like Telegram). `acked lost`: acknowledged, never echoed."
        ),
    ]
    build_note = describe_tgfast(build)
    if "file" in build:
        build_note += f", imported from `{Path(str(build['file'])).parent}`"
    parts += ["", f"tgfast under test: {build_note}."]
    for mode, title in (
        ("webhook", "Webhook"),
        ("polling", "Long polling (getUpdates)"),
    ):
        if any(r.mode == mode for r in results):
            parts += ["", f"#### {title}", "", report.results_table(results, mode)]
    parts += [
        "",
        "#### Ceilings: the highest rate held, every lower rate held too",
        "",
        report.ceilings_table(results),
        "",
        "#### Against the bar of issue #6 (webhook, one worker, same sweep)",
        "",
        report.bars_table(results),
    ]
    parts += ["", *(f"- {n}" for n in notes(results, settings))]
    return "\n".join(parts)


def render_scale(results: list[RunResult], settings: Settings, build: dict[str, object]) -> str:
    """Scale-out mode: one table over contenders x workers, ceilings, CPU and the estimate."""
    deployments = sorted({f"{r.contender} ×{r.workers}: {r.deployment}" for r in results
                          if r.deployment and r.workers > 1})  # fmt: skip
    counts = " and ".join(map(str, settings.workers))
    parts = [
        f"### Scale-out: the echo bot through nginx, {counts} workers (issue #7)",
        "",
        (
            f"Settings: rates {', '.join(f'{r:g}' for r in settings.rates)} updates/s, "
            f"{settings.duration:g} s each; echoes count until {settings.drain:g} s after the "
            f"last send (extended drain up to {settings.drain_max:g} s); the generator posts to "
            "a real nginx (one worker process, round robin, `proxy_next_upstream` on "
            "error/timeout/502/503/504 including POSTs, upstream keepalive: "
            "`tests/support/nginx_server.py`) in front of N workers on N ports, "
            f"{settings.connections} connections at most, {settings.chats:,} chats; nothing "
            "pinned: workers, nginx and the harness (generator + sink, one process) share the "
            f"machine's {os.cpu_count()} cores; a fresh nginx and fresh workers per run, warmed "
            f"up first; floor and aiogram on {settings.loop}. `bot CPU`: all workers (and "
            "tgfast's supervisor) while sending, % of one core; `CPU/update`: their CPU over the "
            "run / updates echoed; `nginx CPU`, `nginx/update`: nginx's, apart. Other columns as "
            "in the one-worker table."
            + (
                " tgfast's workers share a real redis-server (`--redis URL`: FSM storage, "
                "seen update ids), its CPU counted apart (Redis column below)."
                if settings.redis
                else " No Redis: every worker keeps its own state (the echo bot needs none)."
            )
        ),
        "",
        f"tgfast under test: {describe_tgfast(build)}"
        + (f", imported from `{Path(str(build['file'])).parent}`" if "file" in build else "")
        + "; N workers: "
        + (
            "`tgfast webhook --workers N --port-per-worker` (the supervisor)"
            if settings.supervisor
            else "N independent `tgfast webhook` processes (no supervisor used)"
        )
        + ".",
        "",
        report.scale_table(results),
        "",
        "#### Ceilings: the highest rate held through nginx, every lower rate held too",
        "",
        report.scale_ceilings_table(results),
        "",
        "#### CPU per update at the highest rate held, and what it implies (an estimate)",
        "",
        report.cost_table(results, settings.cores, settings.busy, settings.redis_ms),
        "",
        (
            f"The estimate is arithmetic, not a measurement: {settings.cores:g} cores × "
            f"{settings.busy:.0%} busy / (workers' + nginx's CPU per update measured here + "
            f"Redis's: measured with `--redis`, else {settings.redis_ms:g} ms assumed), i.e. "
            "workers, nginx and Redis alone on the machine and scaling linearly with cores."
        ),
        "",
    ]
    extra = []
    if deployments:
        extra.append("How the workers ran: " + "; ".join(deployments) + ".")
    split = [r for r in results if len(r.worker_share) > 1 and not r.error]
    if split:
        worst = max(split, key=lambda r: max(r.worker_share) - min(r.worker_share))
        extra.append(
            "Round robin: the most uneven CPU split between workers was "
            + " / ".join(f"{x:.0f} %" for x in worst.worker_share)
            + f" ({_label(worst)} at {worst.rate:g}/s)."
        )
    parts += [f"- {n}" for n in extra + notes(results, settings)]
    return "\n".join(parts)


def _label(r: RunResult) -> str:
    if r.balancer:
        return f"{r.contender} ×{r.workers}"
    return f"{r.contender} {r.mode}"


def notes(results: list[RunResult], settings: Settings) -> list[str]:
    ok = [r for r in results if not r.error]
    out: list[str] = []
    for name, mode, workers in variants(settings):
        ran = sorted((r for r in results if (r.contender, r.mode, r.workers) ==
                      (name, mode, workers)), key=lambda r: r.rate)  # fmt: skip
        skipped = [rate for rate in settings.rates if rate > (ran[-1].rate if ran else 0)]
        if ran and skipped:
            last = ran[-1]
            why = (
                f"losing {100 * last.loss:.0f} % at {last.rate:g}/s "
                f"(`--give-up-loss {settings.give_up_loss:g}`)"
                if last.loss * 100 > settings.give_up_loss
                else f"a p99 of {report.fmt_ms(last.p99_ms)} at {last.rate:g}/s "
                f"(`--give-up-p99 {settings.give_up_p99:g}`)"
            )
            out.append(
                f"{_label(last)}: not run at {', '.join(f'{x:g}' for x in skipped)}/s after {why}."
            )
    repeated = [r for r in results if r.tries > 1]
    if repeated:
        out.append(
            f"Runs repeated because other processes took more than {settings.noisy:g} % of a "
            f"core (the least disturbed of up to {settings.tries} kept): "
            + ", ".join(
                f"{_label(r)} {r.rate:g}/s ×{r.tries} (kept: {disturbance(r):.0f} %)"
                for r in repeated
            )
            + "."
        )
    if ok:
        worst_lag = max(ok, key=lambda r: r.lag_p99_ms)
        worst_h = max(ok, key=lambda r: r.harness_cpu_pct)
        out.append(
            f"Harness: p99 lateness of a scheduled send at most {worst_lag.lag_p99_ms:.2f} ms "
            f"({_label(worst_lag)} at {worst_lag.rate:g}/s); at most "
            f"{worst_h.harness_cpu_pct:.0f} % of a core busy with generator + sink "
            f"({_label(worst_h)} at {worst_h.rate:g}/s)."
        )
        h_others = [r.harness_others_pct for r in ok if r.harness_others_pct is not None]
        if h_others:
            out.append(
                f"Other processes took {statistics.median(h_others):.0f} % of the harness's core "
                f"while it was sending (median over runs), {max(h_others):.0f} % at worst."
            )
        others = [r.others_pct for r in ok if r.others_pct is not None]
        if others and settings.nginx:
            out.append(
                f"Other processes took {statistics.median(others):.0f} % of a core of the "
                f"machine (both cores together, median over runs), {max(others):.0f} % at "
                "worst."
            )
        elif others:
            out.append(
                f"Other processes took {statistics.median(others):.0f} % of the bot's core "
                f"(median over runs), {max(others):.0f} % at worst: a busy machine inflates "
                "latencies, not the CPU per update."
            )
        late = [r for r in ok if r.late]
        if late:
            out.append(
                "Echoed after the deadline (counted as lost above): "
                + ", ".join(f"{_label(r)} {r.rate:g}/s {r.late:,}" for r in late)
                + "."
            )
    odd = []
    for r in ok:
        counts = (
            ("duplicates", r.duplicates), ("wrong chat", r.wrong_chat), ("errors", r.errors),
            ("stray echoes", r.stray), ("bad requests", r.bad_requests),
        )  # fmt: skip
        items = [f"{v:,} {k}" for k, v in counts if v]
        if r.last_error:
            items.append(r.last_error[:200])
        if items:
            odd.append(f"{_label(r)} {r.rate:g}/s: {', '.join(items)}")
    out.append(
        "Anomalies: "
        + ("; ".join(odd) if odd else "none (no duplicate, misrouted, stray or failed request, "
                                      "every bot exited cleanly).")
    )  # fmt: skip
    failed = [r for r in results if r.error]
    if failed:
        out.append(
            "Runs that could not be measured: "
            + "; ".join(f"{_label(r)} {r.rate:g}/s: {r.error[:300]}" for r in failed)
        )
    return out


# --------------------------------------------------------------------------
# command line
# --------------------------------------------------------------------------


def _pairs(contenders: list[str] | None, modes: list[str] | None) -> list[tuple[str, str]]:
    return [
        (n, m)
        for n, m in (PAIRS if contenders else DEFAULT_PAIRS)
        if (not contenders or n in contenders) and (not modes or m in modes)
    ]


def parse_args(argv: list[str] | None) -> tuple[argparse.Namespace, Settings]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="5 rates, 2 s each, shorter drains")
    p.add_argument("--rates", help="comma-separated updates/s (default: a sweep 200–8000)")
    p.add_argument("--duration", type=float, help="seconds of load per rate (5; quick 2)")
    p.add_argument("--drain", type=float, help="in-time window after the last send (5; quick 3)")
    p.add_argument("--drain-max", type=float, help="extended drain limit (20; quick 10)")
    p.add_argument("--idle", type=float, default=2.0, help="extended drain: stop when idle")
    p.add_argument("--warmup", type=float, help="warm-up seconds (1; quick 0.5)")
    p.add_argument("--connections", type=int, default=100, help="webhook connections at most")
    p.add_argument("--chats", type=int, default=1000)
    p.add_argument("--contender", action="append", choices=NAMES,
                   help="repeatable (default: floor, aiogram, tgfast)")  # fmt: skip
    p.add_argument("--versus-go", action="store_true",
                   help="issue #26's run: every webhook contender against the Go bot at "
                   f"{', '.join(map(str, VERSUS_GO_RATES))}/s, plus the cold start table")  # fmt: skip
    p.add_argument("--mode", action="append", choices=("webhook", "polling"))
    p.add_argument("--loop", choices=("uvloop", "asyncio"), default="uvloop",
                   help="event loop of the floor and aiogram bots")  # fmt: skip
    p.add_argument("--no-pin", action="store_true", help="let the scheduler place processes")
    p.add_argument(
        "--tgfast-path",
        default=str(REPO),
        help="put this first on the tgfast bot's PYTHONPATH ('' = the installed tgfast; "
        "default: this source tree)",
    )
    p.add_argument("--ref-path", default="",
                   help="the tgfast-ref contender's tgfast: another source tree built in place "
                   "(e.g. an older commit, `git archive` + `setup.py build_ext --inplace`)")  # fmt: skip
    p.add_argument("--tgfast-arg", action="append", default=[],
                   help="extra option for the tgfast command (repeatable)")  # fmt: skip
    p.add_argument(
        "--tries",
        type=int,
        help="repeat a run disturbed by other processes, up to this many runs (3; --nginx: 1, "
        "nothing is pinned there and the whole machine is judged)",
    )
    p.add_argument(
        "--noisy",
        type=float,
        default=25.0,
        help="%% of either core taken by other processes that makes a run disturbed",
    )
    p.add_argument("--give-up-loss", type=float, default=50.0,
                   help="after losing more than this %% at one rate, skip the contender's "
                   "higher rates")  # fmt: skip
    p.add_argument("--give-up-p99", type=float,
                   help="after a p99 above this (ms) at one rate, skip the contender's higher "
                   "rates (default: never; --nginx: 1000, the ceiling is found by then)")  # fmt: skip
    p.add_argument("--nginx", action="store_true",
                   help="scale-out mode (issue #7): webhook through a real nginx, over "
                   "--workers workers; nothing pinned")  # fmt: skip
    p.add_argument(
        "--workers",
        default="1,2",
        help="--nginx: comma-separated worker counts (default: 1,2)",
    )
    p.add_argument(
        "--tgfast-workers",
        choices=("auto", "supervisor", "processes"),
        default="auto",
        help="--nginx: tgfast's N workers as its --workers supervisor, as N "
        "processes, or the supervisor when the CLI has --port-per-worker (auto)",
    )
    p.add_argument("--redis", action="store_true",
                   help="--nginx: tgfast's workers share a real redis-server (--redis URL: FSM "
                   "storage, seen update ids), its CPU per update measured")  # fmt: skip
    p.add_argument(
        "--estimate-cores",
        type=float,
        default=16.0,
        help="--nginx: the machine the estimate is for (cores)",
    )
    p.add_argument(
        "--estimate-busy",
        type=float,
        default=0.7,
        help="--nginx: the estimate keeps every core at most this busy (0-1)",
    )
    p.add_argument(
        "--redis-cpu-ms",
        type=float,
        default=0.03,
        help="--nginx: Redis CPU per update assumed in the estimate (ms)",
    )
    p.add_argument("--burn", type=float, default=0.0, metavar="MS",
                   help="the tgfast echo handler first burns MS of CPU per update (a heavier "
                   "bot, to reach overload)")  # fmt: skip
    p.add_argument("--overload", action="store_true",
                   help="issue #26's overload run, one contender (default tgfast-fast): "
                   "--rates in order up to the first not held, then --overload-duration "
                   "seconds at twice the highest held; with --burn")  # fmt: skip
    p.add_argument("--overload-duration", type=float, default=10.0, metavar="S")
    p.add_argument("--json", metavar="PATH", help="also write settings and results as JSON")
    p.add_argument("--no-machine-line", action="store_true")
    args = p.parse_args(argv)
    quick = args.quick
    if args.overload:
        args.contender = args.contender or ["tgfast-fast"]
        if args.mode and args.mode != ["webhook"]:
            p.error("--overload measures webhook mode only (a poller refuses nothing)")
        args.mode = ["webhook"]
        if len(args.contender) != 1:
            p.error("--overload measures one contender")
        if not args.rates:
            p.error("--overload needs --rates: where to look for the clean rate")
    if args.versus_go:
        args.contender = args.contender or list(VERSUS_GO)
        args.mode = args.mode or ["webhook"]
        args.rates = args.rates or ",".join(map(str, VERSUS_GO_RATES))
    grid = ((NGINX_QUICK_RATES if quick else NGINX_RATES) if args.nginx
            else (QUICK_RATES if quick else FULL_RATES))  # fmt: skip
    rates = [float(x) for x in args.rates.split(",")] if args.rates else [float(x) for x in grid]
    modes = args.mode
    if args.nginx:
        if modes and modes != ["webhook"]:
            p.error("--nginx measures webhook mode only")
        modes = ["webhook"]
    settings = Settings(
        rates=rates,
        duration=args.duration or (2.0 if quick else 5.0),
        drain=args.drain if args.drain is not None else (3.0 if quick else 5.0),
        drain_max=args.drain_max if args.drain_max is not None else (10.0 if quick else 20.0),
        idle=args.idle,
        warmup=args.warmup if args.warmup is not None else (0.5 if quick else 1.0),
        connections=args.connections,
        chats=args.chats,
        pin=not args.no_pin and not args.nginx,
        loop=args.loop,
        pairs=_pairs(args.contender, modes),
        tgfast_path=args.tgfast_path,
        ref_path=args.ref_path,
        tgfast_args=args.tgfast_arg,
        tries=max(1, args.tries if args.tries is not None else (1 if args.nginx else 3)),
        noisy=args.noisy,
        give_up_loss=args.give_up_loss,
        give_up_p99=(
            args.give_up_p99
            if args.give_up_p99 is not None
            else (1000.0 if args.nginx else math.inf)
        ),
        nginx=args.nginx,
        workers=[int(x) for x in args.workers.split(",")],
        supervisor=args.tgfast_workers == "supervisor",
        cores=args.estimate_cores,
        busy=args.estimate_busy,
        redis_ms=args.redis_cpu_ms,
        redis=args.redis,
        burn_ms=args.burn,
        overload=args.overload,
        overload_duration=args.overload_duration,
    )
    if args.redis and not args.nginx:
        p.error("--redis goes with --nginx")
    if args.nginx and args.tgfast_workers == "auto" and any(n == "tgfast" for n, _ in
                                                           settings.pairs):  # fmt: skip
        settings.supervisor = supervisor_available(
            Launch(0, "", TOKEN, SECRET, WEBHOOK_PATH, settings.loop, settings.tgfast_path)
        )
    if not settings.pairs:
        p.error("no contender runs in the modes asked for")
    return args, settings


def _loop_runner() -> Callable[..., object]:
    try:
        import uvloop
    except ImportError:
        return asyncio.run
    return uvloop.run


def _on_sigterm(signum: int, frame: object) -> None:
    kill_all()  # no bot outlives the runner
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    args, settings = parse_args(argv)
    signal.signal(signal.SIGTERM, _on_sigterm)
    launch = Launch(0, "", TOKEN, SECRET, WEBHOOK_PATH, settings.loop, settings.tgfast_path)
    build = tgfast_build(launch)
    cpus = pin_cores(settings.pin)
    started = time.perf_counter()
    if settings.overload:
        return _overload_main(args, settings, cpus, build, started)
    results = _loop_runner()(sweep(settings, cpus[1]))
    assert isinstance(results, list)
    took = time.perf_counter() - started
    if not args.no_machine_line:
        print(machine_line(build))
        print()
    if settings.nginx:
        print(render_scale(results, settings, build))
    else:
        print(render(results, settings, cpus, build))
    if any(r.contender == "go" for r in results):
        print("\n#### Against the Go bot (webhook, one process; ratios: contender / Go)\n")
        print(report.versus_go_table(results))
    if args.versus_go:
        print("\n#### Cold start: `python -I -c 'import X'` (median of 7 runs)\n", flush=True)
        print(coldstart.table(tgfast_path=settings.tgfast_path))
    print(f"\nSweep took {took:.0f} s.", flush=True)
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "machine": machine_line(build),
                    "tgfast": build,
                    "settings": settings.__dict__,
                    "cpus": {"harness": cpus[0], "bot": cpus[1]},
                    "results": [r.to_json() for r in results],
                    "bars": []
                    if settings.nginx
                    else [b.__dict__ | {"verdict": b.verdict} for b in report.bars(results)],
                },
                indent=1,
            )
        )
    return 1 if any(r.error for r in results) else 0


def _overload_main(
    args: argparse.Namespace, settings: Settings, cpus: tuple[int | None, int | None],
    build: dict[str, object], started: float,
) -> int:  # fmt: skip
    done = _loop_runner()(overload(settings, cpus[1]))
    assert isinstance(done, tuple)
    results, over = done
    clean = [r for r in results if r.holds(report.TGFAST_P99_MS)][-1]
    if not args.no_machine_line:
        print(machine_line(build))
        print()
    print(render(results, settings, cpus, build))
    burn = (
        f", the handler burning {settings.burn_ms:g} ms of CPU per update"
        if settings.burn_ms
        else ""
    )
    print(f"\n#### Overload: {over.contender} at twice its clean rate{burn}\n")
    print(report.overload_table(clean, over))
    print("\nSecond by second (from the first update due):\n")
    print(report.overload_seconds_table(clean, over))
    print(f"\nRun took {time.perf_counter() - started:.0f} s.", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({
            "machine": machine_line(build), "tgfast": build, "settings": settings.__dict__,
            "results": [r.to_json() for r in results], "overload": over.to_json(),
        }, indent=1))  # fmt: skip
    return 1 if over.error or any(r.error for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
