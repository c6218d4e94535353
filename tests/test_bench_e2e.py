"""The end-to-end benchmark of issue #6 (``benchmarks/e2e``) keeps working.

The harness runs for real at a tiny rate (40 updates/s for 1 s): the bots
are separate processes (the floor, aiogram in both modes, tgfast's CLI in
both modes with the tgfast this test run imports), the load generator and
the sink run in the runner; every update sent must come back as an echo, in
the JSON results and in the Markdown table.  The generator's refusal and
retry path is checked against a webhook that refuses every first delivery,
and the bar verdicts against made-up results.  The scale-out mode (issue #7)
runs the same way through a real nginx in front of 1 and 2 workers of every
contender.  No timing is asserted.
"""

from __future__ import annotations

import asyncio
import json
import math
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

import tgfast

# the same whichever build is installed: scripts/test.sh runs it once, not per build
pytestmark = pytest.mark.once

ROOT = Path(__file__).resolve().parents[1]
E2E = ROOT / "benchmarks" / "e2e"
TGFAST_HOME = Path(tgfast.__file__).resolve().parents[1]  # the tgfast under test
RATE, DURATION = 40, 1


def _import_harness() -> Iterator[Any]:
    sys.path.insert(0, str(E2E))
    dont_write, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        import bots
        import loadgen
        import record
        import report
        import sink

        yield from (bots, loadgen, record, report, sink)
    finally:
        sys.dont_write_bytecode = dont_write
        sys.path.remove(str(E2E))


bots, loadgen, record, report, sink = _import_harness()


def run_harness(tmp_path: Path, contenders: list[str], *options: str) -> tuple[dict[str, Any], str]:
    """Run benchmarks/e2e/run.py at RATE for DURATION; (its JSON, its Markdown)."""
    out = tmp_path / "e2e.json"
    cmd = [
        sys.executable, str(E2E / "run.py"),
        "--rates", str(RATE), "--duration", str(DURATION), "--warmup", "0.2",
        "--drain", "5", "--drain-max", "5", "--tries", "1",
        "--tgfast-path", str(TGFAST_HOME), "--json", str(out),
    ]  # fmt: skip
    for name in contenders:
        cmd += ["--contender", name]
    done = subprocess.run(
        [*cmd, *options], cwd=tmp_path, capture_output=True, text=True, timeout=90, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(out.read_text()), done.stdout


def check_every_update_echoed(
    data: dict[str, Any], markdown: str, pairs: set[tuple[str, str]]
) -> None:
    results = data["results"]
    assert {(r["contender"], r["mode"]) for r in results} == pairs
    for r in results:
        where = f"{r['contender']} {r['mode']}: {r}"
        assert r["error"] == "", where
        assert r["sent"] == RATE * DURATION, where
        assert r["echoed"] == r["sent"], where
        assert r["acked_lost"] == 0 and r["late"] == 0, where
        assert r["duplicates"] == 0 and r["wrong_chat"] == 0 and r["stray"] == 0, where
        assert r["bad_requests"] == 0 and r["errors"] == 0, where
        # measured (10 ms clock ticks: at 40 updates it may round down to 0)
        assert r["cpu_per_update_ms"] is not None and r["cpu_per_update_ms"] >= 0, where
        assert 10.0 <= r["p50_ms"] <= r["p99_ms"] <= r["max_ms"], where  # the handler sleeps 10 ms
    rows = report.parse_table(markdown)
    assert {(row["contender"], row["rate/s"]) for row in rows} == {
        (name, str(RATE)) for name, _ in pairs
    }
    assert len(rows) == len(pairs)
    for row in rows:
        assert row["sent"] == row["echoed"] == str(RATE * DURATION), row
        assert row["loss"] == "0 %" and row["acked lost"] == "0", row
    assert markdown.startswith("machine: ")
    assert "#### Against the bar of issue #6" in markdown
    assert len(data["bars"]) == len(report.bars([])) == 5
    for bar in data["bars"]:
        assert bar["verdict"] in ("PASS", "FAIL", "n/a")
        assert f"| {bar['what']} | {bar['result']} | {bar['verdict']} |" in markdown


def test_floor_and_aiogram(tmp_path: Path) -> None:
    data, markdown = run_harness(tmp_path, ["floor", "aiogram"])
    pairs = {("floor", "webhook"), ("aiogram", "webhook"), ("aiogram", "polling")}
    check_every_update_echoed(data, markdown, pairs)


def test_tgfast_cli(tmp_path: Path) -> None:
    data, markdown = run_harness(tmp_path, ["tgfast"])
    check_every_update_echoed(data, markdown, {("tgfast", "webhook"), ("tgfast", "polling")})
    assert data["tgfast"]["cli"] is True
    assert Path(data["tgfast"]["file"]).resolve().parents[1] == TGFAST_HOME


def test_scale_out_through_nginx(tmp_path: Path) -> None:
    """--nginx: a real nginx in front of 1 and 2 workers of each contender, every update
    echoed, the workers' and nginx's CPU apart, the scale-out tables rendered."""
    data, markdown = run_harness(tmp_path, [], "--nginx", "--workers", "1,2")
    results = data["results"]
    variants = {(r["contender"], r["workers"]) for r in results}
    assert variants == {(n, w) for n in ("floor", "aiogram", "tgfast") for w in (1, 2)}
    supervised = data["settings"]["supervisor"]
    for r in results:
        where = f"{r['contender']} x{r['workers']}: {r}"
        assert r["error"] == "" and r["balancer"] == "nginx" and r["mode"] == "webhook", where
        assert r["sent"] == r["echoed"] == RATE * DURATION, where
        assert r["acked_lost"] == r["late"] == r["duplicates"] == r["wrong_chat"] == 0, where
        assert r["stray"] == r["bad_requests"] == r["errors"] == 0, where
        assert r["cpu_per_update_ms"] is not None and r["cpu_per_update_ms"] >= 0, where
        assert r["nginx_cpu_per_update_ms"] is not None and r["nginx_cpu_per_update_ms"] >= 0
        assert 10.0 <= r["p50_ms"] <= r["p99_ms"] <= r["max_ms"], where
        assert len(r["worker_share"]) == r["workers"], where
        if r["workers"] == 2:
            expected = (
                "supervisor of 2" if supervised and r["contender"] == "tgfast" else ("2 processes")
            )
            assert r["deployment"] == expected, where
    rows = report.parse_table(markdown)
    assert len(rows) == len(results) == 6
    assert list(rows[0]) == report.SCALE_HEADER
    for row in rows:
        assert row["sent"] == row["echoed"] == str(RATE * DURATION), row
        assert row["loss"] == "0 %" and row["acked lost"] == "0", row
        assert row["nginx/update"].endswith(" ms"), row
    assert markdown.startswith("machine: ")
    assert "#### Ceilings: the highest rate held through nginx" in markdown
    assert "#### CPU per update at the highest rate held" in markdown
    assert "estimate, 16 cores" in markdown
    assert data["bars"] == []  # the bar of issue #6 is for one worker, no balancer


def test_scale_out_with_shared_redis(tmp_path: Path) -> None:
    """--redis: tgfast's two workers share a real redis-server, whose CPU is counted."""
    data, markdown = run_harness(tmp_path, ["tgfast"], "--nginx", "--workers", "2", "--redis")
    [r] = data["results"]
    assert r["error"] == "" and r["sent"] == r["echoed"] == RATE * DURATION, r
    assert r["acked_lost"] == r["duplicates"] == r["errors"] == 0, r
    assert r["redis_cpu_per_update_ms"] is not None and r["redis_cpu_per_update_ms"] >= 0, r
    assert data["settings"]["redis"] is True
    assert "tgfast's workers share a real redis-server" in markdown
    assert "| Redis CPU/update |" in markdown
    [row] = report.parse_table(markdown)
    assert list(row) == report.SCALE_REDIS_HEADER and row["Redis/update"].endswith(" ms"), row


async def test_refusals_are_retried_until_delivered() -> None:
    """A webhook that answers 503 to every first delivery: each update comes again, once."""
    the_sink = sink.Sink()
    await the_sink.start()
    seen: dict[int, int] = {}
    session = aiohttp.ClientSession()

    async def webhook(request: web.Request) -> web.Response:
        assert request.headers["X-Telegram-Bot-Api-Secret-Token"] == "s3cret"
        update = await request.json()
        uid = update["update_id"]
        seen[uid] = seen.get(uid, 0) + 1
        if seen[uid] == 1:
            return web.Response(status=503, headers={"Retry-After": "0.05"})
        message = update["message"]
        async with session.post(
            f"{the_sink.url}/bot1:x/sendMessage",
            json={"chat_id": message["chat"]["id"], "text": message["text"]},
        ) as resp:
            assert (await resp.json())["ok"] is True
        return web.Response()

    app = web.Application()
    app.router.add_post("/hook", webhook)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    tracker = record.Tracker(50, chats=7)
    poster = loadgen.WebhookPoster(tracker, port, "/hook", "s3cret", max_connections=4)
    try:
        the_sink.trackers.append(tracker)
        await loadgen.pace(500.0, tracker, poster.submit)
        for _ in range(300):
            if tracker.all_echoed() and all(tracker.acked):  # an echo can beat its 200
                break
            await asyncio.sleep(0.01)
    finally:
        poster.close()
        await asyncio.sleep(0)  # let the closed transports go
        await session.close()
        await runner.cleanup()
        await the_sink.close()
    assert tracker.all_echoed(), (tracker.unique, dict(tracker.statuses), poster.last_error)
    assert tracker.statuses == {503: 50, 200: 50}
    assert tracker.retries == 50 and all(tracker.refused) and all(tracker.acked)
    assert tracker.duplicates == tracker.wrong_chat == 0
    assert set(seen.values()) == {2}
    assert tracker.connections <= 4  # kept alive, never more than the pool
    assert poster.max_retry_after == 0.05
    # when each refusal came back and each re-send left: the overload run's seconds
    assert len(tracker.refusal_times) == len(tracker.retry_times) == 50
    assert min(tracker.retry_times) >= min(tracker.refusal_times) + 0.05


def _result(name: str, rate: float, *, lost: int = 0, p99: float = 20.0, cpu: float = 0.3,
            busy: float = 50.0, refused: int = 0, refused_undelivered: int = 0,
            acked_lost: int = 0) -> Any:  # fmt: skip
    return report.RunResult(
        name, "webhook", rate, 5.0, sent=1000, echoed=1000 - lost, p50_ms=11.0, p99_ms=p99,
        max_ms=p99, cpu_pct=busy, cpu_per_update_ms=cpu, refused=refused,
        refused_undelivered=refused_undelivered, acked_lost=acked_lost,
    )  # fmt: skip


def _verdicts(results: list[Any]) -> list[bool | None]:
    return [b.met for b in report.bars(results)]


def test_bar_verdicts() -> None:
    aiogram = [_result("aiogram", 200, cpu=0.9, busy=20), _result("aiogram", 400, cpu=0.9, p99=90,
               busy=40), _result("aiogram", 1000, cpu=0.9, lost=300, p99=math.inf, busy=99)]  # fmt: skip
    floor = [_result("floor", r, cpu=0.15) for r in (200, 400, 1000)] + [
        _result("floor", 2000, p99=70.0)
    ]
    tgfast = [_result("tgfast", r, cpu=0.25) for r in (200, 400, 1000)] + [
        _result("tgfast", 2000, p99=900.0, refused=500)
    ]
    # 1000 >= 2.5 x 400; 0.25 / 0.9 <= 1/3 under load (1000/s) and at light load (200, 400/s);
    # 1000 >= 0.8 x 1000; nothing acknowledged lost
    assert _verdicts(aiogram + floor + tgfast) == [True, True, True, True, True]
    cpu_bars = report.bars(aiogram + floor + tgfast)[1:3]
    assert "over 1000/s" in cpu_bars[0].result and "over 200, 400/s" in cpu_bars[1].result
    assert "the floor / aiogram 0.17" in cpu_bars[1].result  # 0.15 / 0.9
    assert report.ceiling(aiogram, "aiogram", "webhook", 100.0).rate == 400
    assert report.ceiling(tgfast, "tgfast", "webhook", 50.0).first_fail == 2000

    slow = [_result("tgfast", r, cpu=0.5) for r in (200, 400)] + [
        _result("tgfast", 1000, p99=60.0, cpu=0.5),
        _result("tgfast", 2000, acked_lost=3, refused=9, refused_undelivered=1, p99=math.inf),
    ]
    assert _verdicts(aiogram + floor + slow) == [False, False, False, False, False]

    # Held everything, the floor too: "80 % of the floor" cannot be judged.
    top = [_result(n, r) for n in ("floor", "tgfast") for r in (200, 400, 1000, 2000)]
    assert _verdicts(aiogram + top)[3:] == [None, None]

    # A lost update is loss, whatever the latency of the others.
    assert not _result("tgfast", 200, lost=1).holds(50.0)


def test_overload_verdicts() -> None:
    """Issue #26's overload table: the lowest second against the clean rate (>= 90 %),
    and nothing acknowledged lost, nothing refused left undelivered, nothing twice."""
    clean = _result("tgfast-fast", 1000)
    over = _result("tgfast-fast", 2000, refused=5000)
    over.echo_rates = [1000, 950, 910]
    table = report.overload_table(clean, over)
    assert "910/s = 0.91: PASS" in table and "0 / 0 / 0: PASS" in table
    assert "1,000 950 910" in table
    over.echo_rates = [1000, 890]
    assert "890/s = 0.89: FAIL" in report.overload_table(clean, over)
    over.acked_lost = 1
    assert "0 / 1 / 0: FAIL" in report.overload_table(clean, over)
    # twice the clean rate refused nothing: not an overload, the bar is not judged
    calm = _result("tgfast-fast", 2000)
    calm.echo_rates = [2000, 2000]
    assert "2,000/s = 2.00: n/a" in report.overload_table(clean, calm)


def test_overload_refuses_a_mode_it_does_not_measure() -> None:
    done = subprocess.run(
        [sys.executable, str(E2E / "run.py"), "--overload", "--rates", "100", "--mode", "polling"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "--overload measures webhook mode only" in done.stderr


def test_overload_seconds_table() -> None:
    """The overload run second by second: offered, refused, handled, and the bot's core
    (its CPU, the neighbours' share, CPU per update handled)."""
    clean = _result("tgfast-fast", 1000)
    over = _result("tgfast-fast", 2000, refused=300)
    over.timeline = [
        {"second": 0, "new": 2000, "retries": 0, "refused": 100, "handled": 1000,
         "bot_cpu_pct": 30.0, "others_pct": 70.0},
        {"second": 1, "new": 2000, "retries": 100, "refused": 200, "handled": 0,
         "bot_cpu_pct": None, "others_pct": None},
    ]  # fmt: skip
    rows = report.overload_seconds_table(clean, over).splitlines()[2:]
    assert rows[0] == "| 0 | 2,000 | 0 | 100 | 1,000 | 1.00 | 30 % | 70 % | 0.300 ms |"
    assert rows[1] == "| 1 | 2,000 | 100 | 200 | 0 | 0.00 | — | — | — |"


def test_table_round_trip() -> None:
    results = [_result("tgfast", 700), _result("aiogram", 700, lost=12, p99=math.inf)]
    rows = report.parse_table(report.results_table(results, "webhook"))
    assert [(r["contender"], r["echoed"], r["loss"], r["p99"]) for r in rows] == [
        ("aiogram", "988", "1.2 %", "∞"),
        ("tgfast", "1,000", "0 %", "20.0 ms"),
    ]
    back = report.RunResult.from_json(json.loads(json.dumps(results[1].to_json())))
    assert back.p99_ms == math.inf and back.echoed == 988


def test_the_ops_contender(tmp_path: Path) -> None:
    """``tgfast-ops`` (issue #27): the tgfast bot logging at info, with OpenTelemetry's
    SDK installed and tracing off, measured beside ``tgfast`` in one run."""
    launch = bots.Launch(
        port=1, api_url="http://127.0.0.1:2", token="1:a", secret="s", path="/webhook",
        loop="uvloop", tgfast_path="",
    )  # fmt: skip
    plain, ops = (bots.command(name, "webhook", launch) for name in ("tgfast", "tgfast-ops"))
    levels = [cmd[n + 1] for cmd in (plain, ops) for n, a in enumerate(cmd) if a == "--log-level"]
    assert levels == ["warning", "warning", "info"]  # the last one given wins
    assert "tgfast_echo:dp" in plain and "tgfast_ops_echo:dp" in ops
    data, markdown = run_harness(tmp_path, ["tgfast-ops"])
    check_every_update_echoed(
        data, markdown, {("tgfast-ops", "webhook"), ("tgfast-ops", "polling")}
    )


def test_go_minimal_and_the_fast_transport(tmp_path: Path) -> None:
    """Issue #26's contenders: the Go bot (built from benchmarks/e2e/go_echo by the
    harness), the minimal Python floor (with its raw client, with a task per update,
    and with aiohttp's client) and tgfast over its fast transport."""
    names = ["go", "minimal", "minimal-async", "minimal-aiohttp", "tgfast-fast"]
    data, markdown = run_harness(tmp_path, names, "--mode", "webhook")
    pairs = {(name, "webhook") for name in names}
    check_every_update_echoed(data, markdown, pairs)
    assert "#### Against the Go bot" in markdown
    rows = [line for line in markdown.splitlines() if line.startswith("| tgfast-fast | webhook |")]
    assert any("x |" in row for row in rows), rows  # a ratio to the Go bot
