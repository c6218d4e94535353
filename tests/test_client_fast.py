"""The fast transport (``FastSession``) where it differs from aiohttp: its response
parser (both twins, against each other), and its connections against real servers on
127.0.0.1 that misbehave (close kept-alive connections, stop mid-answer, answer
garbage, never answer), over plain TCP and TLS. The behaviour a ``Bot`` shows on top
(errors, retries, 429, timeouts, redaction) runs over both sessions in test_client.py.
"""

from __future__ import annotations

import asyncio
import gc
import ssl
import subprocess
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import ModuleType

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from implementations import LOADED, NO_EXTENSIONS

from tgfast import Bot, RetryPolicy, TelegramNetworkError
from tgfast._speedups import _http_py
from tgfast.client import NO_RETRY
from tgfast.client.session.aiohttp import AiohttpSession
from tgfast.client.session.fast import ConnectFailed, FastSession, MalformedResponse, session_for
from tgfast.client.telegram import TelegramServer

TOKEN = "42:fast-transport-secret-token"
HTTP: dict[str, ModuleType] = {"py": _http_py}
if "_http" in LOADED and not NO_EXTENSIONS:
    HTTP = {"c": LOADED["_http"], "py": _http_py}


@pytest.fixture(params=list(HTTP), ids=list(HTTP))
def http(request: pytest.FixtureRequest) -> ModuleType:
    return HTTP[request.param]


def _ok(result: object = True, *, extra: bytes = b"") -> bytes:
    body = orjson.dumps({"ok": True, "result": result})
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n%s\r\n%s" % (len(body), extra, body)


def _chunked(body: bytes, size: int) -> bytes:
    parts = [body[i : i + size] for i in range(0, len(body), size)]
    chunks = b"".join(b"%x;ext=1\r\n%s\r\n" % (len(p), p) for p in parts)
    return (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks + b"0\r\nX-T: 1\r\n\r\n"
    )


# -- the parser, both twins --------------------------------------------------------------


def _parse(http: ModuleType, raw: bytes, cuts: list[int] = []) -> tuple[int, bytes, bool]:  # noqa: B006
    parser = http.ResponseParser()
    pieces = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]
    done = False
    for piece in pieces:
        assert not done
        done = parser.feed(piece)
    if not done:
        done = parser.feed_eof()
    assert done
    return parser.status, parser.body, parser.keep_alive


def test_content_length_chunked_and_until_close(http: ModuleType) -> None:
    body = orjson.dumps({"ok": True, "result": {"text": "x" * 300}})
    assert _parse(http, _ok({"text": "x" * 300})) == (200, body, True)
    assert _parse(http, _chunked(body, 7)) == (200, body, True)
    close = b"HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n<html>"
    assert _parse(http, close) == (502, b"<html>", False)
    assert _parse(http, b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi") == (200, b"hi", False)
    kept = b"HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nhi"
    assert _parse(http, kept) == (200, b"hi", True)
    assert _parse(http, b"HTTP/1.1 204 No Content\r\n\r\n") == (204, b"", True)
    interim = b"HTTP/1.1 100 Continue\r\n\r\n" + _ok()
    assert _parse(http, interim)[:2] == (200, b'{"ok":true,"result":true}')
    # bytes after the answer: the answer is read, the connection is not reused
    assert _parse(http, _ok() + b"HTTP/1.1 200 OK\r\n")[2] is False


@given(data=st.data(), size=st.integers(1, 40), chunked=st.booleans())
def test_any_split_gives_the_same_answer_on_both_twins(
    data: st.DataObject, size: int, chunked: bool
) -> None:
    body = orjson.dumps({"ok": True, "result": list(range(size))})
    raw = _chunked(body, size) if chunked else _ok(list(range(size)))
    cuts = sorted(data.draw(st.sets(st.integers(1, len(raw) - 1), max_size=12)))
    for http in HTTP.values():
        assert _parse(http, raw, cuts) == (200, body, True)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"SMTP ready\r\n\r\n", "not an HTTP/1.x status line"),
        (b"HTTP/1.1 2x0 OK\r\n\r\n", "not an HTTP/1.x status line"),
        (b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "malformed header line"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "bad Content-Length"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", "Content-Length"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", "Transfer-Encoding"),
        (b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\n\r\n", "compressed"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "bad chunk size"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n", "CRLF"),
        (b"HTTP/1.1 101 Switching Protocols\r\n\r\n", "101"),
        (b"HTTP/1.1 200 OK\r\nX: " + b"a" * 70000, "head longer"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n", "body longer"),
    ],
)
def test_a_malformed_answer_is_a_clear_error(http: ModuleType, raw: bytes, reason: str) -> None:
    parser = http.ResponseParser()
    with pytest.raises(MalformedResponse, match=reason):
        parser.feed(raw)


def test_an_answer_cut_short_says_how_much_came(http: ModuleType) -> None:
    parser = http.ResponseParser()
    assert not parser.feed(_ok()[:30])
    with pytest.raises(MalformedResponse, match="closed after 30 bytes of an incomplete"):
        parser.feed_eof()
    with pytest.raises(MalformedResponse, match="before any answer"):
        http.ResponseParser().feed_eof()


def test_the_request_writer(http: ModuleType) -> None:
    head = b"POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: "
    assert http.request_bytes(head, b"{}") == head + b"2\r\n\r\n{}"


# -- against real servers ------------------------------------------------------------------

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, int], Awaitable[None]]


class Script:
    """A raw HTTP server on 127.0.0.1: ``handler(reader, writer, connection_number)``."""

    def __init__(self, handler: Handler, ssl_context: ssl.SSLContext | None = None) -> None:
        self.handler = handler
        self.ssl = ssl_context
        self.connections = 0
        self.requests: list[bytes] = []
        self.server: asyncio.Server | None = None

    async def __aenter__(self) -> Script:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.ssl)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()

    @property
    def port(self) -> int:
        assert self.server is not None
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            await self.handler(reader, writer, self.connections)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def read_request(self, reader: asyncio.StreamReader) -> bytes:
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
        body = await reader.readexactly(length)
        self.requests.append(head + body)
        return body


def _bot(port: int, scheme: str = "http", host: str = "127.0.0.1", **kwargs: object) -> Bot:
    session = kwargs.pop("session", None) or FastSession()
    retry = kwargs.pop("retry", NO_RETRY)
    return Bot(TOKEN, session=session, server=f"{scheme}://{host}:{port}", rate_limiter=None,
               retry=retry, **kwargs)  # type: ignore[arg-type]  # fmt: skip


async def test_connections_are_kept_alive_and_reused() -> None:
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        while True:
            await script.read_request(reader)
            writer.write(_ok())

    async with Script(serve) as script, _bot(script.port) as bot:
        for _ in range(5):
            assert await bot.log_out() is True
        assert script.connections == 1
        # concurrent calls open more connections, up to the session's limit
        assert all(await asyncio.gather(*(bot.log_out() for _ in range(20))))
        assert 1 < script.connections <= 100
    head = script.requests[0]
    assert head.startswith(b"POST /bot42:fast-transport-secret-token/logOut HTTP/1.1\r\n")
    assert b"\r\nHost: 127.0.0.1:" in head and b"Content-Type: application/json\r\n" in head


async def test_the_limit_bounds_open_connections() -> None:
    open_now = peak = 0

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        nonlocal open_now, peak
        open_now += 1
        peak = max(peak, open_now)
        try:
            while True:
                await script.read_request(reader)
                await asyncio.sleep(0.01)
                writer.write(_ok())
        finally:
            open_now -= 1

    async with Script(serve) as script, _bot(script.port, session=FastSession(limit=2)) as bot:
        assert all(await asyncio.gather(*(bot.log_out() for _ in range(12))))
    assert peak == 2 and len(script.requests) == 12


async def test_a_server_closing_kept_alive_connections_is_no_failure() -> None:
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await script.read_request(reader)
        if n % 2:  # says so
            writer.write(_ok(extra=b"Connection: close\r\n"))
        else:  # or just closes the idle connection after answering
            writer.write(_ok())
            await writer.drain()
            await asyncio.sleep(0.02)

    async with Script(serve) as script, _bot(script.port) as bot:
        for _ in range(4):
            assert await bot.log_out() is True
            await asyncio.sleep(0.05)  # the close reaches the client before the next call
    assert script.connections == 4


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (_ok()[:25], "closed after 25 bytes of an incomplete answer"),
        (b"", "closed before any answer"),
        (b"220 smtp.example ESMTP\r\n\r\n", "not an HTTP/1.x status line"),
    ],
    ids=["cut-short", "nothing", "not-http"],
)
async def test_a_partial_or_malformed_answer_is_a_clear_error_not_a_hang(
    answer: bytes, reason: str
) -> None:
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await script.read_request(reader)
        writer.write(answer)
        await writer.drain()
        if n == 1:
            return  # closes
        writer.write(_ok())
        await asyncio.sleep(1)

    async with Script(serve) as script, _bot(script.port) as bot:
        with pytest.raises(TelegramNetworkError, match=reason) as info:
            await asyncio.wait_for(bot.send_message(1, "x"), 5)
        assert "fast-transport-secret" not in str(info.value)
        assert len(script.requests) == 1  # a send is not repeated after an ambiguous failure


async def test_a_silent_server_times_out_and_the_next_call_gets_a_new_connection() -> None:
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await script.read_request(reader)
        if n == 1:
            await asyncio.sleep(5)
        writer.write(_ok())
        await asyncio.sleep(1)

    async with Script(serve) as script, _bot(script.port, session=FastSession(timeout=0.3)) as bot:
        with pytest.raises(TelegramNetworkError, match="no answer within 0.3s"):
            await bot.log_out()
        assert await bot.log_out() is True
    assert script.connections == 2


async def test_calls_in_flight_time_out_each_at_its_own_deadline() -> None:
    """The pool's one timer is armed at the earliest deadline: a short timeout given
    after a long one still fires on time, the long one later, and a call answered in
    time is not failed when the timer fires for another."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        body = await script.read_request(reader)
        if b"quick" in body:
            writer.write(_ok())
        await asyncio.sleep(5)  # the others get no answer

    loop = asyncio.get_running_loop()
    async with Script(serve) as script, _bot(script.port) as bot:

        async def timed(description: str, timeout: float) -> tuple[str, float]:
            started = loop.time()
            try:
                await bot.set_my_description(description=description, request_timeout=timeout)
            except TelegramNetworkError as exc:
                return str(exc), loop.time() - started
            return "answered", loop.time() - started

        long = asyncio.create_task(timed("long", 1.0))
        await asyncio.sleep(0.05)
        quick = asyncio.create_task(timed("quick", 0.2))
        short = asyncio.create_task(timed("short", 0.2))
        (short_error, short_took), (quick_outcome, _) = await short, await quick
        assert "no answer within 0.2s" in short_error and 0.15 < short_took < 0.8
        assert quick_outcome == "answered"
        long_error, long_took = await long
        assert "no answer within 1.0s" in long_error and 0.9 < long_took < 2.0
        session = bot.session
        assert isinstance(session, FastSession)
        (pool,) = session._pools.values()
        assert not pool.deadlines and pool.timer is None  # nothing left armed


async def test_a_cancelled_call_drops_its_connection() -> None:
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await script.read_request(reader)
        if n == 1:
            await asyncio.sleep(5)
        writer.write(_ok())
        await asyncio.sleep(1)

    async with Script(serve) as script, _bot(script.port) as bot:
        call = asyncio.create_task(bot.log_out())
        await asyncio.sleep(0.1)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        assert await bot.log_out() is True  # not the late answer of the cancelled call
    assert script.connections == 2


async def test_close_closes_idle_connections() -> None:
    closed = asyncio.Event()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await script.read_request(reader)
        writer.write(_ok())
        await reader.read()  # until the client closes
        closed.set()

    async with Script(serve) as script:
        bot = _bot(script.port)
        assert await bot.log_out() is True
        assert not bot.session.closed
        await bot.session.close()  # bot.close() is the Bot API's close, as in aiogram
        assert bot.session.closed
        await asyncio.wait_for(closed.wait(), 5)


async def test_a_refused_connection_is_connect_failed_and_retried() -> None:
    async with Script(lambda r, w, n: asyncio.sleep(0)) as script:
        port = script.port
    policy = RetryPolicy(backoff=0.01, max_backoff=0.02)
    async with _bot(port, retry=policy) as bot:
        with pytest.raises(TelegramNetworkError, match="ConnectFailed: cannot connect to 127"):
            await bot.send_message(1, "x")


# -- TLS ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for ``localhost`` and 127.0.0.1 (openssl CLI)."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


async def test_tls_with_sni_and_a_trusted_self_signed_certificate(
    certificate: tuple[Path, Path],
) -> None:
    cert, key = certificate
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_ctx.load_cert_chain(cert, key)
    names: list[str | None] = []
    server_ctx.sni_callback = lambda sock, name, ctx: names.append(name)  # type: ignore[assignment,func-returns-value]

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        while True:
            await script.read_request(reader)
            writer.write(_ok({"id": 42, "is_bot": True, "first_name": "tls"}))

    client_ctx = ssl.create_default_context(cafile=str(cert))
    async with Script(serve, server_ctx) as script:
        async with _bot(
            script.port, "https", "localhost", session=FastSession(ssl=client_ctx)
        ) as bot:
            assert (await bot.get_me()).first_name == "tls"
            assert (await bot.get_me()).id == 42
        assert names == ["localhost"] and script.connections == 1
        # the system's CAs do not trust it: a clear connect error, never a plain-text call
        async with _bot(script.port, "https", "localhost") as bot:
            with pytest.raises(TelegramNetworkError, match="CERTIFICATE_VERIFY_FAILED|certif"):
                await bot.log_out()
    assert len(script.requests) == 2


# -- choosing it ---------------------------------------------------------------------------


def test_tgfast_transport_picks_the_session(monkeypatch: pytest.MonkeyPatch) -> None:
    server = TelegramServer()
    monkeypatch.delenv("TGFAST_TRANSPORT", raising=False)
    assert type(session_for(server)) is AiohttpSession
    monkeypatch.setenv("TGFAST_TRANSPORT", "fast")
    assert type(session_for(server)) is FastSession
    assert type(Bot(TOKEN).session) is FastSession
    monkeypatch.setenv("TGFAST_TRANSPORT", "http3")
    with pytest.raises(ValueError, match="TGFAST_TRANSPORT: expected one of aiohttp, fast"):
        Bot(TOKEN)


def test_a_proxy_is_refused_with_the_way_out() -> None:
    session = FastSession()
    with pytest.raises(TypeError, match=r"AiohttpSession\(proxy=...\)"):
        session.proxy = "http://127.0.0.1:3128"
    with pytest.raises(ValueError, match="at least one connection"):
        FastSession(limit=0)
    assert ConnectFailed.__mro__[1] is ConnectionError


# the first loop's connection is left open when its loop closes (the bot was not closed):
# the garbage collector closes it, with the ResourceWarning that says so
@pytest.mark.filterwarnings("ignore::ResourceWarning")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_session_used_from_a_new_event_loop_opens_new_connections() -> None:
    """Connections belong to the loop that opened them: a session used again under a new
    loop (``asyncio.run`` twice) opens new ones instead of reusing the old loop's."""
    session = FastSession()
    connections: list[int] = []
    ready, stop = threading.Event(), threading.Event()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        connections.append(n)
        while True:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(_ok())

    def server_thread() -> None:  # the server outlives the client's loops
        async def main() -> None:
            async with Script(serve) as script:
                port.append(script.port)
                ready.set()
                while not stop.is_set():
                    await asyncio.sleep(0.01)

        asyncio.run(main())

    async def call(close: bool) -> bool:
        bot = Bot(TOKEN, session=session, server=f"http://127.0.0.1:{port[0]}", rate_limiter=None)
        result: bool = await bot.log_out()
        if close:
            await session.close()
        return result

    port: list[int] = []
    thread = threading.Thread(target=server_thread)
    thread.start()
    try:
        assert ready.wait(10)
        assert asyncio.run(call(close=False))  # left open as its loop ends
        assert asyncio.run(call(close=True))
    finally:
        stop.set()
        thread.join(10)
    assert connections == [1, 2]
    gc.collect()  # the first loop's connection is closed here, under this test's filters


async def test_a_call_waiting_for_a_free_connection_times_out_cleanly() -> None:
    """At the limit a call waits for a connection within its own timeout; one that gives
    up leaves the pool consistent (the next call gets the freed connection)."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        while True:
            body = await script.read_request(reader)
            if b"slow" in body:
                await asyncio.sleep(0.5)
            writer.write(_ok())

    async with Script(serve) as script, _bot(script.port, session=FastSession(limit=1)) as bot:
        slow = asyncio.create_task(bot.set_my_description(description="slow"))
        await asyncio.sleep(0.05)
        with pytest.raises(TelegramNetworkError, match="no answer within 0.1s"):
            await bot.set_my_description(description="waits", request_timeout=0.1)
        assert await slow is True
        assert await bot.set_my_description(description="next") is True
    assert script.connections == 1 and len(script.requests) == 2
