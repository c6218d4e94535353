"""The open-loop load generator: updates leave at a fixed rate, whatever the bot does.

:func:`pace` schedules update ``i`` at ``t0 + i / rate`` on an absolute
clock and hands it to an *emitter* as soon as it is due: a late tick sends
everything that fell due meanwhile, so a slow bot (or a slow harness) never
lowers the offered rate.  The due time, not the moment the bytes left, is
what latencies are measured from; the harness's own lateness is recorded
apart (``Tracker.lags``) to show it stayed small.

Emitters:

* :class:`WebhookPoster` POSTs each update to the bot's webhook the way
  Telegram does: JSON body, the secret in ``X-Telegram-Bot-Api-Secret-Token``,
  a pool of kept-alive HTTP/1.1 connections with at most one request in
  flight each (Telegram's ``max_connections``, here 100 by default; an update
  due while all are busy waits for one, and its latency includes the wait).
  A 503 or 429 is a refusal: the same update is sent again after
  ``Retry-After`` (or the 429's ``parameters.retry_after``), else after an
  exponential back-off with jitter; any other non-200 answer or a lost
  connection is retried the same way and counted as an error.  A 200 marks
  the update acknowledged.
* polling mode needs no emitter of its own: the runner pushes each due update
  into the sink's getUpdates queue (:meth:`sink.Sink.push`).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import deque
from collections.abc import Callable

import orjson
import wire
from record import Tracker
from updates import update_body

TICK = 0.001  # the pacer's shortest sleep
BACKOFF_FIRST = 0.05  # seconds before the first retry without a Retry-After
BACKOFF_MAX = 2.0


async def pace(rate: float, tracker: Tracker, emit: Callable[[int], None]) -> float:
    """Emit every update of the tracker at ``rate`` per second; return the start time."""
    clock = time.perf_counter
    n, due, lags = tracker.n, tracker.due, tracker.lags
    t0 = clock()
    i = 0
    while i < n:
        now = clock()
        last = min(n, int((now - t0) * rate) + 1)
        while i < last:
            scheduled = t0 + i / rate
            due[i] = scheduled
            lags.append(now - scheduled)
            emit(i)
            i += 1
        if i < n:
            # uvloop's timers tick in milliseconds: a shorter sleep returns at once and
            # would spin.  Whatever falls due meanwhile goes out on the next tick.
            await asyncio.sleep(max(TICK, t0 + i / rate - clock()))
    return t0


def _retry_after(msg: wire.Message) -> float | None:
    """Seconds the bot asked to wait: the header, else a 429's JSON ``retry_after``."""
    value = msg.headers.get(b"retry-after")
    if value is not None:
        try:
            return max(0.0, float(value))
        except ValueError:
            return None
    if msg.body:
        try:
            data = orjson.loads(msg.body)
            return float(data["parameters"]["retry_after"])
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            return None
    return None


class WebhookPoster:
    """Telegram's side of a webhook: a connection pool, retries, acknowledgements."""

    def __init__(
        self,
        tracker: Tracker,
        port: int,
        path: str,
        secret: str,
        max_connections: int,
        host: str = "127.0.0.1",
    ) -> None:
        self.tracker = tracker
        self.host, self.port = host, port
        self.max_connections = max_connections
        self._head = (
            f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
            "Content-Type: application/json\r\n"
            f"X-Telegram-Bot-Api-Secret-Token: {secret}\r\n"
            "Content-Length: "
        ).encode("ascii")
        self.idle: list[_PosterConnection] = []
        self.open = 0  # connected or connecting
        self.waiting: deque[int] = deque()  # updates due, waiting for a free connection
        self.attempts: dict[int, int] = {}  # retries so far, per update that needed one
        self.timers: set[asyncio.TimerHandle] = set()
        self.connections: set[_PosterConnection] = set()
        self.closed = False
        self.last_error = ""  # the latest non-200, non-refusal answer, for diagnostics
        self.max_retry_after = 0.0  # the longest wait a refusal asked for

    def request(self, i: int) -> bytes:
        body = update_body(self.tracker, i)
        return b"%s%d\r\n\r\n%s" % (self._head, len(body), body)

    def submit(self, i: int) -> None:
        """Send update ``i`` now if a connection is free (or can be opened), else queue it."""
        if self.closed:
            return
        if self.idle:
            self.idle.pop().send(i)
        elif self.open < self.max_connections:
            self.open += 1
            asyncio.get_running_loop().create_task(self._connect(i))
        else:
            self.waiting.append(i)

    async def _connect(self, i: int) -> None:
        loop = asyncio.get_running_loop()
        try:
            _, conn = await loop.create_connection(
                lambda: _PosterConnection(self), self.host, self.port
            )
        except OSError as exc:
            self.open -= 1
            self.tracker.connection_errors += 1
            self.last_error = f"connect: {exc}"
            self._retry(i, None)
            return
        self.tracker.connections += 1
        if self.closed:
            conn.close()
            return
        conn.send(i)

    def _retry(self, i: int, after: float | None) -> None:
        attempt = self.attempts.get(i, 0) + 1
        self.attempts[i] = attempt
        if after is not None:
            self.max_retry_after = max(self.max_retry_after, after)
        else:
            after = min(BACKOFF_MAX, BACKOFF_FIRST * 2 ** (attempt - 1)) * random.uniform(0.5, 1.5)
        if self.closed:
            return
        handle: asyncio.TimerHandle | None = None

        def fire() -> None:
            self.timers.discard(handle)  # type: ignore[arg-type]
            tracker = self.tracker
            tracker.retries += 1
            tracker.retry_times.append(time.perf_counter())
            self.submit(i)

        handle = asyncio.get_running_loop().call_later(after, fire)
        self.timers.add(handle)

    def on_response(self, i: int, msg: wire.Message) -> None:
        status = wire.status_of(msg.start)
        tracker = self.tracker
        tracker.statuses[status] += 1
        if status == 200:
            tracker.acked[i] = 1
        elif status in (503, 429):
            tracker.refused[i] = 1
            tracker.refusal_times.append(time.perf_counter())
            self._retry(i, _retry_after(msg))
        else:
            self.last_error = f"{msg.start.decode(errors='replace')} {msg.body[:200]!r}"
            self._retry(i, None)

    def on_idle(self, conn: _PosterConnection) -> None:
        if self.waiting and not self.closed:
            conn.send(self.waiting.popleft())
        else:
            self.idle.append(conn)

    def on_lost(self, conn: _PosterConnection, in_flight: int) -> None:
        self.open -= 1
        self.connections.discard(conn)
        if conn in self.idle:
            self.idle.remove(conn)
        if in_flight >= 0 and not self.closed:
            self.tracker.connection_errors += 1
            self.last_error = "connection lost with a request in flight"
            self._retry(in_flight, None)
        if self.waiting and not self.closed and self.open < self.max_connections:
            self.open += 1
            asyncio.get_running_loop().create_task(self._connect(self.waiting.popleft()))

    def pending(self) -> int:
        """Updates not yet answered with a 200: queued, in flight or waiting to be retried."""
        return (
            len(self.waiting)
            + len(self.timers)
            + sum(1 for c in self.connections if c.current >= 0)
        )

    def close(self) -> None:
        """Stop sending: cancel retries, drop the queue, close every connection."""
        self.closed = True
        for handle in self.timers:
            handle.cancel()
        self.timers.clear()
        self.waiting.clear()
        for conn in list(self.connections):
            conn.close()


class _PosterConnection(asyncio.Protocol):
    __slots__ = ("current", "parser", "poster", "transport")

    def __init__(self, poster: WebhookPoster) -> None:
        self.poster = poster
        self.parser = wire.Parser(response=True)
        self.transport: asyncio.Transport | None = None
        self.current = -1  # the update whose request is in flight

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.poster.connections.add(self)

    def send(self, i: int) -> None:
        assert self.transport is not None and self.current < 0
        self.current = i
        self.poster.tracker.requests += 1
        self.transport.write(self.poster.request(i))

    def data_received(self, data: bytes) -> None:
        try:
            messages = self.parser.feed(data)
        except wire.ProtocolError as exc:
            self.poster.last_error = f"bad response: {exc}"
            self.close()
            return
        for msg in messages:
            i, self.current = self.current, -1
            if i < 0:  # an answer nobody asked for
                self.poster.last_error = f"unsolicited response {msg.start!r}"
                self.close()
                return
            self.poster.on_response(i, msg)
            if not wire.keeps_alive(msg):
                self.close()
                return
            self.poster.on_idle(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        in_flight, self.current = self.current, -1
        self.poster.on_lost(self, in_flight)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()
