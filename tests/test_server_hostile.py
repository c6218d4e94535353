"""A real ``tgfast webhook`` process against slow, idle, aborting and malformed clients
(issue 16, items 2-5 and 10): each is cut off or refused within its bound, counted in
``/metrics``, logged in one line, and leaves no memory behind."""

from __future__ import annotations

import asyncio
import logging
import re
import textwrap
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import aiohttp
import orjson
import pytest
from server_support import TgfastProcess, message
from yarl import URL

from tgfast.server import SECRET_HEADER
from tgfast.server.connections import LogLimiter, one_line
from tgfast.testing import FakeTelegram

APP = """
from tgfast import Dispatcher, F
from tgfast.types import Message

dp = Dispatcher()


@dp.message(F.text)
async def echo(message: Message) -> None:
    await message.answer(message.text or "")
"""

SECRET = "hostile-secret"
_LISTENING = re.compile(r"listening on (http://\S+)")


Webhook = Callable[..., Awaitable[tuple[TgfastProcess, str]]]


@pytest.fixture
async def webhook(tmp_path: Path, fake: FakeTelegram) -> AsyncIterator[Webhook]:
    """Starts ``tgfast webhook OPTIONS`` on a free port; (the process, its webhook URL)."""
    (tmp_path / "app.py").write_text(textwrap.dedent(APP))
    started: list[TgfastProcess] = []

    async def start(*options: str) -> tuple[TgfastProcess, str]:
        served, url = await TgfastProcess.start(
            "webhook", "app:dp", "--token", fake.token, "--api-url", fake.url, "--port", "0",
            "--secret", SECRET, "--no-rate-limit", "--no-uvloop", *options,
            cwd=tmp_path, ready=_LISTENING,
        )  # fmt: skip
        started.append(served)
        return served, url

    yield start
    for served in started:
        await served.stop()


def _address(url: str) -> tuple[str, int, str]:
    parsed = URL(url)
    assert parsed.host is not None and parsed.port is not None
    return parsed.host, parsed.port, parsed.path


def _head(path: str, length: int, **headers: str) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: bot", f"{SECRET_HEADER}: {SECRET}",
             "Content-Type: application/json", f"Content-Length: {length}"]  # fmt: skip
    lines += [f"{name.replace('_', '-')}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def _closed_within(reader: asyncio.StreamReader, timeout: float) -> bytes:
    """Read until the server closes the connection; what it sent. Fails after ``timeout``."""
    return await asyncio.wait_for(reader.read(), timeout)


async def _metrics(url: str) -> str:
    host, port, _ = _address(url)
    async with aiohttp.ClientSession() as http, http.get(f"http://{host}:{port}/metrics") as r:
        return await r.text()


def _counted(metrics: str, reason: str) -> int:
    found = re.search(rf'tgfast_rejected_total{{reason="{reason}"}} (\d+)', metrics)
    return 0 if found is None else int(found.group(1))


def _rss(pid: int) -> int:
    """Resident bytes of process ``pid`` (Linux)."""
    status = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"VmRSS:\s+(\d+) kB", status)
    assert found is not None
    return int(found.group(1)) * 1024


# -- item 2: slow and idle clients ------------------------------------------------------------


async def test_slow_and_idle_clients_are_cut_off_at_their_deadlines(
    webhook: Webhook,
) -> None:
    served, url = await webhook(
        "--header-timeout", "2", "--body-timeout", "2", "--keepalive-timeout", "4"
    )
    host, port, path = _address(url)
    start = time.monotonic()

    async def trickle(first: bytes, then: bytes) -> bytes:
        """Send ``first``, then ``then`` a byte every half second until the server
        answers or closes; what it answered (nothing when it only closed)."""
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(first)
        answer = b""
        try:
            for i in range(24):  # 12 s: far beyond the deadlines
                writer.write(then[i % len(then) : i % len(then) + 1])
                try:
                    answer = await asyncio.wait_for(reader.read(1), 0.5)
                except asyncio.TimeoutError:
                    continue
                answer += await _closed_within(reader, 15)
                break
            else:
                raise AssertionError(f"a client trickling {then[:10]!r} was not cut off")
        except ConnectionError:  # closed with our bytes unread: a reset
            pass
        writer.close()
        return answer

    async def trickle_head() -> float:
        await trickle(b"", _head(path, 10))  # one byte a half second: never a whole head
        return time.monotonic() - start

    async def trickle_body() -> tuple[float, bytes]:
        answer = await trickle(_head(path, 1000), b" ")
        return time.monotonic() - start, answer

    async def idle(requests: int) -> float:
        reader, writer = await asyncio.open_connection(host, port)
        for _ in range(requests):  # a kept-alive connection, then idle
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: bot\r\n\r\n")
            assert (await reader.readuntil(b"ok")).startswith(b"HTTP/1.1 200")
        await _closed_within(reader, 12)
        writer.close()
        return time.monotonic() - start

    head, (body, answer), silent, kept_alive = await asyncio.gather(
        trickle_head(), trickle_body(), idle(0), idle(2)
    )
    assert head < 10 and body < 10 + 10 and silent < 10 and kept_alive < 10
    assert answer.startswith(b"HTTP/1.1 408"), answer
    metrics = await _metrics(url)
    assert _counted(metrics, "header_timeout") >= 2  # the trickled head and the silent one
    assert _counted(metrics, "body_timeout") == 1
    log = "".join(served.log)
    assert "Traceback" not in log, log


async def test_connections_beyond_the_bound_are_refused_early(
    webhook: Webhook,
) -> None:
    served, url = await webhook("--max-connections", "20")
    host, port, path = _address(url)
    idle = [await asyncio.open_connection(host, port) for _ in range(20)]
    try:
        await asyncio.sleep(0.2)
        reader, writer = await asyncio.open_connection(host, port)
        refused = await _closed_within(reader, 10)  # answered without sending a byte
        writer.close()
        assert refused.startswith(b"HTTP/1.1 503"), refused
        assert b"Retry-After" in refused
    finally:
        for _, w in idle:
            w.close()
    await asyncio.sleep(0.5)  # the idle ones are gone: a legitimate update gets through
    async with aiohttp.ClientSession() as http:
        data = orjson.dumps(message(1, 7, "hello"))
        headers = {SECRET_HEADER: SECRET, "Content-Type": "application/json"}
        async with http.post(url, data=data, headers=headers) as r:
            assert r.status == 200
    assert _counted(await _metrics(url), "connections") == 1


# -- item 3: memory under aborted uploads ---------------------------------------------------


async def test_aborted_uploads_leave_no_memory_behind(
    webhook: Webhook,
) -> None:
    served, url = await webhook()
    host, port, path = _address(url)
    length = 1024 * 1024 - 200  # under --max-body-size
    chunk = b"x" * (64 * 1024)

    async def abort_one() -> None:
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(_head(path, length))
        for _ in range(length // len(chunk)):  # all but the last bytes
            writer.write(chunk)
            await writer.drain()
        await asyncio.sleep(0.01)
        writer.transport.abort()

    async def abort(n: int) -> None:
        for _ in range(n // 20):  # 20 at a time: more than the read budget takes
            await asyncio.gather(*(abort_one() for _ in range(20)))

    await abort(20)  # warm up: the buffers and pools a server keeps anyway
    await asyncio.sleep(0.5)
    before = _rss(served.proc.pid)
    await abort(300)
    await asyncio.sleep(3)  # the allocator's pages go back within MemoryReclaimer.delay
    async with aiohttp.ClientSession() as http:  # normal updates still go through
        for i in range(20):
            data = orjson.dumps(message(100 + i, 8, "after"))
            headers = {SECRET_HEADER: SECRET, "Content-Type": "application/json"}
            async with http.post(url, data=data, headers=headers) as r:
                assert r.status == 200
    grown = _rss(served.proc.pid) - before
    assert grown < 64 * 1024 * 1024, (
        f"RSS grew by {grown / 2**20:.0f} MiB (from {before / 2**20:.0f})"
    )
    assert _counted(await _metrics(url), "aborted") >= 1
    log = "".join(served.log)
    assert "Traceback" not in log, log


# -- items 4 and 5: body read failures and malformed HTTP ----------------------------------


async def test_every_failure_to_read_a_body_is_a_counted_4xx(
    webhook: Webhook,
) -> None:
    served, url = await webhook()
    body = orjson.dumps(message(1, 9, "plain json"))
    async with aiohttp.ClientSession(auto_decompress=False) as http:
        for encoding in ("gzip", "deflate", "br"):
            headers = {SECRET_HEADER: SECRET, "Content-Type": "application/json",
                       "Content-Encoding": encoding}  # fmt: skip
            async with http.post(url, data=body, headers=headers) as r:
                assert 400 <= r.status < 500, (encoding, r.status, await r.text())
    metrics = await _metrics(url)
    assert _counted(metrics, "bad_body") >= 2, metrics
    log = "".join(served.log)
    assert "Traceback" not in log, log


async def test_malformed_http_is_one_counted_rate_limited_line_per_cause(
    webhook: Webhook,
) -> None:
    served, url = await webhook()
    host, port, path = _address(url)
    both = _head(path, 2, Transfer_Encoding="chunked") + b"{}"
    bad_length = _head(path, 2).replace(b"Content-Length: 2", b"Content-Length: 2x") + b"{}"
    for request in [both, bad_length] * 20:
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(request)
        answer = await _closed_within(reader, 10)
        writer.close()
        assert answer.split(b" ")[1] == b"400", answer
    assert _counted(await _metrics(url), "bad_http") == 40
    log = "".join(served.log)
    assert "Traceback" not in log, log
    lines = [line for line in served.log if "malformed" in line]
    assert 1 <= len(lines) <= 2, lines  # one line per cause, the repeats only counted


# -- the pieces, in-process ------------------------------------------------------------------


def test_log_limiter_writes_one_line_per_cause_per_interval(
    caplog: pytest.LogCaptureFixture,
) -> None:
    limiter = LogLimiter(logging.getLogger("tgfast.test"), interval=3600)
    with caplog.at_level(logging.WARNING, "tgfast.test"):
        for _ in range(5):
            limiter.warning("a", "cause a")
            limiter.warning("b", "cause b")
        limiter.interval = 0
        limiter.warning("a", "cause a again")
    assert [r.getMessage() for r in caplog.records] == [
        "cause a", "cause b", "cause a again (4 more since the last such line, only counted)",
    ]  # fmt: skip


def test_one_line_escapes_what_a_client_sent() -> None:
    assert one_line("bad\r\nX-Forged: 1\x1b[31m") == "bad\\r\\nX-Forged: 1\\x1b[31m"
    assert one_line("x" * 500, limit=10) == "x" * 10 + "..."


# -- item 10: a malformed union is a counted 400, the updates around it are handled ---------


async def test_a_malformed_discriminator_is_a_counted_400_and_nothing_else_is_lost(
    webhook: Webhook, fake: FakeTelegram
) -> None:
    served, url = await webhook()
    origin = '{"type":"hidden_user","sender_user_name":"x","date":1}'
    good = orjson.dumps(message(1, 9, "before", forward_origin=orjson.loads(origin)))
    repeated = good.replace(b'"type":"hidden_user"', b'"type":"user","type":"hidden_user"')
    null = good.replace(b'"type":"hidden_user"', b'"type":null')
    headers = {SECRET_HEADER: SECRET, "Content-Type": "application/json"}
    async with aiohttp.ClientSession() as http:
        for body, reason in ((repeated, "repeated discriminator key"), (null, "expected str")):
            async with http.post(url, data=body, headers=headers) as r:
                assert r.status == 400, await r.text()
                assert reason in await r.text()
        async with http.post(url, data=good.replace(b'"update_id":1', b'"update_id":2'),
                             headers=headers) as r:  # fmt: skip
            assert r.status == 200
    for _ in range(100):  # the handler runs after the 200
        if fake.calls_to("sendMessage"):
            break
        await asyncio.sleep(0.05)
    assert [c.params["text"] for c in fake.calls_to("sendMessage")] == ["before"]
    assert _counted(await _metrics(url), "bad_body") == 2
    assert "$.message.forward_origin.type: repeated discriminator key" in "".join(served.log)
