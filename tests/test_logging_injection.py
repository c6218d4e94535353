"""Log injection (issue #16 item 6): text tgfast does not control (a handler's exception
message holding user input, an error from Telegram or Redis) cannot forge a log line or
send a terminal escape: tgfast's formatters escape control characters (issue #27: in the
formatter, so that the record keeps its ``msg`` and ``args`` for structured handlers)."""

from __future__ import annotations

import asyncio
import importlib
import logging
import re
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import aiohttp
import pytest
from server_support import TgfastProcess, message, post

from tgfast import Bot, Dispatcher
from tgfast._logging import escape, format_exception
from tgfast.decoding import convert
from tgfast.logs import EscapingFormatter, JsonFormatter, UpdateContextFilter
from tgfast.server.processing import UpdateProcessor
from tgfast.testing import FakeTelegram
from tgfast.types import Message, Update

EVIL = "boom\nERROR forged line\r\x1b[31mred\x1b[0m\x85\u2028end"
ESCAPED = "boom\\nERROR forged line\\r\\x1b[31mred\\x1b[0m\\x85\\u2028end"


def test_escape_writes_controls_as_repr_does() -> None:
    assert escape(EVIL) == ESCAPED
    assert escape("plain text, ünïcode, \\ and 'quotes'") == "plain text, ünïcode, \\ and 'quotes'"
    assert escape(ValueError("a\tb\x00")) == "a\\tb\\x00"


def test_a_traceback_keeps_its_lines_and_escapes_the_messages() -> None:
    try:
        try:
            raise KeyError("inner\nERROR forged inner")
        except KeyError as e:
            raise ValueError(EVIL) from e
    except ValueError as e:
        text = format_exception((type(e), e, e.__traceback__))
    lines = text.split("\n")
    assert lines[0] == "Traceback (most recent call last):"
    assert any(line.startswith("  File ") for line in lines)
    assert f"ValueError: {ESCAPED}" in lines
    assert "KeyError: 'inner\\nERROR forged inner'" in lines
    assert not any(line.startswith("ERROR forged") for line in lines)
    assert "\x1b" not in text and "\r" not in text and "\x85" not in text


# -- each logging site: every module that logs carries the filter ---------------------

LOGGING_MODULES = [
    "tgfast.server.processing",
    "tgfast.server.polling",
    "tgfast.server.runner",
    "tgfast.server.supervisor",
    "tgfast.redis.seen",
    "tgfast.redis.ratelimit",
    "tgfast.redis.shared",
    "tgfast.redis.leader",
    "tgfast.client.bot",
    "tgfast.testing.fake_mode",
]


@pytest.mark.parametrize("name", LOGGING_MODULES)
def test_every_logging_site_escapes(name: str, caplog: pytest.LogCaptureFixture) -> None:
    module: ModuleType = importlib.import_module(name)
    log: logging.Logger = module.log
    assert any(isinstance(f, UpdateContextFilter) for f in log.filters)
    with caplog.at_level(logging.DEBUG, logger=log.name):
        try:
            raise RuntimeError(EVIL)
        except RuntimeError as exc:
            log.error("site %s: %s (%r)", name, exc, exc, exc_info=exc)
    (record,) = [r for r in caplog.records if r.name == log.name]
    # the record is as logged: template and values, for structured handlers
    assert record.msg == "site %s: %s (%r)"
    assert isinstance(record.args, tuple) and record.args[0] == name
    assert isinstance(record.args[1], RuntimeError)
    text = EscapingFormatter("%(levelname)s %(message)s").format(record)
    assert "\x1b" not in text and "\r" not in text
    assert not any(line.startswith("ERROR forged") for line in text.split("\n"))
    assert ESCAPED in text
    assert "Traceback (most recent call last):" in text
    line = JsonFormatter().format(record)
    assert "\n" not in line and "\x1b" not in line  # one line: JSON escapes the controls
    assert record.exc_info is not None and record.exc_info[1] is not None  # kept for trackers


def test_the_escaping_formatter_ignores_an_unescaped_cached_traceback() -> None:
    try:
        raise RuntimeError(EVIL)
    except RuntimeError as exc:
        record = logging.LogRecord(
            "x", logging.ERROR, __file__, 1, "m", None, (RuntimeError, exc, exc.__traceback__)
        )
    plain = logging.Formatter().format(record)  # another handler ran first and cached it
    assert "\nERROR forged line" in plain
    text = EscapingFormatter().format(record)
    assert not any(line.startswith("ERROR forged") for line in text.split("\n"))
    assert record.exc_text is not None and "\nERROR forged line" in record.exc_text  # left as found


def test_every_tgfast_logger_carries_the_update_fields() -> None:
    # every logger in tgfast/ is made with get_logger, but webhook.py's and cli.py's,
    # which share "tgfast.server" (made by processing.py) and "tgfast" (the command's)
    root = Path(importlib.import_module("tgfast").__file__ or "").parent
    for path in list(root.rglob("*.py")) + list(root.rglob("*.pyx")):
        text = path.read_text(encoding="utf-8")
        for name in re.findall(r"^log = logging\.getLogger\(\"([\w.]+)\"\)", text, re.M):
            assert name in {"tgfast", "tgfast.server"}, (path, name)
    importlib.import_module("tgfast.server.webhook")
    assert any(
        isinstance(f, UpdateContextFilter) for f in logging.getLogger("tgfast.server").filters
    )


@pytest.mark.parametrize("with_errors_handler", [False, True], ids=["unhandled", "errors-raise"])
async def test_a_handler_error_is_logged_escaped(
    routing: ModuleType, caplog: pytest.LogCaptureFixture, with_errors_handler: bool, bot: Bot
) -> None:
    """``feed_update`` raises what the handler raised (aiogram's contract); the processor
    that serves webhooks and polling logs it, escaped."""
    dp = Dispatcher(routing=routing)

    @dp.message()
    async def fail(message: Message) -> None:
        raise ValueError(message.text)

    if with_errors_handler:

        @dp.errors()
        async def errors_fail(event: object) -> None:
            raise RuntimeError("again\nERROR forged again\x1b[2J")

    update = convert(Update, message(1, 5, EVIL))
    with pytest.raises(RuntimeError if with_errors_handler else ValueError):
        await dp.feed_update(None, update)  # type: ignore[arg-type]
    processor = UpdateProcessor(dp, bot)
    with caplog.at_level(logging.ERROR, logger="tgfast.server"):
        await processor.submit(update)
        await processor.drain()
    assert caplog.records, "nothing logged"
    fmt = EscapingFormatter("%(levelname)s %(message)s")
    text = "\n".join(fmt.format(r) for r in caplog.records)
    assert "\x1b" not in text and "\r" not in text
    assert not any(line.startswith("ERROR forged") for line in text.split("\n")), text
    assert "ERROR forged" in text  # the text is there, escaped


# -- a real process ------------------------------------------------------------------

BOT_MODULE = """
from tgfast import Dispatcher
from tgfast.types import Message

dp = Dispatcher()


@dp.message()
async def fail(message: Message) -> None:
    raise ValueError("user said: " + (message.text or ""))
"""
_LISTENING = re.compile(r"listening on (http://\S+)")
SECRET = "log-injection"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX process")
async def test_a_real_webhook_process_logs_no_forged_line(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    module = tmp_path / "failing_bot.py"
    module.write_text(textwrap.dedent(BOT_MODULE))
    process, url = await TgfastProcess.start(
        "webhook", f"{module}:dp", "--port", "0", "--secret", SECRET,
        "--token", fake.token, "--api-url", fake.url, "--no-rate-limit",
        cwd=tmp_path, ready=_LISTENING,
    )  # fmt: skip
    try:
        async with aiohttp.ClientSession() as http:
            status, _body, _headers = await post(http, url, message(1, 5, EVIL), secret=SECRET)
            assert status == 200
            for _ in range(200):
                if any("user said" in line for line in process.log):
                    break
                await asyncio.sleep(0.05)
    finally:
        await process.stop()
    log = "".join(process.log)
    assert "user said: boom\\nERROR forged line" in log  # logged, escaped
    assert "\x1b" not in log and "\r" not in log and "\x85" not in log
    assert not any(line.lstrip().startswith("ERROR forged") for line in log.split("\n")), log
    assert "Traceback (most recent call last):" in log  # tracebacks stay readable
