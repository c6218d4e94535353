"""The webhook intake alone: requests/s and server CPU per request, per HTTP layer.

    python benchmarks/micro/intake.py                       # 20000 requests per layer, 8 connections
    python benchmarks/micro/intake.py --requests 50000 --connections 16 --rounds 3

Each layer serves a ``WebhookServer`` (secret check, body limit, dedup, per-chat
order: the defaults) in a process of its own, on uvloop, whose dispatcher has one
message handler that returns at once: what is measured is the HTTP layer, the decode
and the processing model, not a handler or the Bot API client. The load comes from
this process: keep-alive connections, each sending its next request when the answer
to the last one is in (closed loop), from request bytes built beforehand. Figures per
layer: requests/s (wall clock) and the server process's CPU per request (from
``/proc/<pid>/stat``, the steadier figure on a shared machine). Layers:
``tgfast`` (the compiled protocol), ``tgfast-py`` (its pure twin,
``TGFAST_NO_EXTENSIONS=1``), ``aiohttp`` (aiohttp.web, ``http="aiohttp"``).
``--refuse`` measures what a refusal costs instead: the server drains (its processor
closed) and answers every update 503 with ``Retry-After``, decided from the head as at
the in-flight bound. (At the bound tgfast's own intake then parks the connection until
there is room, which a load that waits for each answer cannot get past.)
"""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True

import argparse  # noqa: E402
import asyncio  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

import orjson  # noqa: E402

SECRET = "bench-secret"
CLK_TCK = os.sysconf("SC_CLK_TCK")
LAYERS = {
    "tgfast": ("tgfast", {}),
    "tgfast-py": ("tgfast", {"TGFAST_NO_EXTENSIONS": "1"}),
    "aiohttp": ("aiohttp", {}),
}

SERVER = """
import asyncio, sys
import uvloop
from tgfast import Bot, Dispatcher
from tgfast.server import WebhookServer

async def main():
    dp = Dispatcher()

    @dp.message()
    async def noop(message):
        pass

    bot = Bot("1:bench", server="http://127.0.0.1:9", rate_limiter=None)
    server = WebhookServer(dp, bot, secret_token=%(secret)r, http=%(http)r)
    url = await server.start("127.0.0.1", 0)
    if %(refuse)r:
        server.processor.close()  # draining: every update is answered 503 + Retry-After
    print(url, flush=True)
    await asyncio.Event().wait()

uvloop.run(main())
"""


def request(update_id: int, path: str) -> bytes:
    body = orjson.dumps({
        "update_id": update_id,
        "message": {
            "message_id": update_id, "date": 1700000000, "text": "hello",
            "chat": {"id": update_id % 1000 + 1, "type": "private", "first_name": "Ann"},
            "from": {"id": update_id % 1000 + 1, "is_bot": False, "first_name": "Ann"},
        },
    })  # fmt: skip
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"X-Telegram-Bot-Api-Secret-Token: {SECRET}\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


async def load(
    host: str, port: int, requests: list[bytes], connections: int, expect: bytes = b"200"
) -> float:
    """Send every request, ``connections`` at a time; the wall-clock seconds."""
    queue = iter(requests)

    async def one() -> None:
        reader, writer = await asyncio.open_connection(host, port)
        for data in queue:
            writer.write(data)
            head = await reader.readuntil(b"\r\n\r\n")
            if not head.startswith(b"HTTP/1.1 " + expect) and not head.startswith(b"HTTP/1.1 200"):
                raise RuntimeError(f"not a 200: {head!r}")
            length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
            if length:
                await reader.readexactly(length)
        writer.close()

    start = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(connections)))
    return time.perf_counter() - start


def run_layer(name: str, args: argparse.Namespace, first_id: int) -> tuple[float, float]:
    http, extra = LAYERS[name]
    env = {**os.environ, **extra}
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER % {"secret": SECRET, "http": http, "refuse": args.refuse}],
        stdout=subprocess.PIPE, env=env, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        hostport, path = url.removeprefix("http://").split("/", 1)
        host, port = hostport.rsplit(":", 1)
        warm = [request(first_id + i, "/" + path) for i in range(2000)]
        expect = b"503" if args.refuse else b"200"
        asyncio.run(load(host, int(port), warm, args.connections, expect))
        reqs = [request(first_id + 2000 + i, "/" + path) for i in range(args.requests)]
        before = cpu_seconds(proc.pid)
        wall = asyncio.run(load(host, int(port), reqs, args.connections, expect))
        cpu = cpu_seconds(proc.pid) - before
        return args.requests / wall, cpu / args.requests * 1e6
    finally:
        proc.terminate()
        proc.wait(10)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--requests", type=int, default=20000)
    p.add_argument("--connections", type=int, default=8)
    p.add_argument("--rounds", type=int, default=1, help="alternate the layers this many times")
    p.add_argument("--layer", action="append", choices=tuple(LAYERS))
    p.add_argument(
        "--refuse",
        action="store_true",
        help="measure refusals: one update in flight at most, the rest get 503",
    )
    args = p.parse_args()
    layers = args.layer or list(LAYERS)
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in layers}
    first_id = 1
    for _ in range(args.rounds):
        for name in layers:
            results[name].append(run_layer(name, args, first_id))
            first_id += args.requests + 2000
    base = min(cpu for _, cpu in results.get("aiohttp", [(0.0, 0.0)])) or None
    print("| layer | requests/s | server CPU/request (µs) | CPU vs aiohttp |")
    print("|---|---:|---:|---:|")
    for name in layers:
        rate = max(r for r, _ in results[name])
        cpu = min(c for _, c in results[name])
        ratio = f"{cpu / base:.2f}x" if base else "-"
        print(f"| {name} | {rate:,.0f} | {cpu:.1f} | {ratio} |")


if __name__ == "__main__":
    main()
