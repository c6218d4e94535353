"""Pure-Python twin of ``_http.pyx``: the HTTP/1.1 client side of the fast transport.

``request_bytes`` writes a request from a head prepared once per URL and the body;
``ResponseParser`` reads one answer at a time (``Content-Length``, chunked, or up to
the end of the connection); ``Connection`` is the asyncio protocol of one keep-alive
connection, which resolves a future with ``(status, body)`` per request. The pool,
timeouts and TLS are in ``tgfast.client.session.fast``, shared by both twins.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ._http_shared import MalformedResponse

__all__ = ["MAX_BODY", "MAX_HEAD", "Connection", "ResponseParser", "request_bytes"]

MAX_HEAD = 64 * 1024
"""Bytes a response's status line and headers may take."""
MAX_BODY = 64 * 1024 * 1024
"""Bytes a response's body may take (a full ``getUpdates`` answer is a few MB)."""

_HEAD, _LENGTH, _CHUNKED, _UNTIL_CLOSE, _DONE = range(5)


def request_bytes(prefix: bytes, body: bytes) -> bytes:
    """A whole request: ``prefix`` ends with ``Content-Length: `` (see the session)."""
    return b"%s%d\r\n\r\n%s" % (prefix, len(body), body)


class ResponseParser:
    """One HTTP/1.x response at a time: ``feed`` until it returns True, then read
    ``status``, ``body`` and ``keep_alive``; ``reset`` before the next one."""

    def __init__(self, max_body: int = MAX_BODY) -> None:
        self.max_body = max_body
        self.reset()

    def reset(self) -> None:
        self.status = 0
        self.body = b""
        self.keep_alive = True
        self.received = 0
        self._state = _HEAD
        self._buf = b""
        self._parts: list[bytes] = []
        self._remaining = 0
        self._size = 0

    def feed(self, data: bytes) -> bool:
        """Take the next bytes of the answer; True once it is complete."""
        self.received += len(data)
        state = self._state
        if state == _DONE:  # we never pipeline: the connection is out of step
            self.keep_alive = False
            return True
        if state == _HEAD:
            buf = self._buf + data if self._buf else data
            while True:
                end = buf.find(b"\r\n\r\n")
                if end < 0:
                    if len(buf) > MAX_HEAD:
                        raise MalformedResponse(f"response head longer than {MAX_HEAD} bytes")
                    self._buf = buf
                    return False
                if end > MAX_HEAD:
                    raise MalformedResponse(f"response head longer than {MAX_HEAD} bytes")
                self._head(buf[:end])
                buf = buf[end + 4 :]
                if self._state != _HEAD:  # not an interim 1xx answer
                    break
            self._buf = b""
            state = self._state
            if state == _DONE:
                if buf:
                    self.keep_alive = False
                return True
            data = buf
            if not data:
                return False
        if state == _LENGTH:
            remaining = self._remaining
            size = len(data)
            if size >= remaining:
                if size > remaining:
                    data = data[:remaining]
                    self.keep_alive = False  # bytes after the answer: do not reuse
                if self._parts:
                    self._parts.append(data)
                    self.body = b"".join(self._parts)
                    self._parts = []
                else:
                    self.body = data
                self._state = _DONE
                return True
            self._parts.append(data)
            self._remaining = remaining - size
            return False
        if state == _CHUNKED:
            return self._chunks(data)
        self._size += len(data)  # _UNTIL_CLOSE
        if self._size > self.max_body:
            raise MalformedResponse(f"response body longer than {self.max_body} bytes")
        self._parts.append(data)
        return False

    def feed_eof(self) -> bool:
        """The server closed: True if that ends the answer (no length given), else a
        ``MalformedResponse`` saying how much came."""
        if self._state == _UNTIL_CLOSE:
            self.body = b"".join(self._parts)
            self._parts = []
            self._state = _DONE
            return True
        if self._state == _DONE:
            return True
        if self.received == 0:
            raise MalformedResponse("connection closed before any answer")
        raise MalformedResponse(
            f"connection closed after {self.received} bytes of an incomplete answer"
        )

    def _head(self, head: bytes) -> None:
        line, _, rest = head.partition(b"\r\n")
        if (
            len(line) < 12
            or not line.startswith(b"HTTP/1.")
            or line[8] != 32
            or not line[9:12].isdigit()
            or (len(line) > 12 and line[12] != 32)
        ):
            raise MalformedResponse(f"not an HTTP/1.x status line: {line[:32]!r}")
        status = int(line[9:12])
        keep_alive = line[7] == 49  # HTTP/1.1 keeps the connection unless told otherwise
        length = -1
        chunked = False
        if rest:
            for header in rest.split(b"\r\n"):
                colon = header.find(b":")
                if colon <= 0:
                    raise MalformedResponse("malformed header line in the response")
                name = header[:colon].lower()
                if name == b"content-length":
                    value = header[colon + 1 :].strip(b" \t")
                    if not value.isdigit() or (length >= 0 and int(value) != length):
                        raise MalformedResponse("bad Content-Length in the response")
                    length = int(value)
                elif name == b"transfer-encoding":
                    if header[colon + 1 :].strip(b" \t").lower() != b"chunked":
                        raise MalformedResponse("unsupported Transfer-Encoding in the response")
                    chunked = True
                elif name == b"connection":
                    value = header[colon + 1 :].lower()
                    if b"close" in value:
                        keep_alive = False
                    elif b"keep-alive" in value:
                        keep_alive = True
                elif name == b"content-encoding":
                    if header[colon + 1 :].strip(b" \t").lower() not in (b"", b"identity"):
                        raise MalformedResponse("compressed response (none was asked for)")
        if 100 <= status < 200:
            if status == 101:
                raise MalformedResponse("unexpected 101 Switching Protocols")
            return  # an interim answer: the real one follows
        self.status = status
        self.keep_alive = keep_alive
        if status == 204 or status == 304:
            self._state = _DONE
        elif chunked:
            if length >= 0:
                self.keep_alive = False  # both framings given: answer read, never reused
            self._state = _CHUNKED
        elif length >= 0:
            if length > self.max_body:
                raise MalformedResponse(f"response body longer than {self.max_body} bytes")
            self._remaining = length
            self._state = _DONE if length == 0 else _LENGTH
        else:
            self.keep_alive = False
            self._state = _UNTIL_CLOSE

    def _chunks(self, data: bytes) -> bool:
        buf = self._buf + data if self._buf else data
        pos = 0
        while True:
            remaining = self._remaining
            if remaining > 0:  # inside a chunk's data (plus its CRLF)
                if len(buf) - pos < remaining:
                    self._buf = buf[pos:]
                    return False
                end = pos + remaining - 2
                if buf[end : end + 2] != b"\r\n":
                    raise MalformedResponse("chunk not followed by CRLF in the response")
                self._parts.append(buf[pos:end])
                pos = end + 2
                self._remaining = 0
            eol = buf.find(b"\r\n", pos)
            if eol < 0:
                if len(buf) - pos > 1024:
                    raise MalformedResponse("chunk size line too long in the response")
                self._buf = buf[pos:]
                return False
            if self._remaining < 0:  # trailers, ended by an empty line
                if eol == pos:
                    if eol + 2 < len(buf):
                        self.keep_alive = False
                    self.body = b"".join(self._parts)
                    self._parts = []
                    self._buf = b""
                    self._state = _DONE
                    return True
                pos = eol + 2
                continue
            size_text = buf[pos:eol].split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                size = -1
            if size < 0 or not size_text or size_text.startswith((b"+", b"-", b"0x", b"0X")):
                raise MalformedResponse("bad chunk size in the response")
            self._size += size
            if self._size > self.max_body:
                raise MalformedResponse(f"response body longer than {self.max_body} bytes")
            pos = eol + 2
            self._remaining = size + 2 if size else -1


class Connection(asyncio.Protocol):
    """One keep-alive connection: ``request(data)`` writes a request and returns a
    future for ``(status, body)``; ``usable`` says whether it can take another."""

    def __init__(self, loop: asyncio.AbstractEventLoop, max_body: int = MAX_BODY) -> None:
        self.loop = loop
        self.transport: Any = None
        self.parser = ResponseParser(max_body)
        self.waiter: asyncio.Future[tuple[int, bytes]] | None = None
        self.open = False
        self.idle_since = 0.0

    @property
    def usable(self) -> bool:
        """Open, and not in the middle of a request."""
        return self.open and self.waiter is None

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        self.open = True

    def request(self, data: bytes) -> asyncio.Future[tuple[int, bytes]]:
        waiter: asyncio.Future[tuple[int, bytes]] = self.loop.create_future()
        self.waiter = waiter
        self.parser.reset()
        self.transport.write(data)
        return waiter

    def data_received(self, data: bytes) -> None:
        waiter = self.waiter
        if waiter is None:  # bytes nobody asked for: the connection is out of step
            self.abort()
            return
        try:
            done = self.parser.feed(data)
        except MalformedResponse as exc:
            self._fail(exc)
            return
        if done:
            self._finish(waiter)

    def eof_received(self) -> bool:
        waiter = self.waiter
        if waiter is not None:
            try:
                self.parser.feed_eof()
            except MalformedResponse as exc:
                self._fail(exc)
                return False
            self.parser.keep_alive = False
            self._finish(waiter)
        self.open = False
        return False

    def connection_lost(self, exc: BaseException | None) -> None:
        self.open = False
        waiter = self.waiter
        if waiter is not None:
            self.waiter = None
            if not waiter.done():
                received = self.parser.received
                reason = (
                    f"connection lost after {received} bytes of an incomplete answer"
                    if received
                    else "connection lost before any answer"
                )
                if exc is not None:
                    reason += f" ({type(exc).__name__}: {exc})"
                waiter.set_exception(MalformedResponse(reason))

    def pause_writing(self) -> None:
        """Requests are small and one at a time: the kernel buffer absorbs them."""

    def resume_writing(self) -> None:
        """See ``pause_writing``."""

    def abort(self) -> None:
        """Drop the connection now (a timeout, a cancelled call, a bad answer)."""
        self.open = False
        if self.transport is not None:
            self.transport.abort()

    def _finish(self, waiter: asyncio.Future[tuple[int, bytes]]) -> None:
        self.waiter = None
        parser = self.parser
        if not parser.keep_alive:
            self.open = False
            self.transport.close()
        else:
            self.idle_since = self.loop.time()
        if not waiter.done():
            waiter.set_result((parser.status, parser.body))

    def _fail(self, exc: BaseException) -> None:
        waiter = self.waiter
        self.waiter = None
        self.abort()
        if waiter is not None and not waiter.done():
            waiter.set_exception(exc)
