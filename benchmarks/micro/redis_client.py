"""Redis client benchmark: process CPU per command, ``RespClient`` against redis-py's
asyncio client without hiredis (its pure-Python parser) and with hiredis, on uvloop,
against one real redis-server started here.

    python benchmarks/micro/redis_client.py              # about 30 s on 2 cores
    python benchmarks/micro/redis_client.py --quick      # a few seconds, noisier
    python benchmarks/micro/redis_client.py --count 200 --rounds 1   # a smoke run

Why CPU and not latency: the commands tgfast sends per update (the claim, the ``done``
pipeline, the FSM state read) wait on the network in any client; what a client adds
is the CPU time of encoding, parsing and waking the waiter, and on a 2-core webhook
worker that CPU is what caps the updates per second. ``time.process_time()`` counts
this process only (redis-server is another process), over ``count`` awaited commands.

Commands, as the hot paths send them:

- ``GET``: one key of a few bytes (the FSM's per-update state read);
- ``EVALSHA``: a one-key script returning an integer (the seen-updates claim);
- pipelined ``SET k v PX ttl``: 10 per pipeline, figure per SET (``done`` for a batch).

Contenders take turns: each round runs every contender (in rotating order) after a
short warm-up; the figure is the median over rounds of the µs of CPU per command, and
each ratio the median of the per-round ratios (contenders of one round ran seconds
apart, so a noisy neighbour hits them alike). The decision rule of issue #18 is printed
with the table: redis-py with hiredis within 2x of ``RespClient``'s CPU per command
means tgfast uses redis-py.
"""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Awaitable, Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import Any  # noqa: E402

from fsm import RedisProcess  # noqa: E402
from machine import machine_line  # noqa: E402

COMMANDS = ("GET", "EVALSHA", "pipelined SET")
PIPELINE = 10
SCRIPT = "return redis.call('EXISTS', KEYS[1]) + tonumber(ARGV[1])"
DEFAULT_COUNT = 4000  # commands per contender per round (per SET for the pipeline)


@dataclass
class Contender:
    """One client: a coroutine per command kind that sends ``n`` of them."""

    name: str
    run: dict[str, Callable[[int], Awaitable[None]]]
    close: Callable[[], Awaitable[None]]
    times: dict[str, list[float]] = field(default_factory=dict)  # µs of CPU per command


async def resp_contender(url: str, sha: str) -> Contender:
    from tgfast.redis import RespClient

    client = RespClient.from_url(url)

    async def get(n: int) -> None:
        execute = client.execute
        for _ in range(n):
            if await execute("GET", "bench:state") != b"Form:name":
                raise AssertionError("RespClient GET: wrong reply")

    async def evalsha(n: int) -> None:
        execute = client.execute
        for _i in range(n):
            if await execute("EVALSHA", sha, 1, "bench:state", 1) != 2:
                raise AssertionError("RespClient EVALSHA: wrong reply")

    async def pipelined(n: int) -> None:
        pipeline = client.pipeline
        for i in range(0, n, PIPELINE):
            commands = [
                ("SET", f"bench:done:{i + j}", b"done", "PX", 60000) for j in range(PIPELINE)
            ]
            if await pipeline(commands) != [b"OK"] * PIPELINE:
                raise AssertionError("RespClient pipeline: wrong replies")

    return Contender(
        "RespClient", {"GET": get, "EVALSHA": evalsha, "pipelined SET": pipelined}, client.close
    )


async def redis_py_contender(url: str, sha: str, *, hiredis: bool) -> Contender:
    from redis.asyncio import Redis

    if hiredis:
        from redis._parsers import _AsyncHiredisParser as parser
        from redis.utils import HIREDIS_AVAILABLE

        if not HIREDIS_AVAILABLE:
            raise RuntimeError("hiredis is not installed: pip install hiredis (the bench extra)")
    else:
        from redis._parsers import _AsyncRESP2Parser as parser
    client = Redis.from_url(url, parser_class=parser)

    async def get(n: int) -> None:
        call = client.get
        for _ in range(n):
            if await call("bench:state") != b"Form:name":
                raise AssertionError("redis-py GET: wrong reply")

    async def evalsha(n: int) -> None:
        call = client.evalsha
        for _ in range(n):
            if await call(sha, 1, "bench:state", 1) != 2:
                raise AssertionError("redis-py EVALSHA: wrong reply")

    async def pipelined(n: int) -> None:
        for i in range(0, n, PIPELINE):
            pipe = client.pipeline(transaction=False)
            for j in range(PIPELINE):
                pipe.set(f"bench:done:{i + j}", b"done", px=60000)
            if await pipe.execute() != [True] * PIPELINE:
                raise AssertionError("redis-py pipeline: wrong replies")

    return Contender(
        "redis-py + hiredis" if hiredis else "redis-py (pure Python parser)",
        {"GET": get, "EVALSHA": evalsha, "pipelined SET": pipelined},
        client.aclose,
    )


async def measure(contenders: list[Contender], count: int, rounds: int) -> None:
    for command in COMMANDS:
        for c in contenders:
            await c.run[command](max(PIPELINE, count // 20))  # warm-up: connect, caches
            c.times[command] = []
        for r in range(rounds):
            order = contenders[r % len(contenders) :] + contenders[: r % len(contenders)]
            for c in order:
                start = time.process_time()
                await c.run[command](count)
                c.times[command].append((time.process_time() - start) / count * 1e6)


def render(contenders: list[Contender], count: int, rounds: int) -> str:
    ours = next(c for c in contenders if c.name == "RespClient")
    others = [c for c in contenders if c is not ours]
    head = " | ".join(f"{c.name} µs" for c in contenders)
    ratio_head = " | ".join(f"{c.name} / RespClient" for c in others)
    lines = [
        f"µs of process CPU per command (uvloop, sequential awaits), median of {rounds} "
        f"rounds of {count} commands; pipelines of {PIPELINE} SETs, figure per SET:",
        "",
        f"| command | {head} | {ratio_head} |",
        "| --- |" + " ---: |" * (len(contenders) + len(others)),
    ]
    hiredis_ratios = []
    for command in COMMANDS:
        cells = [f"{statistics.median(c.times[command]):.1f}" for c in contenders]
        ratios = []
        for c in others:
            per_round = [t / o for o, t in zip(ours.times[command], c.times[command], strict=True)]
            ratio = statistics.median(per_round)
            ratios.append(f"{ratio:.2f}×")
            if "hiredis" in c.name:
                hiredis_ratios.append(ratio)
        lines.append(f"| {command} | {' | '.join(cells)} | {' | '.join(ratios)} |")
    worst = min(hiredis_ratios)
    verdict = (
        "redis-py with hiredis is within 2× of RespClient on "
        + ("every command" if max(hiredis_ratios) < 2 else "some command")
        if worst < 2
        else "redis-py with hiredis costs over 2× RespClient's CPU on every command"
    )
    lines += [
        "",
        f"Decision rule (issue #18): {verdict} (lowest ratio {worst:.2f}×) -> "
        + ("use redis-py." if worst < 2 else "keep RespClient."),
    ]
    return "\n".join(lines)


async def run(args: argparse.Namespace) -> int:
    redis = RedisProcess()
    contenders: list[Contender] = []
    try:
        setup = await resp_setup(redis.url)
        contenders = [
            await resp_contender(redis.url, setup),
            await redis_py_contender(redis.url, setup, hiredis=False),
            await redis_py_contender(redis.url, setup, hiredis=True),
        ]
        count = args.count or (DEFAULT_COUNT // (5 if args.quick else 1))
        count -= count % PIPELINE
        await measure(contenders, count, args.rounds)
        if not args.no_machine_line:
            print(machine_line(("redis", "hiredis", "uvloop"), f"redis-server {redis.version()}"))
        print("\n## Redis client\n")
        print(render(contenders, count, args.rounds))
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:  # noqa: ASYNC230 - the runs are over
                json.dump({c.name: c.times for c in contenders}, f, indent=1)
    finally:
        for c in contenders:
            await c.close()
        redis.close()
    return 0


async def resp_setup(url: str) -> str:
    """The state key and the script, loaded once; the script's SHA1."""
    from tgfast.redis import RespClient

    client = RespClient.from_url(url)
    try:
        await client.execute("SET", "bench:state", "Form:name")
        sha: Any = await client.execute("SCRIPT", "LOAD", SCRIPT)
    finally:
        await client.close()
    return str(sha.decode())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer commands, noisier")
    parser.add_argument("--count", type=int, default=0, help="commands per round")
    parser.add_argument("--rounds", type=int, default=7, help="rounds per contender")
    parser.add_argument("--json", metavar="PATH", help="also save the per-round figures")
    parser.add_argument("--no-machine-line", action="store_true", help="(for run.py)")
    args = parser.parse_args(argv)
    import uvloop

    return uvloop.run(run(args))


if __name__ == "__main__":
    raise SystemExit(main())
