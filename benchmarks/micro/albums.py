"""Album aggregation benchmark: what ``AlbumMiddleware`` adds per part, in CPU and in
latency, with its memory store and with its Redis store (one redis-server, started here).

    python benchmarks/micro/albums.py            # about 20 s on 2 cores
    python benchmarks/micro/albums.py --quick    # a few seconds, noisier

CPU: ``albums`` albums of ``size`` photo parts are fed to ``dp.feed_update`` (updates
decoded up front), then the albums under way are waited for; the process CPU time
(``time.process_time``: this process only, not redis-server's, which is shown apart
from Redis' own ``INFO cpu``) is divided by the number of parts. The floor is the same
parts through the same dispatcher without the middleware, each part handled on its own.
Messages without a media group are measured the same way, with and without the
middleware installed: what every other update pays.

Latency: for each album, the time from the moment its last part was fed to the moment
its handler starts, less the quiet period (``delay``): what aggregation adds beyond
the wait it is asked for. Median and p99 over the albums; a shared machine's noise
shows in the p99.

A round fails the run when any album is handed over incomplete, twice or not at all:
a broken contender cannot post a figure.
"""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__

import argparse  # noqa: E402
import asyncio  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

from fsm import RedisProcess  # noqa: E402
from machine import machine_line  # noqa: E402

from tgfast import Bot, Dispatcher, convert  # noqa: E402
from tgfast.redis import RedisAlbumStore, RespClient  # noqa: E402
from tgfast.types import Message, Update  # noqa: E402
from tgfast.utils.album import AlbumMiddleware, AlbumStore, MemoryAlbumStore  # noqa: E402

TOKEN = "123456:AAbenchmarkTokenForAlbums_012345678"
DELAY = 0.05


def parts(albums: int, size: int, first_id: int = 1) -> list[Update]:
    """``albums`` albums of ``size`` photos, each album in its own chat."""
    out = []
    for n in range(albums):
        chat = {"id": 1000 + n, "type": "private", "first_name": "Ann"}
        for k in range(size):
            message_id = first_id + n * size + k
            body = {
                "message_id": message_id, "date": 1, "chat": chat, "media_group_id": f"g{n}",
                "from": {"id": 1000 + n, "is_bot": False, "first_name": "Ann"},
                "photo": [{"file_id": f"F{message_id}", "file_unique_id": "u", "width": 1,
                           "height": 1}],
            }  # fmt: skip
            out.append(convert(Update, {"update_id": message_id, "message": body}))
    return out


def texts(count: int) -> list[Update]:
    chat = {"id": 7, "type": "private", "first_name": "Ann"}
    return [
        convert(
            Update,
            {"update_id": i, "message": {"message_id": i, "date": 1, "chat": chat, "text": "hi"}},
        )  # fmt: skip
        for i in range(1, count + 1)
    ]


async def empty(handler: Any, event: Any, data: dict[str, Any]) -> Any:
    """An outer middleware that does nothing: what any middleware costs in tgfast."""
    return await handler(event, data)


class Contender:
    """A dispatcher whose one handler records each call (and its time, for albums)."""

    def __init__(self, store: AlbumStore | None, *, empty_middleware: bool = False) -> None:
        self.dp = Dispatcher()
        self.albums = (
            AlbumMiddleware(DELAY, store=store).setup(self.dp) if store is not None else None
        )
        if empty_middleware:
            self.dp.message.outer_middleware(empty)
        self.handled: list[tuple[int, int, float]] = []  # (first id, parts, when)

        @self.dp.message()
        async def handler(message: Message, album: list[Message] | None = None) -> None:
            count = 1 if album is None else len(album)
            self.handled.append((message.message_id, count, time.perf_counter()))

    async def run(self, bot: Bot, updates: list[Update]) -> float:
        """CPU seconds to handle ``updates`` and the albums they make."""
        self.handled.clear()
        cpu = time.process_time()
        for update in updates:
            await self.dp.feed_update(bot, update)
        if self.albums is not None:
            await self.albums.close()
        return time.process_time() - cpu


def check(handled: list[tuple[int, int, float]], albums: int, size: int, whole: bool) -> None:
    if whole:
        got = sorted((first, count) for first, count, _ in handled)
        expected = [(1 + n * size, size) for n in range(albums)]
    else:
        got = sorted((first, count) for first, count, _ in handled)
        expected = [(i, 1) for i in range(1, albums * size + 1)]
    if got != expected:
        raise SystemExit(f"wrong albums: {got[:5]}... expected {expected[:5]}...")


async def latency(contender: Contender, bot: Bot, albums: int, size: int) -> list[float]:
    """Per album: handler start - last part fed - DELAY, in ms (albums a few ms apart)."""
    fed: dict[int, float] = {}
    contender.handled.clear()
    updates = parts(albums, size, first_id=10_000_000)
    for n in range(albums):
        for update in updates[n * size : (n + 1) * size]:
            await contender.dp.feed_update(bot, update)
        fed[10_000_000 + n * size] = time.perf_counter()
        await asyncio.sleep(0.002)
    assert contender.albums is not None
    await contender.albums.close()
    check([(f - 10_000_000 + 1, c, t) for f, c, t in contender.handled], albums, size, True)
    return [(when - fed[first] - DELAY) * 1000 for first, _, when in contender.handled]


async def redis_cpu(wire: RespClient) -> float:
    info = (await wire.execute("INFO", "cpu")).decode()
    fields = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
    return float(fields["used_cpu_user"]) + float(fields["used_cpu_sys"])


async def run(args: argparse.Namespace) -> None:
    albums, size, rounds = (200, 5, 3) if args.quick else (1000, 5, 5)
    redis = RedisProcess()
    try:
        wire = RespClient.from_url(redis.url)
        print(machine_line((), f"redis-server {redis.version()}"))
        async with Bot(TOKEN, rate_limiter=None) as bot:
            floor = Contender(None)
            nothing = Contender(None, empty_middleware=True)
            memory = Contender(MemoryAlbumStore())
            shared = Contender(RedisAlbumStore(wire))
            updates = parts(albums, size)
            plain = texts(albums * size)
            rows: dict[str, list[float]] = {k: [] for k in ("floor", "memory", "redis",
                                                             "text floor", "text empty", "text memory")}  # fmt: skip
            redis_side: list[float] = []
            for _ in range(rounds):
                for name, contender in (("floor", floor), ("memory", memory), ("redis", shared)):
                    before = await redis_cpu(wire)
                    cpu = await contender.run(bot, updates)
                    if name == "redis":
                        redis_side.append((await redis_cpu(wire) - before) / len(updates))
                        await wire.execute("FLUSHALL")
                    elif name == "memory":
                        memory.albums.store = MemoryAlbumStore()  # type: ignore[union-attr]
                    check(contender.handled, albums, size, whole=name != "floor")
                    rows[name].append(cpu / len(updates))
                rows["text floor"].append(await floor.run(bot, plain) / len(plain))
                rows["text empty"].append(await nothing.run(bot, plain) / len(plain))
                rows["text memory"].append(await memory.run(bot, plain) / len(plain))
            lat_memory = await latency(memory, bot, albums // 5, size)
            lat_redis = await latency(shared, bot, albums // 5, size)
        await wire.close()
    finally:
        redis.close()

    def us(name: str) -> float:
        return statistics.median(rows[name]) * 1e6

    print(f"\n{albums} albums of {size} parts, {rounds} rounds, delay {DELAY * 1000:.0f} ms; "
          "medians over rounds\n")  # fmt: skip
    print("| path | CPU µs per part | added per part |")
    print("|:---|---:|---:|")
    print(f"| no middleware (each part its own call) | {us('floor'):.1f} | — |")
    print(f"| AlbumMiddleware, memory store | {us('memory'):.1f} | "
          f"{us('memory') - us('floor'):+.1f} |")  # fmt: skip
    print(f"| AlbumMiddleware, Redis store (this process) | {us('redis'):.1f} | "
          f"{us('redis') - us('floor'):+.1f} |")  # fmt: skip
    print(f"| ... and redis-server's own CPU | {statistics.median(redis_side) * 1e6:.1f} | |")
    print(f"| a text message, no middleware | {us('text floor'):.2f} | — |")
    print(f"| a text message, an empty outer middleware | {us('text empty'):.2f} | "
          f"{us('text empty') - us('text floor'):+.2f} |")  # fmt: skip
    print(f"| a text message, AlbumMiddleware installed | {us('text memory'):.2f} | "
          f"{us('text memory') - us('text floor'):+.2f} |")  # fmt: skip
    print("\n| store | added latency, median | p99 | (beyond the delay) |")
    print("|:---|---:|---:|:---|")
    for name, values in (("memory", lat_memory), ("Redis", lat_redis)):
        q = statistics.quantiles(values, n=100)
        print(f"| {name} | {statistics.median(values):.2f} ms | {q[98]:.2f} ms | "
              f"{len(values)} albums |")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--quick", action="store_true", help="fewer albums and rounds")
    asyncio.run(run(parser.parse_args(argv)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
