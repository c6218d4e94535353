"""Logging the ecosystem's way (issue #27): the app's own configuration wins over the
command's default, ``--log-config`` takes a dictConfig file, ``--log-format json`` writes
one JSON object per line with the update's fields, warnings reach the log, an app that
fails to import shows its own traceback."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import aiohttp
import pytest
from server_support import TgfastProcess, message, post, subprocess_env, tgfast_command

from tgfast import Bot, Dispatcher
from tgfast.decoding import convert
from tgfast.logs import (
    EscapingFormatter,
    JsonFormatter,
    LogConfigError,
    UpdateContextFilter,
    handler_of,
    load_config_file,
)
from tgfast.server.processing import UpdateProcessor
from tgfast.testing import FakeTelegram
from tgfast.types import Message, Update

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")

_LISTENING = re.compile(r"listening on (http://\S+)")
SECRET = "logging-test"

# a real app module with its own logging configuration, made at import, and a handler
# that logs, warns and fails
APP = """
import logging
import logging.config
import warnings

from tgfast import Dispatcher
from tgfast.types import Message

CONFIGURE = {configure}
if CONFIGURE:  # the common way, a no-op if the root logger has a handler already
    logging.basicConfig(
        format="APP-FORMAT %(levelname)s %(name)s: %(message)s", level=logging.DEBUG
    )

warnings.filterwarnings("default", message="deprecated thing")  # not -W error's
dp = Dispatcher()
log = logging.getLogger("app.handlers")


@dp.message()
async def on_message(message: Message) -> None:
    log.info("got %s from %s", message.text, message.chat.id)
    if message.text == "warn":
        warnings.warn("deprecated thing", DeprecationWarning, stacklevel=1)
    if message.text == "fail":
        raise ValueError("handler failed")
"""


async def _serve(
    tmp_path: Path, fake: FakeTelegram, *options: str, configure: bool = False
) -> tuple[list[str], int]:
    """Serve APP, post three updates (text, warn, fail), stop; the log lines and status."""
    (tmp_path / "log_app.py").write_text(textwrap.dedent(APP.format(configure=configure)))
    process, url = await TgfastProcess.start(
        "webhook", "log_app:dp", "--port", "0", "--secret", SECRET, "--token", fake.token,
        "--api-url", fake.url, "--no-rate-limit", *options,
        cwd=tmp_path, ready=_LISTENING,
    )  # fmt: skip
    try:
        async with aiohttp.ClientSession() as http:
            for update_id, text in ((11, "hello"), (12, "warn"), (13, "fail")):
                status, _, _ = await post(http, url, message(update_id, 77, text), secret=SECRET)
                assert status == 200
            for _ in range(200):
                if any("update 13" in line or '"update_id": 13' in line for line in process.log):
                    break
                await asyncio.sleep(0.05)
    finally:
        code = await process.stop()
    return "".join(process.log).splitlines(), code


async def test_the_apps_own_configuration_wins(fake: FakeTelegram, tmp_path: Path) -> None:
    lines, code = await _serve(tmp_path, fake, configure=True)
    assert code == 0, lines
    # tgfast's records and the app's go through the app's handler and format, once each
    listening = [line for line in lines if "listening on" in line]
    assert len(listening) == 1 and listening[0].startswith("APP-FORMAT INFO tgfast.server: ")
    assert "APP-FORMAT INFO app.handlers: got hello from 77" in lines
    # the app's level (DEBUG) reaches tgfast's per-update line only if --log-level says so
    assert not any("update 11 (message)" in line for line in lines)
    assert any(line.startswith("APP-FORMAT WARNING py.warnings: ") for line in lines), lines


async def test_debug_logs_one_line_per_update(fake: FakeTelegram, tmp_path: Path) -> None:
    lines, code = await _serve(tmp_path, fake, "--log-level", "debug")
    assert code == 0, lines
    per_update = [line for line in lines if re.search(r"update 1[123] \(message\): ", line)]
    assert len(per_update) == 3, lines
    assert any("update 13 (message): failed in " in line for line in per_update)
    assert any(" DEBUG tgfast.server: update 11 (message): handled in " in line for line in lines)


async def test_log_format_json(fake: FakeTelegram, tmp_path: Path) -> None:
    lines, code = await _serve(tmp_path, fake, "--log-format", "json")
    assert code == 0, lines
    records = [json.loads(line) for line in lines if line.startswith("{")]
    assert len(records) == len([line for line in lines if line.strip()]), lines  # every line
    got = [r for r in records if r["logger"] == "app.handlers"]
    assert [r["message"] for r in got] == [
        "got hello from 77",
        "got warn from 77",
        "got fail from 77",
    ]
    assert [r["update_id"] for r in got] == [11, 12, 13]
    assert {r["chat_id"] for r in got} == {77} and {r["update_kind"] for r in got} == {"message"}
    (error,) = [r for r in records if r["level"] == "ERROR"]
    assert error["update_id"] == 13 and error["chat_id"] == 77
    assert error["handler"] == "log_app.on_message"
    assert "ValueError: handler failed" in error["exception"]
    (warned,) = [r for r in records if r["logger"] == "py.warnings"]
    assert "DeprecationWarning: deprecated thing" in warned["message"]
    assert warned["update_id"] == 12  # logged from inside the update
    assert all("time" in r and "level" in r for r in records)


LOG_CONFIG = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "json": {"()": "tgfast.logs.JsonFormatter"},
        "plain": {"format": "CONSOLE %(name)s: %(message)s"},
    },
    "handlers": {
        "file": {"class": "logging.FileHandler", "formatter": "json", "filename": "{file}"},
        "console": {"class": "logging.StreamHandler", "formatter": "plain"},
    },
    "loggers": {"tgfast": {"level": "DEBUG"}},
    "root": {"handlers": ["file", "console"], "level": "INFO"},
}


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
async def test_log_config_file(fake: FakeTelegram, tmp_path: Path, suffix: str) -> None:
    out = tmp_path / "bot.log"
    config = json.loads(json.dumps(LOG_CONFIG).replace("{file}", str(out)))
    path = tmp_path / f"logging{suffix}"
    if suffix == ".json":
        path.write_text(json.dumps(config))
    else:
        yaml = pytest.importorskip("yaml")
        path.write_text(yaml.safe_dump(config))
    lines, code = await _serve(tmp_path, fake, "--log-config", str(path))
    assert code == 0, lines
    # the file's handlers and formats only: no default handler added beside them
    assert any(line.startswith("CONSOLE tgfast.server: webhook: listening on") for line in lines)
    default = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ [A-Z]+ ")
    assert not any(default.match(line) for line in lines), lines
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert any("listening on" in r["message"] for r in records)
    # the file set tgfast's loggers to DEBUG: the per-update lines are there, with fields
    per_update = [r for r in records if r["logger"] == "tgfast.server" and r.get("update_id")]
    assert {r["update_id"] for r in per_update} >= {11, 12, 13}


def _run(tmp_path: Path, *args: str, pre: str = "") -> subprocess.CompletedProcess[str]:
    command = tgfast_command(*args)
    if pre:  # run the command in-process after some set-up (a module hidden, say)
        command = [sys.executable, "-c", f"{pre}\nimport sys\nfrom tgfast.cli import main\n"
                   f"sys.exit(main({list(args)!r}))"]  # fmt: skip
    return subprocess.run(
        command, cwd=tmp_path, env=subprocess_env(), capture_output=True, text=True, timeout=60
    )


def test_log_config_errors_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "list.json").write_text("[]")
    (tmp_path / "wrong.json").write_text(
        json.dumps({"version": 1, "handlers": {"h": {"class": "nope.Nope"}}})
    )
    (tmp_path / "ok.yaml").write_text("version: 1\n")
    cases = {
        "missing.json": "cannot read missing.json",
        "bad.json": "bad.json: not JSON",
        "list.json": "expected a dictConfig mapping, got list",
        "wrong.json": "wrong.json: Unable to configure handler 'h'",
    }
    for name, error in cases.items():
        done = _run(tmp_path, "webhook-info", "--token", "1:x", "--log-config", name)
        assert done.returncode == 2, done
        assert done.stderr.count("\n") == 1 and error in done.stderr, done.stderr
    no_yaml = _run(tmp_path, "webhook-info", "--token", "1:x", "--log-config", "ok.yaml",
                   pre="import sys; sys.modules['yaml'] = None")  # fmt: skip
    assert no_yaml.returncode == 2
    assert no_yaml.stderr.strip() == (
        "tgfast webhook-info: error: --log-config: ok.yaml: a YAML file needs PyYAML "
        "(pip install pyyaml), or give JSON"
    )
    both = _run(tmp_path, "webhook-info", "--log-config", "x.json", "--log-format", "json")
    assert both.returncode == 2 and "--log-format is for the default handler" in both.stderr


def test_an_app_import_error_shows_the_users_traceback_only(tmp_path: Path) -> None:
    (tmp_path / "broken_app.py").write_text("import helper_mod\n\ndp = helper_mod.make()\n")
    (tmp_path / "helper_mod.py").write_text("def make():\n    raise RuntimeError('no config')\n")
    for target in ("broken_app:dp", "broken_app.py:dp"):
        done = _run(tmp_path, "polling", target, "--token", "1:x")
        assert done.returncode == 1, done
        lines = done.stderr.splitlines()
        assert lines[0] == "Traceback (most recent call last):", done.stderr
        files = [line for line in lines if line.startswith("  File ")]
        assert len(files) == 2, done.stderr  # the app's frame and its helper's, nothing else
        assert "broken_app.py" in files[0] and "helper_mod.py" in files[1]
        assert lines[-2] == "RuntimeError: no config"
        assert lines[-1].startswith(f"tgfast polling: error: importing {target.split(':')[0]}")
        assert "tgfast/" not in done.stderr and "importlib" not in done.stderr
    (tmp_path / "typo_app.py").write_text("dp = (\n")
    done = _run(tmp_path, "polling", "typo_app:dp", "--token", "1:x")
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert lines[0].endswith('typo_app.py", line 1') and lines[-2].startswith("SyntaxError: ")
    assert (
        lines[-1]
        == "tgfast polling: error: importing typo_app failed: SyntaxError (traceback above)"
    )


# -- in process: the formatters and the fields ---------------------------------------------


def test_json_formatter_one_object_per_line() -> None:
    record = logging.LogRecord("app", logging.WARNING, __file__, 1, "a %s\nb", ("x\x1b",), None)
    record.custom = {"k": 1}
    record.when = object()  # not JSON: written as str
    line = JsonFormatter().format(record)
    assert "\n" not in line
    out = json.loads(line)
    assert out["message"] == "a x\x1b\nb" and out["level"] == "WARNING" and out["logger"] == "app"
    assert out["custom"] == {"k": 1} and out["when"].startswith("<object object")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", out["time"])
    assert record.msg == "a %s\nb" and record.args == ("x\x1b",)  # untouched


def test_escaping_formatter_keeps_the_record() -> None:
    record = logging.LogRecord("app", logging.ERROR, __file__, 1, "said %s", ("a\nFORGED",), None)
    text = EscapingFormatter("%(message)s").format(record)
    assert text == "said a\\nFORGED"
    assert record.msg == "said %s" and record.args == ("a\nFORGED",)


async def test_fields_come_from_the_update_being_handled(
    routing: ModuleType, caplog: pytest.LogCaptureFixture, bot: Bot
) -> None:
    dp = Dispatcher(routing=routing)
    app_log = logging.getLogger("test_logging.app")

    @dp.message()
    async def fail(message: Message) -> None:
        app_log.info("in the handler")
        raise KeyError("x")

    context = UpdateContextFilter(worker=3)
    handler = caplog.handler
    handler.addFilter(context)
    update = convert(Update, message(5, -100, "hi"))
    try:
        with caplog.at_level(logging.INFO):
            # the processor (webhooks, polling) sets the update's fields and logs the
            # error that feed_update raises
            processor = UpdateProcessor(dp, bot)
            await processor.submit(update)
            await processor.drain()
            app_log.info("after the update")
    finally:
        handler.removeFilter(context)
    inside, error, after = (
        next(r for r in caplog.records if r.getMessage() == "in the handler"),
        next(r for r in caplog.records if r.levelno == logging.ERROR),
        next(r for r in caplog.records if r.getMessage() == "after the update"),
    )
    assert (inside.update_id, inside.chat_id, inside.update_kind, inside.worker) == (
        5, -100, "message", 3,
    )  # fmt: skip
    assert error.update_id == 5 and error.handler.endswith("fail")
    assert not hasattr(after, "update_id") and after.worker == 3


def test_handler_of_a_traceback_that_never_leaves_tgfast() -> None:
    assert handler_of(None) is None
    try:
        load_config_file("/nonexistent/file.json")
    except LogConfigError as exc:
        assert handler_of(exc) is None
