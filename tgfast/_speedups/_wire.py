"""The bytes of the webhook server's answers, built once, and what both intakes share.

``WebhookProtocol`` (``tgfast._speedups._intake`` and its twin ``_intake_py``) writes
these as they are: an answer costs one ``transport.write`` of a ready ``bytes``. The
rare answers (a 400 naming why, the metrics text) are built by ``response``.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable

__all__ = [
    "REASONS",
    "BodyTooLarge",
    "UnreadableBody",
    "closing",
    "inflate",
    "response",
    "status_of",
]

REASONS = {
    200: "OK", 400: "Bad Request", 403: "Forbidden", 401: "Unauthorized", 404: "Not Found",
    405: "Method Not Allowed", 408: "Request Timeout", 413: "Payload Too Large",
    503: "Service Unavailable",
}  # fmt: skip


def response(
    status: int,
    body: bytes = b"",
    headers: Iterable[tuple[str, str]] = (),
    *,
    content_type: str | None = None,
    close: bool = False,
) -> bytes:
    """A whole HTTP/1.1 answer: status line, headers, ``Content-Length``, body."""
    lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'Unknown')}"]
    if content_type is None and body:
        content_type = "text/plain; charset=utf-8"
    if content_type is not None:
        lines.append(f"Content-Type: {content_type}")
    lines.extend(f"{name}: {value}" for name, value in headers)
    lines.append(f"Content-Length: {len(body)}")
    if close:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def closing(answer: bytes) -> bytes:
    """``answer`` with ``Connection: close`` (for a client that does not keep alive)."""
    if b"\r\nConnection: close\r\n" in answer:
        return answer
    return answer.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n", 1)


def status_of(answer: bytes) -> int:
    """The status code of an answer built by ``response``."""
    return int(answer[9:12])


class BodyTooLarge(Exception):
    """A body over the limit, once decompressed."""


class UnreadableBody(Exception):
    """A body that cannot be decoded with its ``Content-Encoding``."""


def inflate(body: bytes, encoding: bytes, limit: int) -> bytes:
    """``body`` decoded from ``encoding`` (gzip, deflate, br with the brotli module;
    identity), at most ``limit`` bytes: ``BodyTooLarge`` beyond, ``UnreadableBody`` for
    a body that is not in that encoding or an encoding we cannot read."""
    name = encoding.strip().lower()
    if name in (b"", b"identity"):
        return body
    if name in (b"gzip", b"x-gzip", b"deflate"):
        if name == b"deflate" and body[:1] != b"\x78":  # raw deflate, without zlib's header
            decoder = zlib.decompressobj(-zlib.MAX_WBITS)
        else:
            decoder = zlib.decompressobj(16 + zlib.MAX_WBITS if name != b"deflate" else 0)
        try:
            out = decoder.decompress(body, limit + 1)
            if len(out) > limit:
                raise BodyTooLarge(f"over {limit} bytes once decompressed")
            if not decoder.eof:
                raise UnreadableBody(f"a truncated {name.decode()} stream")
        except zlib.error as exc:
            raise UnreadableBody(f"not {name.decode()}: {exc}") from None
        return out
    if name == b"br":
        try:
            import brotli  # type: ignore[import-not-found, unused-ignore]
        except ImportError:
            raise UnreadableBody("br is not supported (no brotli module)") from None
        try:
            out = brotli.decompress(body)
        except Exception as exc:  # noqa: BLE001 - brotli.error, whatever the binding
            raise UnreadableBody(f"not br: {exc}") from None
        if len(out) > limit:
            raise BodyTooLarge(f"over {limit} bytes once decompressed")
        return bytes(out)
    raise UnreadableBody(f"unsupported Content-Encoding {encoding.decode('latin-1')!r}")
