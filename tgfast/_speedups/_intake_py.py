"""The webhook server's HTTP/1.1 connections (pure-Python twin of ``_intake.pyx``).

One ``WebhookProtocol`` per connection, over llhttp (``httptools``: the parser uvicorn
uses; it reads a webhook request in under 2 µs where aiohttp's, driven from outside
aiohttp, takes about 9). Everything a request needs is decided when its head is
complete, from state built once (``IntakeState``): the path, the address and secret
checks, the in-flight bound and the body limit; a refused request's body is skipped,
never kept. An accepted body is decoded and handed to ``UpdateProcessor.offer`` in the
same call that received it, and the answer is one write of ready bytes: no task, no
future, no timer per request. Only a shared dedup store (Redis) or reply mode, which
must wait, run a coroutine (``WebhookServer.answer_later``); the connection stops
reading meanwhile, so pipelined requests are answered in order.

Deadlines are one timer per connection, moved lazily: ``header_timeout`` from the
connection's opening (or a kept-alive request's first byte) to a complete head,
``body_timeout`` from the head to the body's end (408), ``keepalive_timeout`` idle
between requests. ``IntakeState.connections`` bounds the open connections.

At the in-flight bound a request is answered 503 from its head (the body is skipped),
with ``Retry-After`` values in turn (``IntakeState.refusal``), on a connection kept
alive; that connection is then parked (``IntakeState.park``): not read until the
processor has room, one connection per free slot. A client that sends again at once
(as a webhook client does with its few connections) waits in the socket instead of
being refused over and over, so that refusing costs the work in flight no CPU.

The rare paths (health, metrics, logs, 400s) call back into the ``WebhookServer``.
"""

from __future__ import annotations

import asyncio
import hmac
from collections import deque
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

import httptools

from ._wire import BodyTooLarge, UnreadableBody, closing, inflate, response

if TYPE_CHECKING:
    from ..server.webhook import WebhookServer

__all__ = ["IntakeState", "WebhookProtocol"]

_HEAD, _BODY, _IDLE = 0, 1, 2  # where the parser is in a request
_BUSY_READ, _WRITE_FULL, _PARKED = 1, 2, 4  # why reading is paused (bits)
_NEVER = float("inf")
_DISCARD_FACTOR = 8  # a refused body is skipped up to this many times max_body_size

_SECRET = b"x-telegram-bot-api-secret-token"
_FORWARDED = b"x-forwarded-for"
_LENGTH = b"content-length"
_ENCODING = b"content-encoding"
_EXPECT = b"expect"
_CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
_LENGTH_CAP = 1 << 62  # a larger Content-Length is as refused
_MAX_HEAD = 64 * 1024  # bytes of a request head at most, beyond: 400


class IntakeState:
    """What every connection of one server shares: its settings, prebuilt answers and
    the counts of open connections and of body bytes being read.

    ``retry_after``: the ``Retry-After`` values (seconds, ASCII) that 503s name in turn,
    one prebuilt answer each (``unavailable``): the updates refused together come back
    spread over that span, not in one wave."""

    __slots__ = (
        "allows", "body_timeout", "connections", "header_timeout", "keepalive_timeout",
        "loop", "max_body_size", "max_connections", "ok", "path", "processor", "read_budget",
        "reading", "reclaimer", "rejected", "reply_mode", "secret", "secret_refused", "server",
        "too_large", "unavailable", "wrong_method", "access_log", "decode", "accepted",
        "duplicate", "turn", "parked", "waker",
    )  # fmt: skip

    def __init__(
        self,
        server: WebhookServer,
        *,
        path: bytes,
        secret: bytes | None,
        secret_refused: bytes,
        retry_after: tuple[bytes, ...],
        max_body_size: int,
        read_budget: int,
        header_timeout: float,
        body_timeout: float,
        keepalive_timeout: float,
        max_connections: int,
        reply_mode: bool,
        allows: Callable[[str | None, list[str]], bool] | None,
        access_log: bool,
    ) -> None:
        self.server = server
        self.loop = asyncio.get_running_loop()
        self.processor = server.processor
        self.decode = server.decode
        self.accepted = server.accepted
        self.duplicate = server.duplicate
        self.rejected = server.metrics.rejected
        self.reclaimer = server._reclaimer
        self.path = path
        self.secret = secret
        self.max_body_size = max_body_size
        self.read_budget = read_budget
        self.reading = 0
        self.header_timeout = header_timeout
        self.body_timeout = body_timeout
        self.keepalive_timeout = keepalive_timeout
        self.max_connections = max_connections
        self.connections: set[WebhookProtocol] = set()
        self.reply_mode = reply_mode
        self.allows = allows
        self.access_log = access_log
        self.ok = response(200)
        self.unavailable = tuple(
            response(503, headers=[("Retry-After", wait.decode())]) for wait in retry_after
        )
        self.turn = 0
        self.parked: deque[WebhookProtocol] = deque()
        self.waker: asyncio.Task[None] | None = None
        self.wrong_method = response(405, headers=[("Allow", "POST")])
        self.too_large = response(413, close=True)
        self.secret_refused = secret_refused

    def refusal(self) -> bytes:
        """The next 503 answer: the ``Retry-After`` values in turn."""
        answers = self.unavailable
        turn = self.turn
        self.turn = turn + 1 if turn + 1 < len(answers) else 0
        return answers[turn]

    def park(self, protocol: WebhookProtocol) -> None:
        """Hold a connection just refused at the in-flight bound: nothing more is read
        from it until the processor has room, so that a client sending again at once
        waits in the socket, at no cost, instead of being refused again and again (the
        refusals would take the CPU the work in flight needs)."""
        self.parked.append(protocol)
        if self.waker is None:
            self.waker = self.loop.create_task(self._wake())

    async def _wake(self) -> None:
        """Resume parked connections, first parked first, one per free slot: at each
        turn of the loop as many as there is room for, so that their requests are read
        (and take the room) before more are resumed. Closing resumes them all: their
        requests are answered 503 at once."""
        processor = self.processor
        parked = self.parked
        try:
            while parked:
                room = await processor.wait_for_room()
                for _ in range(len(parked) if processor._closed else min(room, len(parked))):
                    parked.popleft().unpark()
                await asyncio.sleep(0)  # one turn of the loop: the resumed ones are read
        finally:
            self.waker = None

    def close(self) -> None:
        """The server stops: no more waking (its connections are closed)."""
        self.parked.clear()
        if self.waker is not None:
            self.waker.cancel()
            self.waker = None


class WebhookProtocol(asyncio.Protocol):
    """One connection; see the module docstring."""

    __slots__ = (
        "busy", "chunks", "deadline", "discarded", "encoding", "forwarded",
        "given", "head_timed", "length", "loop", "parser", "paused", "peer",
        "pending", "phase", "reserved", "size", "state", "timer", "timer_at", "transport",
        "url", "verdict", "close_after", "closing", "expect", "head_size", "full",
    )  # fmt: skip

    def __init__(self, state: IntakeState) -> None:
        self.state = state
        self.loop = state.loop
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpRequestParser(self)
        self.phase = _HEAD
        self.peer: str | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.timer_at = _NEVER
        self.deadline = 0.0
        self.head_timed = True  # the first head's deadline runs from the opening
        self.busy = False  # a request is being answered by a coroutine
        self.paused = 0
        self.pending: deque[tuple[bytes | None, bytes, bytes | None, bool]] | None = None
        self.close_after = False
        self.closing = False
        self._reset()

    def _reset(self) -> None:
        self.url = b""
        self.length = -1
        self.given: bytes | None = None
        self.forwarded: list[str] | None = None
        self.encoding: bytes | None = None
        self.verdict: bytes | None = None
        self.chunks: list[bytes] = []
        self.size = 0
        self.discarded = 0
        self.reserved = 0
        self.head_size = 0
        self.expect = False
        self.full = False  # refused at the in-flight bound: park once answered

    # -- the connection ------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        state = self.state
        if len(state.connections) >= state.max_connections:
            self.closing = True
            state.server.refuse_connection(transport, len(state.connections))
            return
        state.connections.add(self)
        self.transport = transport  # type: ignore[assignment]
        peer = transport.get_extra_info("peername")
        self.peer = peer[0] if isinstance(peer, tuple) else None
        self._arm(self.loop.time() + state.header_timeout)

    def connection_lost(self, exc: BaseException | None) -> None:
        state = self.state
        state.connections.discard(self)
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.phase == _BODY and self.verdict is None and not self.closing:
            state.server.aborted()
            state.reclaimer.note(max(self.size, self.reserved))
        self._release()
        if self.paused & _PARKED:
            self.paused &= ~_PARKED
            try:
                state.parked.remove(self)
            except ValueError:
                pass  # the waker took it already
        self.closing = True
        if self.transport is not None:  # Python 3.10's TLS transport counts as open until
            self.transport.close()  # closed by hand, and warns when collected
        self.transport = None
        self.chunks = []
        self.pending = None

    def eof_received(self) -> bool | None:
        """The client is done sending: the transport closes once the answers are out."""
        return None

    def pause_writing(self) -> None:
        self._pause(_WRITE_FULL)

    def resume_writing(self) -> None:
        self._resume(_WRITE_FULL)

    def data_received(self, data: bytes) -> None:
        if self.closing:
            return
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._malformed("an Upgrade request")
            return
        except httptools.HttpParserError as exc:
            self._malformed(str(exc) or type(exc).__name__)
            return
        if self.closing:
            return
        phase = self.phase
        if phase == _IDLE:
            if not self.busy:
                self.deadline = self.loop.time() + self.state.keepalive_timeout
        elif phase == _HEAD:
            if not self.head_timed:  # a kept-alive request's head: from its first byte
                self.head_timed = True
                self._arm(self.loop.time() + self.state.header_timeout)
            if self.head_size >= 0:  # a head that began before this chunk: count it whole
                self.head_size += len(data)
                if self.head_size > _MAX_HEAD:
                    self._malformed("a request head over 64 KiB")
            else:
                self.head_size = 0
        elif phase == _BODY and not self.reserved and self.verdict is None:
            self._reserve()

    # -- the parser's callbacks ------------------------------------------------------------

    def on_message_begin(self) -> None:
        self.phase = _HEAD
        self.head_size = -1  # this chunk is not counted (it may hold a body before)

    def on_url(self, url: bytes) -> None:
        self.url += url

    def on_header(self, name: bytes, value: bytes) -> None:
        size = len(name)
        if size == 14:
            if name.lower() == _LENGTH:
                try:
                    self.length = min(int(value), _LENGTH_CAP)
                except ValueError:
                    pass  # llhttp refuses it
        elif size == 31:
            if name.lower() == _SECRET:
                self.given = value
        elif size == 15:
            if name.lower() == _FORWARDED:
                if self.forwarded is None:
                    self.forwarded = []
                self.forwarded.append(value.decode("latin-1"))
        elif size == 16:
            if name.lower() == _ENCODING:
                self.encoding = value
        elif size == 6 and name.lower() == _EXPECT:
            self.expect = value.lower() == b"100-continue"

    def on_headers_complete(self) -> None:
        self._decide()
        if self.expect and not self.closing and self.transport is not None:
            if self.verdict is None:
                self.transport.write(_CONTINUE)  # the client waits for it to send the body
            elif not self.close_after and not self.busy:
                self.transport.write(closing(self.verdict))  # no body comes: answer, close
                self._close()

    def _decide(self) -> None:
        """Whether the request is taken, from its head: ``verdict`` None, else the answer."""
        self.phase = _BODY
        self.head_size = 0
        state = self.state
        url = self.url
        if url != state.path:
            path = url.partition(b"?")[0]
            if path != state.path:
                self.verdict = state.server.other_path(path, self.parser.get_method())
                return
        allows = state.allows
        if allows is not None and not allows(self.peer, self.forwarded or []):
            self.verdict = state.server.forbidden(self.peer, self.forwarded or [])
            return
        rejected = state.rejected
        if self.parser.get_method() != b"POST":
            rejected["method"] += 1
            self.verdict = state.wrong_method
            return
        secret = state.secret
        if secret is not None:
            given = self.given
            if given is None or not hmac.compare_digest(given, secret):
                rejected["secret"] += 1
                self.verdict = state.secret_refused
                return
        processor = state.processor
        if processor._closed:
            refused = "draining"
        elif processor.lagging:  # the loop runs late: the CPU is not keeping up
            refused = "lagging"
        elif processor.in_flight >= processor.in_flight_limit:
            refused = "overloaded"
        else:
            refused = None
        if refused is not None:
            rejected[refused] += 1
            self.verdict = state.refusal()
            self.full = not processor._closed
            return
        if self.length > state.max_body_size:
            rejected["too_large"] += 1
            state.reclaimer.note(self.length)
            self._refuse_now(state.too_large)

    def on_body(self, chunk: bytes) -> None:
        if self.verdict is None:
            size = self.size = self.size + len(chunk)
            if size <= self.state.max_body_size:
                self.chunks.append(chunk)
                return
            state = self.state
            state.rejected["too_large"] += 1
            state.reclaimer.note(size)
            self.chunks = []
            self._release()
            self._refuse_now(state.too_large)
            return
        self.discarded += len(chunk)
        if self.discarded > _DISCARD_FACTOR * self.state.max_body_size:
            self._close()  # a refused body too large to skip

    def on_message_complete(self) -> None:
        self.phase = _IDLE
        self.head_timed = False
        keep = self.parser.should_keep_alive()
        verdict = self.verdict
        if self.close_after or self.closing:
            self._close()
            return
        chunks = self.chunks
        body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        encoding = self.encoding
        full = self.full
        self._release()
        self._reset()
        if self.busy:
            if self.pending is None:
                self.pending = deque()
            self.pending.append((verdict, body, encoding, keep))
            return
        if verdict is not None:
            self._answer(verdict, keep)
            if full and not self.closing and not self.paused & _PARKED:
                self._pause(_PARKED)
                self.state.park(self)
        else:
            self._take(body, encoding, keep)

    # -- answering ---------------------------------------------------------------------------

    def _take(self, body: bytes, encoding: bytes | None, keep: bool) -> None:
        """Decode an accepted body and hand it over; answer, or leave it to a coroutine."""
        state = self.state
        if encoding is not None:
            try:
                body = inflate(body, encoding, state.max_body_size)
            except BodyTooLarge:
                state.rejected["too_large"] += 1
                self._answer(state.too_large, False)
                return
            except UnreadableBody as exc:
                self._answer(state.server.unreadable(encoding, str(exc)), False)
                return
        try:
            update = state.decode(body)
        except Exception as exc:  # noqa: BLE001 - DecodeError, or anything odd: a 400
            self._answer(state.server.not_an_update(len(body), exc), keep)
            return
        if not state.reply_mode:
            admission = state.processor.offer(update)
            if admission is not None:
                if admission is state.accepted or admission is state.duplicate:
                    self._answer(state.ok, keep)
                else:
                    self._answer(state.refusal(), keep)
                return
        self.busy = True
        self._pause(_BUSY_READ)
        task = self.loop.create_task(state.server.answer_later(update, body))
        task.add_done_callback(partial(self._answered, keep))

    def _answered(self, keep: bool, task: asyncio.Task[bytes]) -> None:
        self.busy = False
        if self.closing:
            return  # the client is gone; the update was taken or refused all the same
        try:
            answer = task.result()
        except BaseException as exc:  # noqa: BLE001 - cancelled at shutdown, or a bug
            self.state.server.failed(exc)
            answer = self.state.refusal()
            keep = False
        self._answer(answer, keep)
        pending = self.pending
        while pending and not self.busy and not self.closing:
            verdict, body, encoding, keep = pending.popleft()
            if verdict is not None:
                self._answer(verdict, keep)
            else:
                self._take(body, encoding, keep)
        if not self.busy and not self.closing:
            state = self.state
            idle = self.phase == _IDLE
            self._arm(
                self.loop.time() + (state.keepalive_timeout if idle else state.header_timeout)
            )
            self._resume(_BUSY_READ)

    def _answer(self, answer: bytes, keep: bool) -> None:
        if self.closing:
            return
        if self.state.access_log:
            self.state.server.access(self.peer, answer)
        transport = self.transport
        assert transport is not None
        if keep:
            transport.write(answer)
        else:
            transport.write(closing(answer))
            self._close()

    def _refuse_now(self, answer: bytes) -> None:
        """Answer before the body is read (it is skipped), then close at its end."""
        self.verdict = answer
        if self.busy or self.closing:  # answered in turn, after the one being answered
            return
        assert self.transport is not None
        self.transport.write(closing(answer))
        self.close_after = True

    def _malformed(self, reason: str) -> None:
        if self.closing:
            return
        assert self.transport is not None
        self.transport.write(self.state.server.malformed(self.peer, reason))
        self._close()

    def _close(self) -> None:
        if not self.closing:
            self.closing = True
            if self.transport is not None:
                self.transport.close()

    # -- bounds ------------------------------------------------------------------------------

    def _reserve(self) -> None:
        """A body that did not come whole with its head: hold its bytes against the
        read budget (or refuse it) and start its deadline."""
        state = self.state
        reserved = self.length if self.length >= 0 else state.max_body_size
        if state.reading + reserved > state.read_budget:
            state.rejected["read_budget"] += 1
            state.reclaimer.note(reserved)
            self.chunks = []
            self._refuse_now(state.refusal())
            return
        state.reading += reserved
        self.reserved = reserved
        self._arm(self.loop.time() + state.body_timeout)

    def _release(self) -> None:
        if self.reserved:
            self.state.reading -= self.reserved
            self.reserved = 0

    def _arm(self, deadline: float) -> None:
        self.deadline = deadline
        if deadline < self.timer_at:
            if self.timer is not None:
                self.timer.cancel()
            self.timer = self.loop.call_at(deadline, self._on_timer)
            self.timer_at = deadline

    def _on_timer(self) -> None:
        self.timer = None
        self.timer_at = _NEVER
        transport = self.transport
        if transport is None or self.closing or self.busy:
            return  # re-armed when the answer is written
        if self.loop.time() < self.deadline:
            self._arm(self.deadline)
            return
        phase = self.phase
        state = self.state
        if phase == _HEAD:
            state.server.header_timed_out(self.peer)
        elif phase == _BODY and self.verdict is None:
            transport.write(state.server.body_timed_out(self.peer))
        self._close()

    def _pause(self, reason: int) -> None:
        if not self.paused and self.transport is not None:
            self.transport.pause_reading()
        self.paused |= reason

    def _resume(self, reason: int) -> None:
        was = self.paused
        self.paused &= ~reason
        if was and not self.paused and self.transport is not None:
            self.transport.resume_reading()

    def unpark(self) -> None:
        """The processor has room: read this connection again."""
        self._resume(_PARKED)

    def close(self) -> None:
        """Close the connection (server shutdown)."""
        self._close()

    def __repr__(self) -> str:
        return f"WebhookProtocol(peer={self.peer!r}, phase={self.phase}, busy={self.busy})"
