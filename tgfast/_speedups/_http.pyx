# cython: language_level=3, boundscheck=False, wraparound=False, auto_pickle=False
"""Compiled HTTP/1.1 client side of the fast transport: the twin of ``_http_py.py``
(same behaviour, same errors).

The response head is scanned in C (status line, then only the four headers that
decide framing and reuse); a body that arrives whole with its head, the common case
for a Bot API answer, is one slice.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from libc.string cimport memchr

from ._http_shared import MalformedResponse

__all__ = ["MAX_BODY", "MAX_HEAD", "Connection", "ResponseParser", "request_bytes"]

MAX_HEAD = 64 * 1024
MAX_BODY = 64 * 1024 * 1024

cdef Py_ssize_t _MAX_HEAD = MAX_HEAD

cdef enum:
    _HEAD = 0
    _LENGTH = 1
    _CHUNKED = 2
    _UNTIL_CLOSE = 3
    _DONE = 4


def request_bytes(bytes prefix, bytes body):
    """A whole request: ``prefix`` ends with ``Content-Length: `` (see the session)."""
    return b"%s%d\r\n\r\n%s" % (prefix, len(body), body)


cdef inline Py_ssize_t _find_end(const char* p, Py_ssize_t size):
    """The offset of the first CRLFCRLF in ``p[:size]``, or -1."""
    cdef Py_ssize_t i = 0
    cdef const char* hit
    while i + 3 < size:
        hit = <const char*>memchr(p + i, b'\r', size - i - 3)
        if hit == NULL:
            return -1
        i = hit - p
        if p[i + 1] == b'\n' and p[i + 2] == b'\r' and p[i + 3] == b'\n':
            return i
        i += 1
    return -1


cdef inline char _lower(char c):
    if b'A' <= c <= b'Z':
        return c + 32
    return c


cdef bint _name_is(const char* p, Py_ssize_t size, const char* name, Py_ssize_t n):
    cdef Py_ssize_t i
    if size != n:
        return False
    for i in range(n):
        if _lower(p[i]) != name[i]:
            return False
    return True


cdef Py_ssize_t _LENGTH_CAP = 1 << 62  # a longer body is refused by max_body all the same


cdef Py_ssize_t _length(const char* p, Py_ssize_t start, Py_ssize_t end):
    """The Content-Length ``p[start:end]`` (blanks around it allowed); -1 unless it is
    digits only (at most ``_LENGTH_CAP``, a larger one saturates there)."""
    cdef Py_ssize_t value = 0, i
    cdef char c
    while start < end and (p[start] == b' ' or p[start] == b'\t'):
        start += 1
    while end > start and (p[end - 1] == b' ' or p[end - 1] == b'\t'):
        end -= 1
    if start == end:
        return -1
    for i in range(start, end):
        c = p[i]
        if c < b'0' or c > b'9':
            return -1
        if value > (_LENGTH_CAP - 9) // 10:
            value = _LENGTH_CAP
        else:
            value = value * 10 + (c - 48)
    return value


cdef bint _contains(const char* p, Py_ssize_t start, Py_ssize_t end, const char* word,
                    Py_ssize_t n):
    """Whether ``p[start:end]``, lower-cased, contains ``word`` (lower-case)."""
    cdef Py_ssize_t i, j
    for i in range(start, end - n + 1):
        j = 0
        while j < n and _lower(p[i + j]) == word[j]:
            j += 1
        if j == n:
            return True
    return False


cdef bytes _value(const char* p, Py_ssize_t start, Py_ssize_t end):
    """The header value ``p[start:end]`` without surrounding blanks, lower-cased."""
    while start < end and (p[start] == b' ' or p[start] == b'\t'):
        start += 1
    while end > start and (p[end - 1] == b' ' or p[end - 1] == b'\t'):
        end -= 1
    return p[start:end].lower()


cdef class ResponseParser:
    """One HTTP/1.x response at a time: ``feed`` until it returns True, then read
    ``status``, ``body`` and ``keep_alive``; ``reset`` before the next one."""

    cdef public int status
    cdef public bytes body
    cdef public bint keep_alive
    cdef public Py_ssize_t received
    cdef public Py_ssize_t max_body
    cdef int _state
    cdef bytes _buf
    cdef list _parts
    cdef Py_ssize_t _remaining
    cdef Py_ssize_t _size

    def __init__(self, Py_ssize_t max_body=MAX_BODY):
        self.max_body = max_body
        self.reset()

    cpdef reset(self):
        self.status = 0
        self.body = b""
        self.keep_alive = True
        self.received = 0
        self._state = _HEAD
        self._buf = b""
        self._parts = []
        self._remaining = 0
        self._size = 0

    cpdef bint feed(self, bytes data) except -1:
        """Take the next bytes of the answer; True once it is complete."""
        cdef Py_ssize_t end, size, remaining
        cdef bytes buf
        self.received += PyBytes_GET_SIZE(data)
        cdef int state = self._state
        if state == _DONE:
            self.keep_alive = False
            return True
        if state == _HEAD:
            buf = self._buf + data if PyBytes_GET_SIZE(self._buf) else data
            while True:
                end = _find_end(PyBytes_AS_STRING(buf), PyBytes_GET_SIZE(buf))
                if end < 0:
                    if PyBytes_GET_SIZE(buf) > _MAX_HEAD:
                        raise MalformedResponse(f"response head longer than {MAX_HEAD} bytes")
                    self._buf = buf
                    return False
                if end > _MAX_HEAD:
                    raise MalformedResponse(f"response head longer than {MAX_HEAD} bytes")
                self._head(buf, end)
                buf = buf[end + 4:]
                if self._state != _HEAD:
                    break
            self._buf = b""
            state = self._state
            if state == _DONE:
                if PyBytes_GET_SIZE(buf):
                    self.keep_alive = False
                return True
            data = buf
            if not PyBytes_GET_SIZE(data):
                return False
        if state == _LENGTH:
            remaining = self._remaining
            size = PyBytes_GET_SIZE(data)
            if size >= remaining:
                if size > remaining:
                    data = data[:remaining]
                    self.keep_alive = False
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
        self._size += PyBytes_GET_SIZE(data)
        if self._size > self.max_body:
            raise MalformedResponse(f"response body longer than {self.max_body} bytes")
        self._parts.append(data)
        return False

    cpdef bint feed_eof(self) except -1:
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

    cdef int _head(self, bytes buf, Py_ssize_t end) except -1:
        cdef const char* p = PyBytes_AS_STRING(buf)
        cdef Py_ssize_t eol, pos, colon, length = -1, value
        cdef bint keep_alive, chunked = False
        cdef int status
        eol = 0
        while eol < end and p[eol] != b'\r':
            eol += 1
        if (
            eol < 12 or p[0] != b'H' or p[1] != b'T' or p[2] != b'T' or p[3] != b'P'
            or p[4] != b'/' or p[5] != b'1' or p[6] != b'.' or p[8] != b' '
            or not (b'0' <= p[9] <= b'9' and b'0' <= p[10] <= b'9' and b'0' <= p[11] <= b'9')
            or (eol > 12 and p[12] != b' ')
        ):
            raise MalformedResponse(f"not an HTTP/1.x status line: {p[:min(eol, 32)]!r}")
        status = (p[9] - 48) * 100 + (p[10] - 48) * 10 + (p[11] - 48)
        keep_alive = p[7] == b'1'
        pos = eol + 2
        while pos < end:
            eol = pos
            while eol < end and p[eol] != b'\r':
                eol += 1
            colon = pos
            while colon < eol and p[colon] != b':':
                colon += 1
            if colon == pos or colon == eol:
                raise MalformedResponse("malformed header line in the response")
            if _name_is(p + pos, colon - pos, b"content-length", 14):
                value = _length(p, colon + 1, eol)
                if value < 0 or (length >= 0 and value != length):
                    raise MalformedResponse("bad Content-Length in the response")
                length = value
            elif _name_is(p + pos, colon - pos, b"transfer-encoding", 17):
                if _value(p, colon + 1, eol) != b"chunked":
                    raise MalformedResponse("unsupported Transfer-Encoding in the response")
                chunked = True
            elif _name_is(p + pos, colon - pos, b"connection", 10):
                if _contains(p, colon + 1, eol, b"close", 5):
                    keep_alive = False
                elif _contains(p, colon + 1, eol, b"keep-alive", 10):
                    keep_alive = True
            elif _name_is(p + pos, colon - pos, b"content-encoding", 16):
                if _value(p, colon + 1, eol) not in (b"", b"identity"):
                    raise MalformedResponse("compressed response (none was asked for)")
            pos = eol + 2
        if 100 <= status < 200:
            if status == 101:
                raise MalformedResponse("unexpected 101 Switching Protocols")
            return 0
        self.status = status
        self.keep_alive = keep_alive
        if status == 204 or status == 304:
            self._state = _DONE
        elif chunked:
            if length >= 0:
                self.keep_alive = False
            self._state = _CHUNKED
        elif length >= 0:
            if length > self.max_body:
                raise MalformedResponse(f"response body longer than {self.max_body} bytes")
            self._remaining = length
            self._state = _DONE if length == 0 else _LENGTH
        else:
            self.keep_alive = False
            self._state = _UNTIL_CLOSE
        return 0

    cdef bint _chunks(self, bytes data) except -1:
        cdef bytes buf = self._buf + data if PyBytes_GET_SIZE(self._buf) else data
        cdef Py_ssize_t pos = 0, remaining, end, eol, size
        cdef bytes size_text
        while True:
            remaining = self._remaining
            if remaining > 0:
                if PyBytes_GET_SIZE(buf) - pos < remaining:
                    self._buf = buf[pos:]
                    return False
                end = pos + remaining - 2
                if buf[end:end + 2] != b"\r\n":
                    raise MalformedResponse("chunk not followed by CRLF in the response")
                self._parts.append(buf[pos:end])
                pos = end + 2
                self._remaining = 0
            eol = buf.find(b"\r\n", pos)
            if eol < 0:
                if PyBytes_GET_SIZE(buf) - pos > 1024:
                    raise MalformedResponse("chunk size line too long in the response")
                self._buf = buf[pos:]
                return False
            if self._remaining < 0:
                if eol == pos:
                    if eol + 2 < PyBytes_GET_SIZE(buf):
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


cdef class Connection:
    """One keep-alive connection: ``request(data)`` writes a request and returns a
    future for ``(status, body)``; ``usable`` says whether it can take another."""

    cdef public object loop
    cdef public object transport
    cdef public ResponseParser parser
    cdef public object waiter
    cdef public bint open
    cdef public double idle_since

    def __init__(self, loop, Py_ssize_t max_body=MAX_BODY):
        self.loop = loop
        self.transport = None
        self.parser = ResponseParser(max_body)
        self.waiter = None
        self.open = False
        self.idle_since = 0.0

    @property
    def usable(self):
        """Open, and not in the middle of a request."""
        return self.open and self.waiter is None

    def connection_made(self, transport):
        self.transport = transport
        self.open = True

    def request(self, bytes data):
        waiter = self.loop.create_future()
        self.waiter = waiter
        self.parser.reset()
        self.transport.write(data)
        return waiter

    def data_received(self, data):
        waiter = self.waiter
        if waiter is None:
            self.abort()
            return
        try:
            done = self.parser.feed(bytes(data))
        except MalformedResponse as exc:
            self._fail(exc)
            return
        if done:
            self._finish(waiter)

    def eof_received(self):
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

    def connection_lost(self, exc):
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

    def pause_writing(self):
        """Requests are small and one at a time: the kernel buffer absorbs them."""

    def resume_writing(self):
        """See ``pause_writing``."""

    def abort(self):
        """Drop the connection now (a timeout, a cancelled call, a bad answer)."""
        self.open = False
        if self.transport is not None:
            self.transport.abort()

    cdef _finish(self, waiter):
        self.waiter = None
        parser = self.parser
        if not parser.keep_alive:
            self.open = False
            self.transport.close()
        else:
            self.idle_since = self.loop.time()
        if not waiter.done():
            waiter.set_result((parser.status, parser.body))

    cdef _fail(self, exc):
        waiter = self.waiter
        self.waiter = None
        self.abort()
        if waiter is not None and not waiter.done():
            waiter.set_exception(exc)
