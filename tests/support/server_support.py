"""Shared pieces of the serving tests: updates, a served bot, a Telegram-like client."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import orjson

import tgfast
from tgfast import Bot, Dispatcher
from tgfast.server import SECRET_HEADER, WebhookServer
from tgfast.testing import FakeTelegram, updates

ROOT = Path(__file__).resolve().parents[2]  # the repository (tests/support/ is two down)


def message(update_id: int, chat_id: int, text: str, **extra: Any) -> dict[str, Any]:
    """A complete message update, as Telegram posts it (message id = update id)."""
    extra.setdefault("from", updates.user(abs(chat_id), "Ann"))
    sent = updates.message(text, chat_id=chat_id, message_id=update_id, date=1, **extra)
    return updates.update(update_id=update_id, message=sent)


def make_bot(fake: FakeTelegram) -> Bot:
    """A bot on the fake, without the rate limiter (tests send fast to few chats)."""
    return Bot(fake.token, server=fake.url, rate_limiter=None)


@asynccontextmanager
async def served(dp: Dispatcher, bot: Bot, **options: Any) -> AsyncIterator[WebhookServer]:
    """A ``WebhookServer`` listening on a free port of 127.0.0.1, stopped at the end."""
    server = WebhookServer(dp, bot, **options)
    await server.start("127.0.0.1", 0)
    try:
        yield server
    finally:
        await server.abort()
        await server.stop()


async def post(
    http: aiohttp.ClientSession,
    url: str,
    update: dict[str, Any] | bytes,
    *,
    secret: str | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, bytes, aiohttp.typedefs.LooseHeaders]:
    """POST one webhook body; (status, body, headers)."""
    data = update if isinstance(update, bytes) else orjson.dumps(update)
    sent = {"Content-Type": "application/json", **(headers or {})}
    if secret is not None:
        sent[SECRET_HEADER] = secret
    async with http.post(url, data=data, headers=sent) as resp:
        return resp.status, await resp.read(), resp.headers


async def deliver_like_telegram(
    http: aiohttp.ClientSession,
    url: str,
    update: dict[str, Any],
    *,
    secret: str | None = None,
    retry_scale: float = 0.01,
    statuses: list[int] | None = None,
    deadline: float = 20.0,
) -> int:
    """Post until a 200, as Telegram does: a 503/429 is retried after ``Retry-After``
    (scaled down), a refused connection or a balancer's 502/504 too. Returns the number
    of attempts; fails after ``deadline`` seconds."""
    give_up = asyncio.get_running_loop().time() + deadline
    attempts = 0
    while True:
        attempts += 1
        try:
            status, _, headers = await post(http, url, update, secret=secret)
        except aiohttp.ClientConnectionError:
            status, headers = 0, {}
        if statuses is not None:
            statuses.append(status)
        if status == 200:
            return attempts
        assert status in (0, 429, 502, 503, 504), status
        assert asyncio.get_running_loop().time() < give_up, f"{update['update_id']}: no 200"
        await asyncio.sleep(float(headers.get("Retry-After", "1")) * retry_scale)


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment for a child ``python -m tgfast``: the tgfast under test first."""
    env = {k: v for k, v in os.environ.items() if k not in ("TGFAST_TOKEN", "BOT_TOKEN")}
    here = str(Path(tgfast.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
    env.update(extra)
    return env


def tgfast_command(*args: str) -> list[str]:
    return [sys.executable, "-W", "error", "-m", "tgfast", *args]


class TgfastProcess:
    """A long-running ``tgfast webhook``/``polling`` process and its log (stderr, a list
    of lines, read as they come).

    Every way out ends the process and reads its log to the end, which is what closes
    the pipe (on Python 3.10 ``wait()`` returns before that): ``wait()`` and ``stop()``
    kill it when it outlasts their timeout, ``close()`` kills it if it still runs.
    """

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.log: list[str] = []
        self._reader: asyncio.Future[None] | None = None

    @classmethod
    async def start(
        cls,
        *args: str,
        cwd: Path,
        ready: re.Pattern[str],
        timeout: float = 30.0,
        env: dict[str, str] | None = None,
    ) -> tuple[TgfastProcess, str]:
        """Start ``tgfast ARGS`` (with ``env`` added to ``subprocess_env()``) and wait for
        a log line matching ``ready``; the process and that match's first group."""
        proc = await asyncio.create_subprocess_exec(
            *tgfast_command(*args),
            cwd=cwd,
            env=subprocess_env(**(env or {})),
            stderr=asyncio.subprocess.PIPE,
        )
        self = cls(proc)
        try:
            match = await asyncio.wait_for(self._read(until=ready), timeout)
            if match is None:
                await self.wait(timeout)
                raise AssertionError(f"tgfast did not start:\n{''.join(self.log)}")
        except BaseException:
            await self.close()
            raise
        self._reader = asyncio.ensure_future(self._read())
        return self, match.group(1)

    async def _read(self, until: re.Pattern[str] | None = None) -> re.Match[str] | None:
        """Append log lines up to the first matching ``until`` (None: to the end)."""
        assert self.proc.stderr is not None
        async for raw in self.proc.stderr:
            self.log.append(raw.decode(errors="replace"))
            if until is not None and (match := until.search(self.log[-1])):
                return match
        return None

    async def wait(self, timeout: float) -> int:
        """Wait for the process to exit and its log to end; its status. Killed if it
        takes longer than ``timeout`` seconds (and the test fails)."""
        try:
            code = await asyncio.wait_for(self.proc.wait(), timeout)
            await asyncio.wait_for(self._to_the_end(), timeout)
        except BaseException:
            await self.close()
            raise
        return code

    async def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM, then ``wait()``; the exit status."""
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
        return await self.wait(timeout)

    async def close(self) -> None:
        """Kill the process if it still runs and read its log to the end."""
        if self.proc.returncode is None:
            self.proc.kill()
        await self.proc.wait()
        await asyncio.wait_for(self._to_the_end(), 10)

    async def _to_the_end(self) -> None:
        if self._reader is None:  # still starting (or failed to): read here
            self._reader = asyncio.ensure_future(self._read())
        await asyncio.shield(self._reader)
