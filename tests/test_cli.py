"""The ``tgfast`` command end to end, as subprocesses, against FakeTelegram."""

from __future__ import annotations

import asyncio
import re
import socket
import textwrap
import urllib.parse
from collections.abc import AsyncIterator
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest
from aiohttp import web
from server_support import TgfastProcess, message, post, subprocess_env, tgfast_command

import tgfast
from tgfast import Dispatcher
from tgfast.cli import main
from tgfast.server.loader import AppLoadError, load_dispatcher
from tgfast.testing import FakeTelegram

ECHO_MODULE = """
from tgfast import Dispatcher, F
from tgfast.types import Message

dp = Dispatcher()


@dp.message(F.text)
async def echo(message: Message) -> None:
    await message.answer(message.text or "")


def make_dp() -> Dispatcher:
    return dp


def needs_args(token: str) -> Dispatcher:
    return dp


not_a_dispatcher = 42
"""

_LISTENING = re.compile(r"listening on (http://\S+)")
_FAKE_FEED = re.compile(r"feed it: .* (http://\S+)/fake/updates")


@pytest.fixture
def app_dir(tmp_path: Path) -> Path:
    (tmp_path / "echo_app.py").write_text(textwrap.dedent(ECHO_MODULE))
    return tmp_path


async def run_cli(*args: str, cwd: Path, timeout: float = 30) -> tuple[int, str, str]:
    """Run ``tgfast ARGS`` to the end without blocking the loop (the fake lives in it)."""
    proc = await asyncio.create_subprocess_exec(
        *tgfast_command(*args), cwd=cwd, env=subprocess_env(),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), timeout)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def wait_for(condition: object, timeout: float = 10.0) -> None:
    async def loop() -> None:
        while not condition():  # type: ignore[operator]
            await asyncio.sleep(0.01)

    await asyncio.wait_for(loop(), timeout)


# -- the command line itself ----------------------------------------------------------------


async def test_version(tmp_path: Path) -> None:
    code, out, _ = await run_cli("--version", cwd=tmp_path)
    build = "compiled" if tgfast.__speedups__ else "pure-Python"
    assert code == 0
    assert (
        out.strip() == f"tgfast {tgfast.__version__} ({build} build, Bot API {tgfast.API_VERSION})"
    )


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["webhook", "echo_app:dp"], "no bot token: pass --token, set TGFAST_TOKEN or BOT_TOKEN"),
        (["polling", "echo_app:dp", "--token", "1:a", "--workers", "2"],
         "polling with --workers 2 needs --redis"),
        (["webhook", "echo_app:dp", "--fake", "--workers", "2"], "--fake runs one process"),
        (["webhook", "echo_app:dp", "--fake", "--token", "1:a"], "drop --token and --api-url"),
        (["webhook", "echo_app:dp", "--fake", "--redis", "redis://127.0.0.1:1"],
         "--fake keeps its state in the process: drop --redis"),
        (["webhook", "echo_app:missing", "--fake"], "has no attribute 'missing'"),
        (["webhook", "echo_app:not_a_dispatcher", "--fake"], "expected a Dispatcher, got int"),
        (["webhook", "echo_app:needs_args", "--fake"], "neither a Dispatcher nor a function"),
        (["polling", "no_such_module:dp", "--fake"], "no module named 'no_such_module'"),
        (["webhook", "echo_app:dp", "--token", "not-a-token"], "malformed bot token"),
        (["webhook", "echo_app:dp", "--fake", "--secret", "has spaces"], "secret_token"),
        # a URL or port that cannot work: refused before anything starts, in one line
        (["webhook", "echo_app:dp", "--token", "1:a", "--api-url", "http://[::1"],
         "--api-url: not a valid URL: 'http://[::1'"),
        (["webhook", "echo_app:dp", "--token", "1:a", "--api-url", "http://127.0.0.1:99999"],
         "--api-url: not a valid URL: 'http://127.0.0.1:99999' (Port out of range"),
        (["polling", "echo_app:dp", "--token", "1:a", "--api-url", "http://h:0"],
         "--api-url: port out of range 1-65535"),
        (["webhook-info", "--token", "1:a", "--api-url", "http://[::1"], "--api-url"),
        (["set-webhook", "https://x/h", "--token", "1:a", "--api-url", "ftp://h"],
         "--api-url: not an http(s) URL"),
        (["webhook", "echo_app:dp", "--fake", "--port", "65536"],
         "--port: out of range 0-65535, got 65536"),
        (["webhook", "echo_app:dp", "--fake", "--port", "-1"], "--port: out of range"),
    ],
)  # fmt: skip
async def test_usage_errors_exit_2_with_a_reason(
    app_dir: Path, args: list[str], error: str
) -> None:
    code, out, err = await run_cli(*args, cwd=app_dir)
    assert code == 2, err
    assert error in err
    assert "Traceback" not in err
    if "--api-url" in error or "--port" in error:  # checked first: nothing else ran
        assert err.count("\n") == 1 and err.startswith("tgfast "), err
        assert out == ""


def test_the_console_script_is_declared() -> None:
    (script,) = entry_points(group="console_scripts", name="tgfast")  # the installed build's
    assert script.value == "tgfast.cli:main"
    assert callable(main)


def test_load_dispatcher_forms(app_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(app_dir)
    monkeypatch.syspath_prepend(str(app_dir))
    by_module = load_dispatcher("echo_app:dp")
    assert isinstance(by_module, Dispatcher)
    assert load_dispatcher("echo_app") is by_module  # the attribute defaults to dp
    assert load_dispatcher("echo_app:make_dp") is by_module  # a factory
    by_file = load_dispatcher(f"{app_dir / 'echo_app.py'}:dp")
    assert isinstance(by_file, Dispatcher)
    with pytest.raises(AppLoadError, match="no such file"):
        load_dispatcher(f"{app_dir / 'nope.py'}:dp")
    with pytest.raises(AppLoadError, match="expected a Dispatcher, got int"):
        load_dispatcher("echo_app:not_a_dispatcher")


# -- serving --------------------------------------------------------------------------------


async def test_webhook_fake_end_to_end(app_dir: Path) -> None:
    served, base = await TgfastProcess.start(
        "webhook", "echo_app:dp", "--fake", "--port", "0", "--no-uvloop",
        cwd=app_dir, ready=_FAKE_FEED,
    )  # fmt: skip
    try:
        async with aiohttp.ClientSession() as http:
            async with http.post(f"{base}/fake/updates", json={"text": "hi", "chat_id": 5}) as r:
                [delivered] = await r.json()
            assert delivered["status"] == 200
            async with http.get(f"{base}/fake/calls", params={"after": "0", "wait": "10"}) as r:
                calls = (await r.json())["calls"]
            while not any(c["method"] == "sendMessage" for c in calls):
                async with http.get(f"{base}/fake/calls", params={"after": "0", "wait": "1"}) as r:
                    calls = (await r.json())["calls"]
            methods = [c["method"] for c in calls]
            assert methods[0] == "setWebhook"  # registered on the fake, with a secret
            assert calls[0]["params"]["secret_token"]
            [send] = [c for c in calls if c["method"] == "sendMessage"]
            assert send["params"] == {"chat_id": 5, "text": "hi"}
            # the secret is enforced: a post without it is refused
            async with http.post(f"{base}/webhook", json=message(99, 5, "forged")) as r:
                assert r.status == 403
            async with http.get(f"{base}/metrics") as r:
                assert 'tgfast_updates_handled_total{kind="message"} 1' in await r.text()
    finally:
        code = await served.stop()
    assert code == 0, "".join(served.log)
    assert any("bot -> sendMessage" in line for line in served.log)


async def test_webhook_with_a_token_registers_the_webhook_and_serves(
    app_dir: Path, fake: FakeTelegram
) -> None:
    served, url = await TgfastProcess.start(
        "webhook", "echo_app:dp", "--token", fake.token, "--api-url", fake.url,
        "--port", "0", "--secret", "cli-secret", "--webhook-url", "http://127.0.0.1:1/placeholder",
        "--no-rate-limit", "--reply-mode",
        cwd=app_dir, ready=_LISTENING,
    )  # fmt: skip
    try:
        await wait_for(lambda: fake.webhook is not None)
        assert fake.webhook == {
            "url": "http://127.0.0.1:1/placeholder", "secret_token": "cli-secret",
            "allowed_updates": ["message"], "has_custom_certificate": False,
        }  # fmt: skip
        # Telegram would post to the public URL; the fake posts to where the bot listens
        assert await fake.deliver(message(1, 6, "hello"), url=url) == 200
        await wait_for(lambda: fake.sent_messages(6))
    finally:
        code = await served.stop()
    log = "".join(served.log)
    assert code == 0, log
    assert fake.sent_messages(6)[0]["text"] == "hello"
    assert fake.token not in log and fake.token.split(":")[1] not in log


async def test_a_webhook_path_holding_the_token_is_logged_redacted(
    app_dir: Path, fake: FakeTelegram
) -> None:
    # aiogram's convention: the token in the webhook path, so only Telegram knows it
    path = f"/webhook/{fake.token}"
    served, url = await TgfastProcess.start(
        "webhook", "echo_app:dp", "--token", fake.token, "--api-url", fake.url,
        "--port", "0", "--path", path, "--no-rate-limit", cwd=app_dir, ready=_LISTENING,
    )  # fmt: skip
    try:
        assert url.endswith("/webhook/<token>"), url
        real = url.replace("<token>", fake.token)
        assert await fake.deliver(message(1, 12, "by token path"), url=real) == 200
        await wait_for(lambda: fake.sent_messages(12))
    finally:
        code = await served.stop()
    log = "".join(served.log)
    assert code == 0, log
    assert fake.token.split(":")[1] not in log


async def test_webhook_serves_on_the_path_given_and_nowhere_else(
    app_dir: Path, fake: FakeTelegram
) -> None:
    served, url = await TgfastProcess.start(
        "webhook", "echo_app:dp", "--token", fake.token, "--api-url", fake.url,
        "--port", "0", "--path", "/hook/x", "--no-rate-limit",
        cwd=app_dir, ready=_LISTENING,
    )  # fmt: skip
    try:
        assert url.endswith("/hook/x"), url
        base = url.removesuffix("/hook/x")
        async with aiohttp.ClientSession() as http:
            assert (await post(http, url, message(1, 11, "on the path")))[0] == 200
            await wait_for(lambda: fake.sent_messages(11))
            assert (await post(http, f"{base}/webhook", message(2, 12, "default path")))[0] == 404
            assert (await post(http, f"{base}/hook", message(3, 13, "a prefix")))[0] == 404
            await asyncio.sleep(0.2)  # an answer to either would come now
    finally:
        code = await served.stop()
    assert code == 0, "".join(served.log)
    assert [m["text"] for m in fake.sent_messages()] == ["on the path"]


@pytest.mark.parametrize(
    "variables",
    [
        pytest.param({"BOT_TOKEN": ""}, id="BOT_TOKEN"),
        pytest.param({"TGFAST_TOKEN": "", "BOT_TOKEN": "42:not-this-one"}, id="TGFAST_TOKEN-wins"),
    ],
)
async def test_the_token_from_the_environment(
    app_dir: Path, fake: FakeTelegram, variables: dict[str, str]
) -> None:
    # "" stands for the right token; a wrong one is refused by the fake (401), so the
    # bot answers only when it took the right variable (cli._token: TGFAST_TOKEN first)
    env = {name: value or fake.token for name, value in variables.items()}
    served, url = await TgfastProcess.start(
        "webhook", "echo_app:dp", "--api-url", fake.url, "--port", "0", "--no-rate-limit",
        cwd=app_dir, ready=_LISTENING, env=env,
    )  # fmt: skip
    try:
        assert await fake.deliver(message(1, 21, "from the env"), url=url) == 200
        await wait_for(lambda: fake.sent_messages(21))
    finally:
        code = await served.stop()
    log = "".join(served.log)
    assert code == 0, log
    assert fake.sent_messages(21)[0]["text"] == "from the env"
    assert fake.token not in log


async def test_webhook_listens_on_the_host_given_only(app_dir: Path, fake: FakeTelegram) -> None:
    # Linux routes all of 127.0.0.0/8 to the loopback interface
    served, url = await TgfastProcess.start(
        "webhook", "echo_app:dp", "--token", fake.token, "--api-url", fake.url,
        "--host", "127.0.0.2", "--port", "0", "--no-rate-limit",
        cwd=app_dir, ready=_LISTENING,
    )  # fmt: skip
    try:
        match = re.fullmatch(r"http://127\.0\.0\.2:(\d+)/webhook", url)
        assert match, url
        port = int(match[1])
        assert await fake.deliver(message(1, 31, "on .2"), url=url) == 200
        await wait_for(lambda: fake.sent_messages(31))
        with pytest.raises(ConnectionRefusedError):
            await asyncio.open_connection("127.0.0.1", port)
    finally:
        code = await served.stop()
    assert code == 0, "".join(served.log)
    assert fake.sent_messages(31)[0]["text"] == "on .2"


async def test_polling_end_to_end_confirms_the_offset_on_sigterm(
    app_dir: Path, fake: FakeTelegram
) -> None:
    first = fake.add_update({"message": message(0, 7, "one")["message"]})
    served, _ = await TgfastProcess.start(
        "polling", f"{app_dir / 'echo_app.py'}:make_dp", "--token", fake.token,
        "--api-url", fake.url, "--timeout", "5", "--no-rate-limit",
        cwd=app_dir, ready=re.compile(r"polling: (started)"),
    )  # fmt: skip
    try:
        second = fake.add_update({"message": message(0, 7, "two")["message"]})
        await wait_for(lambda: len(fake.sent_messages(7)) == 2)
    finally:
        code = await served.stop()
    assert code == 0, "".join(served.log)
    assert [m["text"] for m in fake.sent_messages(7)] == ["one", "two"]
    calls = [call.params for call in fake.calls_to("getUpdates")]
    confirm = {"offset": second["update_id"] + 1, "limit": 1, "timeout": 0}
    assert confirm in calls
    # the long poll it cancelled may reach the server after it (seen on Python 3.13): it
    # asks from the same offset, so nothing is fetched twice
    assert all(params.get("offset", 0) <= confirm["offset"] for params in calls)
    assert first["update_id"] < second["update_id"]


async def test_polling_fake_is_fed_through_its_control_routes(app_dir: Path) -> None:
    served, base = await TgfastProcess.start(
        "polling", "echo_app:dp", "--fake", "--port", "0", "--timeout", "5",
        cwd=app_dir, ready=_FAKE_FEED,
    )  # fmt: skip
    try:
        async with aiohttp.ClientSession() as http:
            async with http.post(f"{base}/fake/updates", json=[
                {"text": "first", "chat_id": 8}, {"text": "second", "chat_id": 8},
            ]) as r:  # fmt: skip
                assert [d["status"] for d in await r.json()] == [None, None]  # queued
            sent: list[str] = []
            after = 0
            while len(sent) < 2:
                async with http.get(f"{base}/fake/calls", params={"after": after, "wait": 5}) as r:
                    answer = await r.json()
                after = answer["next"]
                sent += [
                    c["params"]["text"] for c in answer["calls"] if c["method"] == "sendMessage"
                ]
    finally:
        code = await served.stop()
    assert code == 0, "".join(served.log)
    assert sent == ["first", "second"]


async def test_a_port_in_use_is_a_clear_error(app_dir: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        code, _, err = await run_cli(
            "webhook", "echo_app:dp", "--fake", "--port", port, cwd=app_dir
        )
    assert code == 1
    assert err.strip().splitlines()[-1].startswith("tgfast webhook: [Errno")
    assert "Traceback" not in err


# -- webhook management ---------------------------------------------------------------------


async def test_set_webhook_info_and_delete(app_dir: Path, fake: FakeTelegram) -> None:
    api = ("--token", fake.token, "--api-url", fake.url)
    code, out, err = await run_cli(
        "set-webhook", "https://bot.example.com/hook", *api, "--secret", "abc",
        "--app", "echo_app:dp", "--max-connections", "5", cwd=app_dir,
    )  # fmt: skip
    assert code == 0, err
    assert out.strip() == "webhook set: https://bot.example.com/hook (allowed_updates: message)"
    assert fake.webhook is not None and fake.webhook["secret_token"] == "abc"
    assert fake.webhook["max_connections"] == 5

    fake.add_update({"message": message(0, 1, "pending")["message"]})
    code, out, err = await run_cli("webhook-info", *api, cwd=app_dir)
    assert code == 0, err
    lines = dict(re.split(r"\s{2,}", line.strip(), maxsplit=1) for line in out.splitlines())
    assert lines["url"] == "https://bot.example.com/hook"
    assert lines["pending_update_count"] == "1"
    assert lines["allowed_updates"] == "['message']"

    code, out, err = await run_cli("delete-webhook", *api, "--drop-pending-updates", cwd=app_dir)
    assert code == 0, err
    assert out.strip() == "webhook deleted, pending updates dropped"
    assert fake.webhook is None
    [call] = fake.calls_to("deleteWebhook")
    assert call.params == {"drop_pending_updates": True}
    assert fake.token not in out + err


async def test_a_refused_call_exits_1_without_the_token(app_dir: Path, fake: FakeTelegram) -> None:
    fake.fail("setWebhook", error_code=400, description="Bad Request: bad webhook: HTTPS needed")
    code, _, err = await run_cli(
        "set-webhook", "http://insecure", "--token", fake.token, "--api-url", fake.url,
        cwd=app_dir,
    )  # fmt: skip
    assert code == 1
    assert "bad webhook: HTTPS needed" in err
    assert fake.token not in err


@pytest.fixture
async def echoing_upstream() -> AsyncIterator[str]:
    """A Bot API base that answers every call 404, echoing the path percent-encoded
    (``/bot123%3AAAH...``) as some proxies and servers do: in a JSON description for
    ``/json/...``, in an HTML page otherwise."""

    async def echo(request: web.Request) -> web.Response:
        path = urllib.parse.quote(request.path, safe="/")
        if request.path.startswith("/json/"):
            body = {"ok": False, "error_code": 404, "description": f"Not Found: {path}"}
            return web.json_response(body, status=404)
        page = f"<html><h1>404</h1>{path} ({request.path.lower()})</html>"
        return web.Response(status=404, text=page, content_type="text/html")

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", echo)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        host, port = runner.addresses[0][:2]
        yield f"http://{host}:{port}"
    finally:
        await runner.cleanup()


@pytest.mark.parametrize("form", ["json", "html"])
async def test_an_upstream_echoing_the_encoded_token_never_shows_it(
    app_dir: Path, echoing_upstream: str, form: str
) -> None:
    token = "123456789:AAHsecret-Part_of-the-Token0123456789"
    secret = token.split(":")[1]
    api = f"{echoing_upstream}/json" if form == "json" else echoing_upstream
    code, out, err = await run_cli("webhook-info", "--token", token, "--api-url", api, cwd=app_dir)
    assert code == 1, err
    assert "webhook-info: getWebhookInfo" in err and "<token>" in err
    # a webhook that registers itself on start fails the same way, in a served process
    code2, out2, err2 = await run_cli(
        "webhook", "echo_app:dp", "--token", token, "--api-url", api, "--port", "0",
        "--webhook-url", "https://bot.example.com/hook", "--no-uvloop", cwd=app_dir,
    )  # fmt: skip
    assert code2 == 1, err2
    for text in (out, err, out2, err2):
        for form_of_it in (secret, secret.lower(), urllib.parse.quote(secret)):
            assert form_of_it not in text, text
        assert secret.lower() not in urllib.parse.unquote(text).lower(), text


async def test_fake_mode_hides_the_secret_and_refuses_ids_that_are_not_integers(
    app_dir: Path,
) -> None:
    secret = "fake-mode-secret_0123456789"
    served, base = await TgfastProcess.start(
        "webhook", "echo_app:dp", "--fake", "--port", "0", "--no-uvloop",
        "--secret", secret, cwd=app_dir, ready=_FAKE_FEED,
    )  # fmt: skip
    try:
        async with aiohttp.ClientSession() as http:
            for bad in (1e308, -1e308, 1.5, "42", True, None, 2**60, [1], {"id": 1}):
                async with http.post(
                    f"{base}/fake/updates", json={"text": "hi", "chat_id": bad}
                ) as r:
                    assert r.status == 400, (bad, r.status, await r.text())
                    assert "chat_id" in (await r.json())["error"]
            for field in ("user_id", "message_id"):
                item = {"text": "hi", "chat_id": 5, field: 1e308}
                async with http.post(f"{base}/fake/updates", json=item) as r:
                    assert r.status == 400, (field, await r.text())
                    assert field in (await r.json())["error"]
            async with http.post(f"{base}/fake/updates", json={"text": "hi", "chat_id": 5}) as r:
                assert r.status == 200
                [delivered] = await r.json()
                assert delivered["status"] == 200  # the fake knows the secret and uses it
            calls: list[dict[str, Any]] = []
            while not any(c["method"] == "sendMessage" for c in calls):
                async with http.get(f"{base}/fake/calls", params={"after": "0", "wait": "1"}) as r:
                    raw = await r.text()
                    calls = orjson.loads(raw)["calls"]
                assert secret not in raw
            assert calls[0]["method"] == "setWebhook"
            assert calls[0]["params"]["secret_token"] == "<secret>"
            async with http.post(f"{base}/webhook", json=message(99, 5, "x")) as r:
                assert r.status == 403  # hidden from view, still enforced
    finally:
        code = await served.stop()
    assert code == 0, "".join(served.log)
    log = "".join(served.log)
    assert "bot -> setWebhook" in log and "<secret>" in log
    assert secret not in log
    assert "Traceback" not in log


@pytest.mark.parametrize(("flag", "loop"), [("--uvloop", "uvloop"), ("--no-uvloop", "asyncio")])
async def test_the_event_loop_is_chosen_by_flag(app_dir: Path, flag: str, loop: str) -> None:
    served, _ = await TgfastProcess.start(
        "webhook", "echo_app:dp", "--fake", "--port", "0", flag, "--log-level", "debug",
        cwd=app_dir, ready=_FAKE_FEED,
    )  # fmt: skip
    code = await served.stop()
    log = "".join(served.log)
    assert code == 0, log
    assert f"loop={loop}" in log


SESSION_MODULE = """
from tgfast import Bot, Dispatcher
from tgfast.types import Message

dp = Dispatcher()


@dp.message()
async def which(message: Message, bot: Bot) -> None:
    await message.answer(type(bot.session).__name__)
"""


@pytest.mark.parametrize(("flag", "session"), [((), "AiohttpSession"),
                                               (("--transport", "fast"), "FastSession")])  # fmt: skip
async def test_the_transport_is_chosen_by_flag(
    tmp_path: Path, fake: FakeTelegram, flag: tuple[str, ...], session: str
) -> None:
    (tmp_path / "which_app.py").write_text(SESSION_MODULE)
    fake.add_update({"message": message(0, 9, "which?")["message"]})
    served, _ = await TgfastProcess.start(
        "polling", "which_app:dp", "--token", fake.token, "--api-url", fake.url,
        "--timeout", "5", "--no-rate-limit", *flag,
        cwd=tmp_path, ready=re.compile(r"polling: (started)"),
    )  # fmt: skip
    try:
        await wait_for(lambda: len(fake.sent_messages(9)) == 1)
    finally:
        code = await served.stop()
    assert code == 0, "".join(served.log)
    assert fake.sent_messages(9)[0]["text"] == session
