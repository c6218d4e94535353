"""A mock Telegram Bot API server for the client round-trip benchmark.

    python benchmarks/micro/mock_api.py [--host 127.0.0.1] [--port 0] [--no-uvloop]

It runs in its own process (``benchmarks/micro/roundtrip.py`` starts it and pins it
to a core of its own) and must never be the bottleneck, so it is a raw
``asyncio.Protocol`` on uvloop (when installed) with a hand-rolled HTTP/1.1
parser and pre-built answers: no framework, no JSON work per request.

Protocol
* HTTP/1.1 keep-alive (HTTP/1.0 and ``Connection: close`` close after the
  answer), pipelining, ``Content-Length`` and ``Transfer-Encoding: chunked``
  request bodies, ``Expect: 100-continue``.  Bodies are skipped, not parsed.
* ``POST`` (or ``GET``) ``/bot<token>/sendMessage``, method name in any case,
  query string allowed: ``{"ok":true,"result":<Message>}``, the Message being
  :data:`SEND_MESSAGE_BODY`'s, encoded the way Telegram encodes it (compact,
  non-ASCII as ``\\uXXXX``), with Telegram's response headers.
* ``/bot<token>/getMe``: the bot user.  Any other path: Telegram's 404 JSON.
* ``GET /_stats``: this server's counters as JSON (``requests``,
  ``connections``, ``open``, ``cpu`` = process CPU seconds), so a client can
  check that every call reached the server over kept-alive connections and
  how busy the server was.  Not counted in ``requests``.
* Malformed requests get a 400 (431 for an oversized head) and the
  connection is closed.

Output: the port, alone on the first line of stdout, once listening.  On
SIGTERM or SIGINT it closes every connection, prints one ``served ...`` line
and exits with status 0.

Only the standard library is needed (uvloop is optional).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import time
from email.utils import formatdate

__all__ = [
    "BOT_ID",
    "CHAT_ID",
    "MESSAGE_ID",
    "SEND_MESSAGE_BODY",
    "TEXT",
    "MockBotApi",
    "main",
]

BOT_ID = 7_000_000_001
CHAT_ID = 123_456_789
MESSAGE_ID = 4242
DATE = 1_763_800_000
TEXT = "Hi @alice_liddell, your parcel is on its way \U0001f4e6"

BOT_USER = {
    "id": BOT_ID,
    "is_bot": True,
    "first_name": "tgfast bench",
    "username": "tgfast_bench_bot",
}
MESSAGE = {
    "message_id": MESSAGE_ID,
    "from": BOT_USER,
    "chat": {
        "id": CHAT_ID,
        "first_name": "Alice",
        "last_name": "Liddell",
        "username": "alice_liddell",
        "type": "private",
    },
    "date": DATE,
    "text": TEXT,
    # Telegram finds the mention in plain text and returns it as an entity
    # (offsets in UTF-16 code units).
    "entities": [{"offset": 3, "length": 14, "type": "mention"}],
}
GET_ME = {
    **BOT_USER,
    "can_join_groups": True,
    "can_read_all_group_messages": False,
    "supports_inline_queries": False,
    "can_connect_to_business": False,
    "has_main_web_app": False,
}


def telegram_json(obj: object) -> bytes:
    """Encode like the Bot API does: compact, non-ASCII escaped."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=True).encode("ascii")


SEND_MESSAGE_BODY = telegram_json({"ok": True, "result": MESSAGE})
GET_ME_BODY = telegram_json({"ok": True, "result": GET_ME})
NOT_FOUND_BODY = telegram_json({"ok": False, "error_code": 404, "description": "Not Found"})

MAX_HEAD = 64 * 1024
_CRLF2 = b"\r\n\r\n"
_CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"


def _bad_request(status: str) -> bytes:
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {len(status)}\r\n"
        f"Connection: close\r\n\r\n{status}"
    ).encode("ascii")


class _Answers:
    """Complete responses (status line, headers, body), rebuilt once a second for ``Date``."""

    __slots__ = ("get_me", "not_found", "second", "send_message")

    def __init__(self) -> None:
        self.second = -1
        self.refresh()

    def refresh(self) -> None:
        now = int(time.time())
        if now == self.second:
            return
        self.second = now
        date = formatdate(now, usegmt=True)
        self.send_message = self._build("200 OK", date, SEND_MESSAGE_BODY)
        self.get_me = self._build("200 OK", date, GET_ME_BODY)
        self.not_found = self._build("404 Not Found", date, NOT_FOUND_BODY)

    @staticmethod
    def _build(status: str, date: str, body: bytes) -> bytes:
        # The header set api.telegram.org sends.
        head = (
            f"HTTP/1.1 {status}\r\n"
            "Server: nginx/1.18.0\r\n"
            f"Date: {date}\r\n"
            "Content-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n"
            "Connection: keep-alive\r\n"
            "Strict-Transport-Security: max-age=31536000; includeSubDomains; preload\r\n"
            "Access-Control-Allow-Origin: *\r\n"
            "Access-Control-Allow-Methods: GET, POST, OPTIONS\r\n"
            "Access-Control-Expose-Headers: Content-Length,Content-Type,Date,Server,Connection\r\n"
            "\r\n"
        )
        return head.encode("ascii") + body


class MockBotApi:
    """Counters and canned answers shared by all connections."""

    def __init__(self) -> None:
        self.answers = _Answers()
        self.requests = 0
        self.connections = 0
        self.open: set[_Connection] = set()

    def answer(self, target: bytes) -> bytes:
        path = target.split(b"?", 1)[0]
        if path.startswith(b"/bot"):
            token, _, method = path[4:].partition(b"/")
            if token and method and b"/" not in method:
                self.requests += 1
                method = method.lower()
                if method == b"sendmessage":
                    return self.answers.send_message
                if method == b"getme":
                    return self.answers.get_me
                return self.answers.not_found
        if path == b"/_stats":
            return self._stats()
        self.requests += 1
        return self.answers.not_found

    def _stats(self) -> bytes:
        body = telegram_json(
            {
                "requests": self.requests,
                "connections": self.connections,
                "open": len(self.open),
                "cpu": time.process_time(),
            }
        )
        return (
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
            % (len(body), body)
        )

    def protocol(self) -> _Connection:
        return _Connection(self)


def _chunked_end(buf: bytes, pos: int) -> int:
    """Index just past a complete chunked body starting at ``pos``; -1 if incomplete.

    Raises ValueError on a malformed chunk-size line.
    """
    while True:
        eol = buf.find(b"\r\n", pos)
        if eol < 0:
            return -1
        size = int(buf[pos:eol].split(b";", 1)[0], 16)
        pos = eol + 2
        if size == 0:
            while True:  # optional trailer fields, then an empty line
                eol = buf.find(b"\r\n", pos)
                if eol < 0:
                    return -1
                if eol == pos:
                    return eol + 2
                pos = eol + 2
        pos += size + 2
        if pos > len(buf):
            return -1
        if buf[pos - 2 : pos] != b"\r\n":
            raise ValueError("chunk not followed by CRLF")


class _Connection(asyncio.Protocol):
    __slots__ = ("buf", "continued", "server", "transport")

    def __init__(self, server: MockBotApi) -> None:
        self.server = server
        self.transport: asyncio.Transport | None = None
        self.buf = b""
        self.continued = False  # 100 Continue already sent for the pending request

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.server.connections += 1
        self.server.open.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.server.open.discard(self)
        self.transport = None

    def data_received(self, data: bytes) -> None:
        buf = self.buf + data if self.buf else data
        transport = self.transport
        if transport is None:
            return
        out: list[bytes] = []
        pos = 0
        close = False
        while True:
            end = buf.find(_CRLF2, pos)
            if end < 0:
                if len(buf) - pos > MAX_HEAD:
                    out.append(_bad_request("431 Request Header Fields Too Large"))
                    close = True
                break
            try:
                target, body_end, keep_alive, expect = self._parse(buf, pos, end)
            except ValueError:
                out.append(_bad_request("400 Bad Request"))
                close = True
                break
            if body_end < 0 or body_end > len(buf):
                if expect and not self.continued:
                    out.append(_CONTINUE)
                    self.continued = True
                break
            self.continued = False
            out.append(self.server.answer(target))
            pos = body_end
            if not keep_alive:
                close = True
                break
        self.buf = buf[pos:] if pos < len(buf) and not close else b""
        if out:
            transport.write(b"".join(out))
        if close:
            transport.close()

    @staticmethod
    def _parse(buf: bytes, pos: int, end: int) -> tuple[bytes, int, bool, bool]:
        """(target, index past the body or -1, keep-alive?, expects 100?) of one request."""
        lines = buf[pos:end].split(b"\r\n")
        _method, target, version = lines[0].split(b" ")
        if not version.startswith(b"HTTP/1.") or not target.startswith(b"/"):
            raise ValueError("not an HTTP/1.x request line")
        keep_alive = version == b"HTTP/1.1"
        length = 0
        chunked = expect = False
        for line in lines[1:]:
            name, sep, value = line.partition(b":")
            if not sep:
                raise ValueError("header line without colon")
            name = name.lower()
            if name == b"content-length":
                length = int(value)
                if length < 0:
                    raise ValueError("negative Content-Length")
            elif name == b"transfer-encoding":
                chunked = b"chunked" in value.lower()
            elif name == b"connection":
                token = value.strip().lower()
                if token == b"close":
                    keep_alive = False
                elif token == b"keep-alive":
                    keep_alive = True
            elif name == b"expect":
                expect = value.strip().lower() == b"100-continue"
        start = end + 4
        body_end = _chunked_end(buf, start) if chunked else start + length
        return target, body_end, keep_alive, expect


async def serve(host: str, port: int) -> None:
    loop = asyncio.get_running_loop()
    api = MockBotApi()
    server = await loop.create_server(api.protocol, host, port, backlog=1024)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)

    def tick() -> None:
        api.answers.refresh()
        handle[0] = loop.call_later(1.0, tick)

    handle = [loop.call_later(1.0, tick)]
    print(server.sockets[0].getsockname()[1], flush=True)
    await stop.wait()
    handle[0].cancel()
    server.close()
    for conn in list(api.open):
        if conn.transport is not None:
            conn.transport.close()
    await server.wait_closed()
    print(
        f"served {api.requests} requests on {api.connections} connections, "
        f"{time.process_time():.2f} s CPU",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Mock Telegram Bot API server (benchmarks).")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 (default): any free port")
    parser.add_argument("--no-uvloop", action="store_true", help="use asyncio's default loop")
    args = parser.parse_args(argv)
    loop_factory = None
    if not args.no_uvloop:
        try:
            import uvloop
        except ImportError:
            pass
        else:
            loop_factory = uvloop.new_event_loop
    if sys.version_info >= (3, 11):
        with asyncio.Runner(loop_factory=loop_factory) as runner:
            runner.run(serve(args.host, args.port))
    else:  # pragma: no cover
        if loop_factory is not None:
            asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
        asyncio.run(serve(args.host, args.port))
    return 0


if __name__ == "__main__":
    sys.exit(main())
