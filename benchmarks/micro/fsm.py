"""FSM benchmark: a two-step conversation through the dispatcher, tgfast against aiogram,
with each one's MemoryStorage and RedisStorage (one redis-server, started here).

    python benchmarks/micro/fsm.py                  # about 20 s on 2 cores
    python benchmarks/micro/fsm.py --quick          # a few seconds, noisier
    python benchmarks/micro/fsm.py --count 5 --rounds 1   # a smoke run

One conversation is two message updates fed to ``dp.feed_update(bot, update)``:

1. no state: the handler calls ``set_state(Form.name)`` and ``update_data(step=1,
   text=...)``;
2. in ``Form.name``: the handler calls ``get_data()``, checks it, and ``clear()``.

Both frameworks run their dispatcher as users run it: tgfast with
``FSMContextMiddleware(storage)`` as the update outer middleware, aiogram with
``Dispatcher(storage=storage)``; the handlers are filtered by state (``Form.name``,
``StateFilter(None)``). The updates are decoded once, up front (decoding has its own
benchmark). Both Redis storages are made from the URL of the same server: aiogram's
``RedisStorage(Redis.from_url(url))`` (redis-py), tgfast's ``RedisStorage.from_url(url)``
(its commands go through ``tgfast.redis.RespClient``). Nothing reaches Telegram: the handlers send nothing.
The ``redis-aiogram-layout`` row runs tgfast's storage with ``key_builder=
DefaultKeyBuilder(...)``: aiogram's key names and JSON data string, which a bot moving
from aiogram keeps to keep its users' conversations (aiogram's contender is the same).

Contenders take turns: each round runs every contender (in rotating order) for
``count`` conversations after a short warm-up; the figure is the median over rounds
of the mean time per conversation, and the ratio the median over rounds of
aiogram's time over tgfast's in the same round. A round whose handlers did not see every
conversation through (the data of step 1 in step 2, the state cleared) fails the run:
a broken contender cannot post a time.
"""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import socket  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Awaitable, Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import Any  # noqa: E402

from machine import machine_line  # noqa: E402

STORAGES = ("memory", "redis", "redis-aiogram-layout")
FRAMEWORKS = ("tgfast", "aiogram")
CHAT = {"id": 7, "type": "private", "first_name": "Ann"}
USER = {"id": 7, "is_bot": False, "first_name": "Ann"}
TOKEN = "123456:AAbenchmarkTokenForFsm_0123456789"


def update_json(update_id: int, text: str) -> dict[str, Any]:
    message = {"message_id": update_id, "date": 1, "chat": CHAT, "from": USER, "text": text}
    return {"update_id": update_id, "message": message}


@dataclass
class Contender:
    """One framework with one storage: ``conversation()`` runs one conversation."""

    name: str
    storage: str
    conversation: Callable[[], Awaitable[None]]
    completed: Callable[[], int]
    close: Callable[[], Awaitable[None]]
    times: list[float] = field(default_factory=list)


# -- contenders -----------------------------------------------------------------------


async def tgfast_contender(storage_kind: str, url: str | None) -> Contender:
    from tgfast import Bot, Dispatcher, convert
    from tgfast.fsm import (
        FSMContext,
        FSMContextMiddleware,
        MemoryStorage,
        State,
        StateFilter,
        StatesGroup,
    )
    from tgfast.types import Message, Update

    if storage_kind == "redis":
        from tgfast.fsm.storage.redis import RedisStorage

        storage: Any = RedisStorage.from_url(url, key_prefix="bench-tgfast")  # type: ignore[arg-type]
    elif storage_kind == "redis-aiogram-layout":  # what a bot moving from aiogram may keep
        from tgfast.fsm.storage.redis import DefaultKeyBuilder, RedisStorage

        layout = DefaultKeyBuilder(prefix="bench-tgfast-aio", with_bot_id=True)
        storage = RedisStorage.from_url(url, key_builder=layout)  # type: ignore[arg-type]
    else:
        storage = MemoryStorage()

    class Form(StatesGroup):
        name = State()

    done = [0]
    dp = Dispatcher()
    dp.update.outer_middleware(FSMContextMiddleware(storage))

    @dp.message(Form.name)
    async def second(message: Message, state: FSMContext) -> None:
        data = await state.get_data()
        await state.clear()
        if data == {"step": 1, "text": "go"}:
            done[0] += 1

    @dp.message(StateFilter(None))
    async def first(message: Message, state: FSMContext) -> None:
        await state.set_state(Form.name)
        await state.update_data(step=1, text=message.text)

    bot = Bot(TOKEN, rate_limiter=None)
    one, two = convert(Update, update_json(1, "go")), convert(Update, update_json(2, "Ann"))
    feed = dp.feed_update

    async def conversation() -> None:
        await feed(bot, one)
        await feed(bot, two)

    async def close() -> None:
        await storage.close()
        await bot.session.close()

    return Contender("tgfast", storage_kind, conversation, lambda: done[0], close)


async def aiogram_contender(storage_kind: str, url: str | None) -> Contender:
    from aiogram import Bot, Dispatcher
    from aiogram.filters import StateFilter
    from aiogram.fsm.context import FSMContext
    from aiogram.fsm.state import State, StatesGroup
    from aiogram.types import Message, Update

    if storage_kind.startswith("redis"):
        from aiogram.fsm.storage.redis import RedisStorage
        from redis.asyncio import Redis

        storage: Any = RedisStorage(Redis.from_url(url))  # type: ignore[arg-type]
    else:
        from aiogram.fsm.storage.memory import MemoryStorage

        storage = MemoryStorage()

    class Form(StatesGroup):
        name = State()

    done = [0]
    dp = Dispatcher(storage=storage)

    @dp.message(Form.name)
    async def second(message: Message, state: FSMContext) -> None:
        data = await state.get_data()
        await state.clear()
        if data == {"step": 1, "text": "go"}:
            done[0] += 1

    @dp.message(StateFilter(None))
    async def first(message: Message, state: FSMContext) -> None:
        await state.set_state(Form.name)
        await state.update_data(step=1, text=message.text)

    bot = Bot(TOKEN)
    one = Update.model_validate(update_json(1, "go"), context={"bot": bot})
    two = Update.model_validate(update_json(2, "Ann"), context={"bot": bot})
    feed = dp.feed_update

    async def conversation() -> None:
        await feed(bot, one)
        await feed(bot, two)

    async def close() -> None:
        await storage.close()
        await bot.session.close()

    return Contender("aiogram", storage_kind, conversation, lambda: done[0], close)


# -- redis-server ---------------------------------------------------------------------


class RedisProcess:
    """A throwaway redis-server on 127.0.0.1 (no persistence)."""

    def __init__(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.directory = tempfile.mkdtemp(prefix="tgfast-bench-redis-")
        self.process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", self.directory],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while not self._answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError("redis-server did not start")
            time.sleep(0.01)
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def version(self) -> str:
        out = subprocess.run(["redis-server", "--version"], capture_output=True, text=True)
        return next((p[2:] for p in out.stdout.split() if p.startswith("v=")), "?")

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)


# -- measuring ------------------------------------------------------------------------


async def measure(contenders: list[Contender], count: int, rounds: int, warmup: int) -> None:
    for c in contenders:  # first calls build tables, load scripts, open connections
        for _ in range(warmup):
            await c.conversation()
    for r in range(rounds):
        k = r % len(contenders)
        for c in contenders[k:] + contenders[:k]:
            for _ in range(warmup):
                await c.conversation()
            before = c.completed()
            started = time.perf_counter()
            for _ in range(count):
                await c.conversation()
            elapsed = time.perf_counter() - started
            finished = c.completed() - before
            if finished != count:
                raise RuntimeError(f"{c.name}/{c.storage}: {finished} of {count} conversations "
                                   "completed: the contender is broken")  # fmt: skip
            c.times.append(elapsed / count * 1e6)


def render(contenders: list[Contender], counts: str, rounds: int) -> str:
    """The table: medians over rounds, and the median of the per-round ratios (the two
    contenders of a round ran seconds apart, so a noisy neighbour hits both alike)."""
    by = {(c.name, c.storage): c.times for c in contenders}
    lines = [
        f"µs per conversation (two updates through the dispatcher), median of {rounds} "
        f"rounds of {counts} ({'/'.join(STORAGES)}) conversations:",
        "",
        "| storage | tgfast | aiogram | aiogram / tgfast | bar: tgfast at least as fast |",
        "| --- | ---: | ---: | ---: | --- |",
    ]
    for storage in STORAGES:
        ours, theirs = by["tgfast", storage], by["aiogram", storage]
        ratio = statistics.median(t / o for o, t in zip(ours, theirs, strict=True))
        verdict = "PASS" if ratio >= 1.0 else "FAIL"
        lines.append(
            f"| {storage} | {statistics.median(ours):.1f} | {statistics.median(theirs):.1f} "
            f"| {ratio:.2f}× | {verdict} |"
        )
    if rounds >= 2:
        spread = max(
            (statistics.quantiles(c.times, n=4)[2] - statistics.quantiles(c.times, n=4)[0])
            / statistics.median(c.times)
            for c in contenders
        )
        lines += ["", f"widest spread of a contender's rounds (IQR / median): {spread:.1%}"]
    return "\n".join(lines)


async def run(args: argparse.Namespace) -> int:
    redis = RedisProcess()
    try:
        contenders = []
        for storage in STORAGES:
            for framework in FRAMEWORKS:
                make = tgfast_contender if framework == "tgfast" else aiogram_contender
                contenders.append(await make(storage, redis.url))
        try:
            for storage in STORAGES:
                group = [c for c in contenders if c.storage == storage]
                count = args.count or (3000 if storage == "memory" else 600)
                if args.quick and not args.count:
                    count //= 5
                await measure(group, count, args.rounds, warmup=max(1, min(50, count // 10)))
        finally:
            for c in contenders:
                await c.close()
        if not args.no_machine_line:
            print(machine_line(("aiogram", "redis"), f"redis-server {redis.version()}"))
            print()
        counts = "/".join(
            str(args.count or ((3000 if s == "memory" else 600) // (5 if args.quick else 1)))
            for s in STORAGES
        )
        print("## FSM\n")
        print(render(contenders, counts, args.rounds))
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:  # noqa: ASYNC230 - the runs are over
                json.dump({f"{c.name}/{c.storage}": c.times for c in contenders}, f, indent=1)
    finally:
        redis.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--count",
        type=int,
        default=0,
        help="conversations per round (default 3000 memory, 600 redis)",
    )
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--quick", action="store_true", help="a fifth of the conversations")
    parser.add_argument("--loop", choices=("uvloop", "asyncio"), default="uvloop")
    parser.add_argument("--json", help="also save every round's figures here")
    parser.add_argument("--no-machine-line", action="store_true")
    args = parser.parse_args(argv)  # fmt: skip
    if args.loop == "uvloop":
        import uvloop

        return uvloop.run(run(args))
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
