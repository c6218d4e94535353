"""``--redis`` and every ``from_url`` work without redis-py (the ``tgfast[redis]`` extra):
tgfast sends every command through its own ``RespClient``. Each test runs a child
Python in which redis-py cannot be imported (a ``sitecustomize`` puts a finder first on
``sys.meta_path`` that refuses it), against a real redis-server.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import textwrap
from pathlib import Path

import aiohttp
import pytest
from redis_server import RedisServer
from server_support import TgfastProcess, message, post, subprocess_env, tgfast_command

from tgfast.testing import FakeTelegram

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="redis-server")

BLOCKER = '''
import sys


class _NoRedisPy:
    """redis-py is not installed, as far as this interpreter can tell."""

    def find_spec(self, name, path=None, target=None):
        if name == "redis" or name.startswith("redis."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _NoRedisPy())
'''

BOT = """
from tgfast import Dispatcher, F
from tgfast.fsm import FSMContext
from tgfast.types import Message

dp = Dispatcher()


@dp.message(F.text)
async def echo(message: Message, state: FSMContext) -> None:
    data = await state.update_data(seen=(await state.get_data()).get("seen", 0) + 1)
    await message.answer(f"{message.text} #{data['seen']}")
"""

SECRET = "no-redis-py"


@pytest.fixture
def without_redis_py(tmp_path: Path) -> dict[str, str]:
    """The environment of a child Python without redis-py."""
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(BLOCKER)
    env = subprocess_env()
    env["PYTHONPATH"] = os.pathsep.join((str(blocker), env["PYTHONPATH"]))
    return env


async def run_python(code: str, env: dict[str, str], cwd: Path) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-W", "error", "-c", textwrap.dedent(code), cwd=cwd, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_the_blocker_hides_redis_py(without_redis_py: dict[str, str], tmp_path: Path) -> None:
    code, out, err = await run_python(
        "import redis", without_redis_py, tmp_path
    )  # the premise of the other tests
    assert code == 1 and "No module named 'redis'" in err, (out, err)


async def test_every_from_url_works_without_redis_py(
    without_redis_py: dict[str, str], tmp_path: Path, redis_url: str
) -> None:
    code, out, err = await run_python(
        f"""
        import asyncio
        from tgfast.fsm.storage.base import StorageKey
        from tgfast.redis import (RedisLeaderLock, RedisSeenUpdates,
                                  RedisShared, RedisStorage, RespClient, connect_redis)
        from tgfast.fsm.storage.redis import RedisEventIsolation

        URL = {redis_url!r}

        async def main():
            storage = RedisStorage.from_url(URL, state_ttl=60)
            assert isinstance(storage.redis, RespClient), storage.redis
            key = StorageKey(bot_id=1, chat_id=2, user_id=3)
            await storage.set_state(key, "Form:name")
            await storage.update_data(key, {{"name": "Ann"}})
            print("state", await storage.get_state(key), await storage.get_data(key))
            await storage.close()
            shared = RedisShared.from_url(URL, bot_id=1)
            await shared.check()
            print("shared", await shared.storage.get_state(key))
            await shared.close()
            seen = RedisSeenUpdates.from_url(URL)
            print("seen", (await seen.claim(1, 7)).name)
            await seen.close()
            lock = RedisLeaderLock.from_url(URL, key="lock")
            print("lock", await lock.try_acquire())
            await lock.close()
            isolation = RedisEventIsolation.from_url(URL)
            await isolation.close()
            for make in (lambda: RedisStorage.from_url(URL, socket_keepalive=True),
                         lambda: connect_redis(URL)):
                try:
                    make()
                except ModuleNotFoundError as exc:
                    print("refused:", exc)

        asyncio.run(main())
        """,
        without_redis_py,
        tmp_path,
    )
    assert code == 0, err
    assert err == ""
    lines = out.splitlines()
    assert lines[:4] == [
        "state Form:name {'name': 'Ann'}", "shared Form:name", "seen NEW", "lock True"
    ]  # fmt: skip
    # what does need redis-py says so in one line, naming the extra
    assert lines[4] == (
        "refused: RedisStorage.from_url: the options socket_keepalive are redis-py's, "
        "which is not installed (pip install 'tgfast[redis]')"
    )
    assert lines[5].startswith("refused: connect_redis() makes a redis-py client")
    assert "pip install 'tgfast[redis]'" in lines[5]


async def test_the_cli_serves_with_redis_without_redis_py(
    without_redis_py: dict[str, str], tmp_path: Path, redis_url: str, fake: FakeTelegram
) -> None:
    (tmp_path / "bot.py").write_text(textwrap.dedent(BOT))
    env = {"PYTHONPATH": without_redis_py["PYTHONPATH"]}
    bot, url = await TgfastProcess.start(
        "webhook", "bot:dp", "--port", "0", "--secret", SECRET, "--redis", redis_url,
        "--token", fake.token, "--api-url", fake.url, "--no-rate-limit",
        cwd=tmp_path, ready=re.compile(r"listening on (http://\S+)"), env=env,
    )  # fmt: skip
    try:
        async with aiohttp.ClientSession() as http:
            for n in (1, 2):
                assert (await post(http, url, message(n, 42, f"hi{n}"), secret=SECRET))[0] == 200
            for _ in range(200):
                if len(fake.sent_messages(42)) == 2:
                    break
                await asyncio.sleep(0.02)
        # the second answer counted the first: the FSM data went through Redis
        assert [m["text"] for m in fake.sent_messages(42)] == ["hi1 #1", "hi2 #2"]
        assert await bot.stop() == 0, "".join(bot.log)
    finally:
        await bot.close()
    log = "".join(bot.log)
    assert "sharing FSM state, seen update ids" in log
    assert "Traceback" not in log


@pytest.mark.parametrize(
    ("redis", "error"),
    [
        ("redis+sentinel://127.0.0.1:26379", "--redis: bad redis URL: no service name"),
        ("redis://h/0?socket_timeout=1", "--redis: bad redis URL: unsupported option(s) "
         "socket_timeout (only db); for other options build a redis-py client (pip install "
         "'tgfast[redis]')"),
        ("http://h", "--redis: bad redis URL: scheme 'http'"),
    ],
)  # fmt: skip
async def test_a_bad_redis_url_is_one_line_without_redis_py(
    without_redis_py: dict[str, str], tmp_path: Path, redis: str, error: str
) -> None:
    (tmp_path / "bot.py").write_text(textwrap.dedent(BOT))
    proc = await asyncio.create_subprocess_exec(
        *tgfast_command("webhook", "bot:dp", "--token", "1:a", "--redis", redis),
        cwd=tmp_path, env=without_redis_py,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err = await asyncio.wait_for(proc.communicate(), 60)
    text = err.decode()
    assert proc.returncode == 2, text
    assert text.count("\n") == 1 and error in text, text


async def test_a_redis_that_is_down_is_one_line_without_redis_py(
    without_redis_py: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "bot.py").write_text(textwrap.dedent(BOT))
    down = RedisServer()  # a port nothing listens on
    try:
        proc = await asyncio.create_subprocess_exec(
            *tgfast_command("webhook", "bot:dp", "--token", "1:a", "--port", "0",
                            "--redis", down.url),
            cwd=tmp_path, env=without_redis_py,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        _, err = await asyncio.wait_for(proc.communicate(), 60)
    finally:
        down.close()
    text = err.decode()
    assert proc.returncode == 1, text
    assert "Traceback" not in text and "redis" not in text.split("cannot reach")[0].lower()
    assert f"cannot reach Redis at {down.url}" in text, text
