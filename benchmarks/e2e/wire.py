"""A small incremental HTTP/1.1 parser shared by the sink and the load generator.

Both sit on the harness's one core next to each other and must stay far below
the bot in CPU per request, so they are raw asyncio protocols over this parser
instead of an HTTP framework: no per-request objects beyond one tuple.

Supported: keep-alive, pipelining, ``Content-Length`` and chunked bodies.  A
response with neither (and no body by status) is taken as empty: every server
in this benchmark (aiohttp, the sink) sends one or the other.
"""

from __future__ import annotations

from typing import NamedTuple

CRLF2 = b"\r\n\r\n"
MAX_HEAD = 64 * 1024


class Message(NamedTuple):
    """One parsed HTTP message: start line, lower-cased headers, body."""

    start: bytes
    headers: dict[bytes, bytes]
    body: bytes


class ProtocolError(ValueError):
    """The peer sent something that is not HTTP/1.1."""


def _chunked_end(buf: bytes | bytearray, pos: int) -> tuple[int, bytes]:
    """(index past a complete chunked body starting at ``pos``, the body); (-1, b"") if short."""
    parts: list[bytes] = []
    while True:
        eol = buf.find(b"\r\n", pos)
        if eol < 0:
            return -1, b""
        try:
            size = int(bytes(buf[pos:eol]).split(b";", 1)[0], 16)
        except ValueError as exc:
            raise ProtocolError("bad chunk size") from exc
        pos = eol + 2
        if size == 0:
            while True:  # optional trailer fields, then an empty line
                eol = buf.find(b"\r\n", pos)
                if eol < 0:
                    return -1, b""
                if eol == pos:
                    return eol + 2, b"".join(parts)
                pos = eol + 2
        if pos + size + 2 > len(buf):
            return -1, b""
        parts.append(bytes(buf[pos : pos + size]))
        pos += size + 2


class Parser:
    """Feed bytes, get complete messages.  ``response=True`` knows bodiless statuses."""

    __slots__ = ("buf", "response")

    def __init__(self, *, response: bool) -> None:
        self.buf = b""
        self.response = response

    def feed(self, data: bytes) -> list[Message]:
        buf = self.buf + data if self.buf else data
        out: list[Message] = []
        pos = 0
        while True:
            end = buf.find(CRLF2, pos)
            if end < 0:
                if len(buf) - pos > MAX_HEAD:
                    raise ProtocolError("header section too long")
                break
            lines = buf[pos:end].split(b"\r\n")
            headers: dict[bytes, bytes] = {}
            for line in lines[1:]:
                name, sep, value = line.partition(b":")
                if not sep:
                    raise ProtocolError(f"bad header line {line[:80]!r}")
                headers[name.strip().lower()] = value.strip()
            start = lines[0]
            body_start = end + 4
            if self.response and _bodiless(start):
                body_end, body = body_start, b""
            elif headers.get(b"transfer-encoding", b"").lower().endswith(b"chunked"):
                body_end, body = _chunked_end(buf, body_start)
                if body_end < 0:
                    break
            else:
                try:
                    length = int(headers.get(b"content-length", b"0"))
                except ValueError as exc:
                    raise ProtocolError("bad Content-Length") from exc
                body_end = body_start + length
                if body_end > len(buf):
                    break
                body = buf[body_start:body_end]
            out.append(Message(start, headers, body))
            pos = body_end
        self.buf = buf[pos:] if pos < len(buf) else b""
        return out


def _bodiless(start: bytes) -> bool:
    parts = start.split(b" ", 2)
    code = parts[1] if len(parts) > 1 else b""
    return code.startswith(b"1") or code in (b"204", b"304")


def status_of(start: bytes) -> int:
    """The status code of a response's start line (0 if it has none)."""
    parts = start.split(b" ", 2)
    try:
        return int(parts[1])
    except (IndexError, ValueError):
        return 0


def keeps_alive(msg: Message) -> bool:
    """Whether the connection stays open after this HTTP/1.1 message."""
    return msg.headers.get(b"connection", b"").lower() != b"close"
