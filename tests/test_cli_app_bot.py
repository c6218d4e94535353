"""``tgfast webhook|polling app:dp`` serving with the app's own ``Bot`` (its defaults
hold), ``--parse-mode`` for a bare dispatcher and ``--local`` for a local Bot API
server: real CLI processes against FakeTelegram."""

from __future__ import annotations

import asyncio
import re
import textwrap
from pathlib import Path

import aiohttp
import pytest
from server_support import TgfastProcess, message, subprocess_env, tgfast_command

from tgfast.testing import FakeTelegram

APP = """
import os

from tgfast import Bot, Dispatcher
from tgfast.defaults import BotDefaults
from tgfast.types import Message

dp = Dispatcher()


@dp.message()
async def bold(message: Message) -> None:
    await message.answer("<b>hi</b>")
"""

INSTANCE_APP = (
    APP
    + """
bot = Bot(os.environ["APP_TOKEN"], server=os.environ["APP_API"],
          defaults=BotDefaults(parse_mode="HTML"))
"""
)

FACTORY_APP = (
    APP
    + """
def make_bot(token: str) -> Bot:
    return Bot(token, server=os.environ["APP_API"], defaults=BotDefaults(parse_mode="HTML"))
"""
)

DOWNLOAD_APP = """
from tgfast import Bot, Dispatcher
from tgfast.types import Message

dp = Dispatcher()


@dp.message()
async def read(message: Message, bot: Bot) -> None:
    file = await bot.get_file("local-file")
    data = await bot.download_file(file.file_path or "")
    await message.answer(data.read().decode())
"""

_LISTENING = re.compile(r"listening on (http://\S+)")
_POLLING = re.compile(r"polling: (started)")
_FAKE_FEED = re.compile(r"feed it: .* (http://\S+)/fake/updates")


@pytest.fixture
def app_dir(tmp_path: Path) -> Path:
    for name, source in [("instance_app", INSTANCE_APP), ("factory_app", FACTORY_APP),
                         ("bare_app", APP), ("download_app", DOWNLOAD_APP)]:  # fmt: skip
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
    return tmp_path


async def wait_for(condition: object, timeout: float = 15.0) -> None:
    async def loop() -> None:
        while not condition():  # type: ignore[operator]
            await asyncio.sleep(0.01)

    await asyncio.wait_for(loop(), timeout)


async def run_cli(*args: str, cwd: Path, **env: str) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        *tgfast_command(*args), cwd=cwd, env=subprocess_env(**env),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode is not None
    return proc.returncode, err.decode()


async def test_webhook_serves_with_the_apps_bot_instance(app_dir: Path, fake: FakeTelegram) -> None:
    served, url = await TgfastProcess.start(
        "webhook", "instance_app:dp", "--port", "0", "--no-rate-limit",
        cwd=app_dir, ready=_LISTENING, env={"APP_TOKEN": fake.token, "APP_API": fake.url},
    )  # fmt: skip
    try:
        assert await fake.deliver(message(1, 6, "hello"), url=url) == 200
        await wait_for(lambda: fake.sent_messages(6))
    finally:
        code = await served.stop()
    log = "".join(served.log)
    assert code == 0, log
    [call] = fake.calls_to("sendMessage")
    assert call.params == {"chat_id": 6, "text": "<b>hi</b>", "parse_mode": "HTML"}
    assert "serving with the app's bot 'bot'" in log and "parse_mode='HTML'" in log
    assert fake.token.split(":")[1] not in log


async def test_polling_calls_the_apps_bot_factory_with_the_token(
    app_dir: Path, fake: FakeTelegram
) -> None:
    served, _ = await TgfastProcess.start(
        "polling", "factory_app:dp", "--bot", "make_bot", "--timeout", "1", "--no-rate-limit",
        cwd=app_dir, ready=_POLLING, env={"TGFAST_TOKEN": fake.token, "APP_API": fake.url},
    )  # fmt: skip
    try:
        fake.add_update(message(1, 8, "hello"))
        await wait_for(lambda: fake.sent_messages(8))
    finally:
        code = await served.stop()
    assert code == 0, "".join(served.log)
    assert fake.calls_to("sendMessage")[0].params["parse_mode"] == "HTML"


async def test_parse_mode_for_a_bare_dispatcher(app_dir: Path, fake: FakeTelegram) -> None:
    served, url = await TgfastProcess.start(
        "webhook", "bare_app:dp", "--port", "0", "--token", fake.token, "--api-url", fake.url,
        "--parse-mode", "html", "--no-rate-limit", cwd=app_dir, ready=_LISTENING,
    )  # fmt: skip
    try:
        assert await fake.deliver(message(1, 6, "hello"), url=url) == 200
        await wait_for(lambda: fake.sent_messages(6))
    finally:
        assert await served.stop() == 0
    assert fake.calls_to("sendMessage")[0].params["parse_mode"] == "HTML"


async def test_fake_mode_keeps_the_apps_bot_defaults(app_dir: Path) -> None:
    served, base = await TgfastProcess.start(
        "webhook", "instance_app:dp", "--fake", "--port", "0", "--no-uvloop",
        cwd=app_dir, ready=_FAKE_FEED, env={"APP_TOKEN": "1:unused", "APP_API": "http://x"},
    )  # fmt: skip
    try:
        async with aiohttp.ClientSession() as http:
            async with http.post(f"{base}/fake/updates", json={"text": "hi", "chat_id": 5}) as r:
                assert (await r.json())[0]["status"] == 200
            sends: list[dict[str, object]] = []
            while not sends:
                async with http.get(f"{base}/fake/calls", params={"wait": "1"}) as r:
                    calls = (await r.json())["calls"]
                sends = [c for c in calls if c["method"] == "sendMessage"]
    finally:
        assert await served.stop() == 0
    assert sends[0]["params"] == {"chat_id": 5, "text": "<b>hi</b>", "parse_mode": "HTML"}


async def test_local_server_downloads_from_its_directory(
    app_dir: Path, tmp_path_factory: pytest.TempPathFactory, fake: FakeTelegram
) -> None:
    local = tmp_path_factory.mktemp("bot-api")
    (local / "doc.txt").write_text("read from the local disk")
    fake.respond("getFile", {"file_id": "local-file", "file_unique_id": "u",
                             "file_path": str(local / "doc.txt")})  # fmt: skip
    served, url = await TgfastProcess.start(
        "webhook", "download_app:dp", "--port", "0", "--token", fake.token,
        "--api-url", fake.url, "--local", "--local-dir", str(local), "--no-rate-limit",
        cwd=app_dir, ready=_LISTENING,
    )  # fmt: skip
    try:
        assert await fake.deliver(message(1, 6, "hello"), url=url) == 200
        await wait_for(lambda: fake.sent_messages(6))
    finally:
        assert await served.stop() == 0
    assert fake.sent_messages(6)[0]["text"] == "read from the local disk"


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["instance_app:dp", "--api-url", "http://127.0.0.1:1"],
         "--api-url: the app's 'bot' is its own Bot"),
        (["instance_app:dp", "--token", "1:x"], "--token: the app's 'bot' is its own Bot"),
        (["bare_app:dp", "--token", "1:x", "--local"], "--local needs --api-url"),
        (["bare_app:dp", "--token", "1:x", "--api-url", "http://127.0.0.1:1", "--local"],
         "--local needs --local-dir"),
        (["bare_app:dp", "--token", "1:x", "--local-dir", "/tmp"], "--local-dir goes with --local"),
        (["bare_app:dp", "--bot", "nope", "--token", "1:x"], "--bot nope: expected a Bot"),
        (["bare_app:dp"], "no bot token"),
    ],
)  # fmt: skip
async def test_usage_errors(app_dir: Path, args: list[str], error: str) -> None:
    code, err = await run_cli(
        "webhook", *args, "--port", "0", cwd=app_dir, APP_TOKEN="5:abc", APP_API="http://x"
    )
    assert code == 2, err
    assert error in err, err
