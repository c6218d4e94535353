"""Exactly once across a Redis outage: a real ``tgfast webhook --redis`` process and a
real redis-server that goes away while acknowledged updates are being handled.

Twenty updates are acknowledged and held in their handlers; Redis then goes away
(stopped with its data, stopped without it, or replaced by a "promoted replica": a
second server started from a dump taken before the done marks were written). The
handlers finish meanwhile, so their done marks cannot be written at once. Once Redis
is back, a redelivery of every update must be acknowledged and dropped, and after a
SIGTERM and a new start of the bot no update may be handled a second time (the new
process must find nothing to take over).
"""

from __future__ import annotations

import asyncio
import re
import shutil
import sys
import textwrap
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiohttp
import pytest
from redis.asyncio import Redis
from redis_server import RedisServer
from server_support import TgfastProcess, deliver_like_telegram, message, post

from tgfast.testing import FakeTelegram

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals"),
]

SECRET = "journal-outage"
UPDATES = 20
_LISTENING = re.compile(r"listening on (http://\S+)")

BOT_MODULE = """
import asyncio
from pathlib import Path

from tgfast import Dispatcher
from tgfast.types import Message

dp = Dispatcher()
GATE = Path({gate!r})


@dp.message()
async def echo(message: Message) -> None:
    while not GATE.exists():  # held until the test opens the gate
        await asyncio.sleep(0.02)
    await message.answer(message.text or "")
"""


async def eventually(check: Callable[[], Awaitable[bool]], what: str, within: float = 20.0) -> None:
    deadline = time.monotonic() + within
    while not await check():
        assert time.monotonic() < deadline, f"not within {within} s: {what}"
        await asyncio.sleep(0.05)


async def start_bot(
    fake: FakeTelegram, tmp_path: Path, redis_url: str
) -> tuple[TgfastProcess, str]:
    module = tmp_path / "outage_bot.py"
    module.write_text(textwrap.dedent(BOT_MODULE.format(gate=str(tmp_path / "gate"))))
    return await TgfastProcess.start(
        "webhook", f"{module}:dp", "--port", "0", "--secret", SECRET, "--redis", redis_url,
        "--token", fake.token, "--api-url", fake.url, "--no-rate-limit",
        cwd=tmp_path, ready=_LISTENING,
    )  # fmt: skip


@pytest.mark.parametrize("outage", ["restart-with-data", "restart-without-data", "failover"])
async def test_acknowledged_updates_are_handled_once_across_a_redis_outage(
    fake: FakeTelegram, tmp_path: Path, outage: str
) -> None:
    first = RedisServer()
    second = RedisServer(port=first.port)  # the promoted replica takes the address over
    first.start()
    bot_id = int(fake.token.partition(":")[0])
    updates = [message(n, 100 + n, f"u{n}") for n in range(1, UPDATES + 1)]
    processes: list[TgfastProcess] = []
    try:
        bot, url = await start_bot(fake, tmp_path, first.url)
        processes.append(bot)
        async with aiohttp.ClientSession() as http:
            for update in updates:  # acknowledged, claimed, held in their handlers
                assert (await post(http, url, update, secret=SECRET))[0] == 200

            if outage == "failover":
                # the replica got everything up to here; what follows is lost with the
                # primary (asynchronous replication): the done marks
                redis = Redis.from_url(first.url)
                await redis.save()
                await redis.aclose()
                second.directory.rmdir()
                shutil.copytree(first.directory, second.directory)
            else:
                first.stop(save=outage == "restart-with-data")
            (tmp_path / "gate").touch()

            async def all_echoed() -> bool:
                return len(fake.sent_messages()) >= UPDATES

            await eventually(all_echoed, "20 echoes")
            await asyncio.sleep(0.5)  # the done marks were tried (and failed, but failover)
            if outage == "failover":
                first.kill()
                second.start()
            else:
                await asyncio.sleep(4)  # Redis restarted 4 s later
                first.start()

            redis = Redis.from_url(first.url)
            try:

                async def all_done() -> bool:
                    marks = await redis.mget([f"tgfast:seen:{bot_id}:{n}" for n in range(1, 21)])
                    return all(mark == b"done" for mark in marks)

                if outage != "failover":  # the done marks are written once Redis is back
                    await eventually(all_done, "the done marks after the restart")
                for update in updates:  # lost 200s: Telegram delivers them again
                    await deliver_like_telegram(http, url, update, secret=SECRET, deadline=15)

                assert await bot.stop() == 0, "".join(bot.log)
                # a clean stop leaves nothing of its own to take over
                assert await redis.keys("tgfast:seen:owned:*") == []
                bot, _ = await start_bot(fake, tmp_path, first.url)
                processes.append(bot)
                await asyncio.sleep(1.0)  # a start takes over what dead workers left: none
                assert await bot.stop() == 0, "".join(bot.log)
            finally:
                await redis.aclose()
    finally:
        for process in processes:
            await process.close()
        first.close()
        second.close()

    echoes = Counter(m["text"] for m in fake.sent_messages())
    assert echoes == Counter(f"u{n}" for n in range(1, UPDATES + 1)), echoes
    assert not any("took over" in line for p in processes for line in p.log)
