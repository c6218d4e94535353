"""The sink: a lean Bot API server on 127.0.0.1 that records every echo.

Every bot in the benchmark uses it as its API base.  It runs inside the
harness process (on the harness's core, next to the load generator, sharing
its clock), as a raw asyncio protocol over :mod:`wire`, so that it costs far
less per request than any bot it serves.

Methods (``/bot<token>/<method>``, any case, JSON, form-urlencoded or
multipart parameters, or a query string):

* ``sendMessage``: the text names its update (``"e2e <update_id>"``); its
  arrival time is recorded in the run's :class:`record.Tracker`, then it is
  answered with a ``Message`` like Telegram's.
* ``getUpdates``: long polling over the queue the generator fills in polling
  mode, with Telegram's semantics: ``offset`` confirms (and drops) every
  update below it, up to ``limit`` (100) are returned at once, an empty queue
  is waited on for ``timeout`` seconds, and a second concurrent call ends the
  first with 409 Conflict.
* ``getMe``, ``setWebhook``, ``deleteWebhook``, ``getWebhookInfo``, ``close``,
  ``logOut``: canned answers.  Anything else: Telegram's 404 JSON.

Counters (:attr:`Sink.methods`, ``bad_requests``, ``stray_echoes``,
``conflicts``) let the runner show that nothing unexpected happened.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter, deque
from typing import Any
from urllib.parse import parse_qsl

import orjson
import wire
from record import Tracker
from updates import echo_id

BOT_ID = 7_000_000_002
BOT_USER = {"id": BOT_ID, "is_bot": True, "first_name": "e2e sink", "username": "e2e_sink_bot"}
GET_ME = {**BOT_USER, "can_join_groups": True, "can_read_all_group_messages": False,
          "supports_inline_queries": False}  # fmt: skip
WEBHOOK_INFO = {"url": "", "has_custom_certificate": False, "pending_update_count": 0}
CANNED: dict[str, Any] = {
    "getme": GET_ME,
    "setwebhook": True,
    "deletewebhook": True,
    "getwebhookinfo": WEBHOOK_INFO,
    "close": True,
    "logout": True,
}
MAX_LIMIT = 100
CONFLICT = (
    "Conflict: terminated by other getUpdates request; "
    "make sure that only one bot instance is running"
)


def _answer(status: int, body: bytes) -> bytes:
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 409: "Conflict"}.get(status, "")
    return (
        b"HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
        b"Connection: keep-alive\r\n\r\n%s" % (status, reason.encode(), len(body), body)
    )


def _error(status: int, description: str) -> bytes:
    return _answer(
        status, orjson.dumps({"ok": False, "error_code": status, "description": description})
    )


def _ok(result: Any) -> bytes:
    return _answer(200, orjson.dumps({"ok": True, "result": result}))


def _multipart(body: bytes, content_type: bytes) -> dict[str, str]:
    boundary = content_type.partition(b"boundary=")[2].split(b";")[0].strip(b'" ')
    out: dict[str, str] = {}
    for part in body.split(b"--" + boundary):
        head, sep, value = part.partition(wire.CRLF2)
        if not sep:
            continue
        name = head.partition(b'name="')[2].partition(b'"')[0]
        if name:
            out[name.decode()] = value[:-2].decode() if value.endswith(b"\r\n") else value.decode()
    return out


def params_of(msg: wire.Message, query: bytes) -> dict[str, Any]:
    """A request's parameters, whichever way the client encoded them."""
    ctype = msg.headers.get(b"content-type", b"")
    kind = ctype.split(b";", 1)[0].strip().lower()
    params: dict[str, Any] = dict(parse_qsl(query.decode())) if query else {}
    if not msg.body:
        return params
    if kind == b"application/json":
        params.update(orjson.loads(msg.body))
    elif kind == b"application/x-www-form-urlencoded":
        params.update(parse_qsl(msg.body.decode()))
    elif kind == b"multipart/form-data":
        params.update(_multipart(msg.body, ctype))
    else:
        raise ValueError(f"unsupported Content-Type {ctype[:60]!r}")
    return params


class _Waiter:
    """A getUpdates call waiting for updates."""

    __slots__ = ("conn", "limit", "timer")

    def __init__(self, conn: SinkConnection, limit: int, timer: asyncio.TimerHandle) -> None:
        self.conn, self.limit, self.timer = conn, limit, timer


class Sink:
    """State shared by all connections: trackers, the polling queue, counters."""

    def __init__(self) -> None:
        self.trackers: list[Tracker] = []
        self.queue: deque[tuple[int, bytes, Tracker, int]] = deque()
        self.waiter: _Waiter | None = None
        self._flush_scheduled = False
        self.methods: Counter[str] = Counter()
        self.bad_requests = 0
        self.stray_echoes = 0  # sendMessage calls that name no update of an active block
        self.conflicts = 0
        self.connections = 0
        self.message_id = 0
        self.server: asyncio.Server | None = None
        self.port = 0

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        loop = asyncio.get_running_loop()
        self.server = await loop.create_server(lambda: SinkConnection(self), host, port)
        self.port = self.server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def reset_queue(self) -> None:
        """Forget the polling queue (between runs); a waiting call gets an empty answer."""
        self.queue.clear()
        if self.waiter is not None:
            waiter, self.waiter = self.waiter, None
            waiter.timer.cancel()
            waiter.conn.respond(_ok([]))

    # -- polling ---------------------------------------------------------------

    def push(self, tracker: Tracker, i: int, body: bytes) -> None:
        """Make update ``i`` available to getUpdates (the generator's polling mode)."""
        self.queue.append((tracker.update_id(i), body, tracker, i))
        if self.waiter is not None and not self._flush_scheduled:
            # Answer at the end of this loop iteration: everything pushed in the
            # same tick goes out in one response, as Telegram batches them.
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_scheduled = False
        waiter = self.waiter
        if waiter is not None and self.queue:
            self.waiter = None
            waiter.timer.cancel()
            waiter.conn.respond(self._batch(waiter.limit))

    def _batch(self, limit: int) -> bytes:
        items = [self.queue[k][1] for k in range(min(limit, len(self.queue)))]
        body = b'{"ok":true,"result":[' + b",".join(items) + b"]}"
        return _answer(200, body)

    def get_updates(self, conn: SinkConnection, params: dict[str, Any]) -> bytes | None:
        offset = int(params.get("offset") or 0)
        limit = max(1, min(MAX_LIMIT, int(params.get("limit") or MAX_LIMIT)))
        timeout = float(params.get("timeout") or 0)
        queue = self.queue
        while queue and queue[0][0] < offset:  # confirmed: Telegram forgets them
            _, _, tracker, i = queue.popleft()
            tracker.acked[i] = 1
        if self.waiter is not None:  # Telegram ends the older call
            self.conflicts += 1
            old, self.waiter = self.waiter, None
            old.timer.cancel()
            old.conn.respond(_error(409, CONFLICT))
        if queue or timeout <= 0:
            return self._batch(limit)
        timer = asyncio.get_running_loop().call_later(timeout, self._timeout, conn)
        self.waiter = _Waiter(conn, limit, timer)
        return None

    def _timeout(self, conn: SinkConnection) -> None:
        if self.waiter is not None and self.waiter.conn is conn:
            self.waiter = None
            conn.respond(_ok([]))

    def forget(self, conn: SinkConnection) -> None:
        if self.waiter is not None and self.waiter.conn is conn:
            self.waiter.timer.cancel()
            self.waiter = None

    # -- requests --------------------------------------------------------------

    def handle(self, conn: SinkConnection, msg: wire.Message) -> bytes | None:
        """The answer to one request, or None if it will come later (long poll)."""
        parts = msg.start.split(b" ")
        if len(parts) != 3:
            self.bad_requests += 1
            return _error(400, "Bad Request: malformed request line")
        path, _, query = parts[1].partition(b"?")
        token, _, method_b = (
            path[4:].partition(b"/") if path.startswith(b"/bot") else (b"", b"", b"")
        )
        if not token or not method_b:
            self.bad_requests += 1
            return _error(404, "Not Found")
        method = method_b.decode().lower()
        self.methods[method] += 1
        try:
            params = params_of(msg, query)
        except (ValueError, UnicodeDecodeError) as exc:
            self.bad_requests += 1
            return _error(400, f"Bad Request: {exc}")
        if method == "sendmessage":
            return self.send_message(params)
        if method == "getupdates":
            return self.get_updates(conn, params)
        if method in CANNED:
            return _ok(CANNED[method])
        return _error(404, "Not Found")

    def send_message(self, params: dict[str, Any]) -> bytes:
        now = time.perf_counter()
        text = params.get("text")
        try:
            chat_id: int | None = int(params["chat_id"])
        except (KeyError, TypeError, ValueError):
            chat_id = None
        uid = echo_id(text)
        if uid is not None:
            for tracker in self.trackers:
                i = tracker.index(uid)
                if i >= 0:
                    tracker.record_echo(i, chat_id, now)
                    break
            else:
                self.stray_echoes += 1
        else:
            self.stray_echoes += 1
        if chat_id is None or not isinstance(text, str):
            self.bad_requests += 1
            return _error(400, "Bad Request: chat_id and text are required")
        self.message_id += 1
        return _ok(
            {
                "message_id": self.message_id,
                "from": BOT_USER,
                "chat": {"id": chat_id, "first_name": "Load", "type": "private"},
                "date": int(time.time()),
                "text": text,
            }
        )


class SinkConnection(asyncio.Protocol):
    """One client connection: requests are answered in order, one at a time."""

    __slots__ = ("inbox", "parser", "sink", "transport", "waiting")

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.parser = wire.Parser(response=False)
        self.inbox: deque[wire.Message] = deque()
        self.transport: asyncio.Transport | None = None
        self.waiting = False  # a getUpdates of this connection is being held

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.sink.connections += 1

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        self.sink.forget(self)

    def data_received(self, data: bytes) -> None:
        try:
            self.inbox.extend(self.parser.feed(data))
        except wire.ProtocolError as exc:
            self.sink.bad_requests += 1
            if self.transport is not None:
                self.transport.write(_error(400, f"Bad Request: {exc}"))
                self.transport.close()
            return
        self._drain()

    def _drain(self) -> None:
        while self.inbox and not self.waiting and self.transport is not None:
            answer = self.sink.handle(self, self.inbox.popleft())
            if answer is None:
                self.waiting = True
            else:
                self.transport.write(answer)

    def respond(self, answer: bytes) -> None:
        """Answer the held request, then go on with any that queued up behind it."""
        self.waiting = False
        if self.transport is not None:
            self.transport.write(answer)
            self._drain()
