"""Bounds on the webhook server's connections: what a slow, idle or malformed client may hold.

aiohttp's own bounds are few: an idle keep-alive connection lives an hour by default, a
client that sends its request head one byte at a time is never cut off, there is no
limit on open connections, and a malformed request writes a traceback to the log. The
pieces here close those gaps, much as nginx does with ``client_header_timeout``,
``keepalive_timeout`` and ``worker_connections``:

- ``header_timeout``: a request head (request line and headers) must be complete within
  this many seconds of the connection being opened, or of its first byte on a kept-alive
  connection; else the connection is closed (counted as ``header_timeout``).
- ``keepalive_timeout``: an idle kept-alive connection is closed after this many seconds
  (aiohttp's own timer, with a sane default).
- ``max_connections``: beyond this many open connections a new one is answered 503 with
  ``Retry-After`` and closed at once (counted as ``connections``), before it can take a
  descriptor the bot needs for its own calls.
- a malformed request (say ``Content-Length`` with ``Transfer-Encoding``) still gets
  aiohttp's 400, is counted as ``bad_http``, and is logged in one line per cause at most
  once a minute (``LogLimiter``), never as a traceback.

The body deadline and the read budget are per request, in ``webhook``. The per-request
cost of these is one Python call per received chunk (``data_received``); the timers are
per connection, not per request.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler, RequestPayloadError
from aiohttp.web_server import Server

from .._logging import escape, get_logger
from .metrics import Metrics, Rejected

if TYPE_CHECKING:
    from aiohttp.web_request import BaseRequest
    from aiohttp.web_response import StreamResponse

__all__ = [
    "DEFAULT_HEADER_TIMEOUT",
    "DEFAULT_KEEPALIVE_TIMEOUT",
    "BoundedRunner",
    "LogLimiter",
    "MemoryReclaimer",
    "default_max_connections",
    "one_line",
]

log = get_logger("tgfast.server")

DEFAULT_HEADER_TIMEOUT = 20.0
"""Seconds. Telegram sends a request head in one packet; nginx waits 60 s by default."""
DEFAULT_KEEPALIVE_TIMEOUT = 75.0
"""Seconds, nginx's default: longer than a balancer's upstream keep-alive (nginx: 60 s),
so that the balancer, not the bot, closes an idle pooled connection."""
_CONNECTIONS_CAP = 1024

_REFUSED = (
    b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\n"
    b"Connection: close\r\n\r\n"
)


def default_max_connections() -> int:
    """1024, or half the process's descriptor limit when that is lower: the other half
    stays for the bot's own connections (Bot API, Redis) and files."""
    try:
        import resource
    except ImportError:  # Windows: no descriptor limit to share
        return _CONNECTIONS_CAP
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return _CONNECTIONS_CAP
    return max(8, min(_CONNECTIONS_CAP, soft // 2))


def one_line(text: str, limit: int = 200) -> str:
    """``text`` on one line: control characters escaped (as every tgfast log record is),
    cut at ``limit`` characters, for logging what a client sent."""
    escaped = escape(text)
    return escaped if len(escaped) <= limit else escaped[:limit] + "..."


class LogLimiter:
    """Log a warning once per ``cause`` per ``interval`` seconds; the repeats in between
    are only counted, and their number is given with the next line."""

    def __init__(self, logger: logging.Logger = log, interval: float = 60.0) -> None:
        self.logger = logger
        self.interval = interval
        self._last: dict[str, tuple[float, int]] = {}

    def warning(self, cause: str, message: str, *args: object) -> None:
        now = time.monotonic()
        last, skipped = self._last.get(cause, (-self.interval, 0))
        if now - last < self.interval:
            self._last[cause] = (last, skipped + 1)
            return
        self._last[cause] = (now, 0)
        if skipped:
            message += f" ({skipped} more since the last such line, only counted)"
        self.logger.warning(message, *args)


class MemoryReclaimer:
    """Give the memory of refused and failed uploads back to the system, at a measured
    cadence.

    Python frees an aborted body at once (``webhook`` breaks the cycle that kept it),
    but glibc's allocator keeps the freed pages of a burst of large uploads in the
    process: 25-90 MiB after 300 aborted 1 MiB bodies sent 20 at a time, measured on a
    real ``tgfast webhook``, down to a few MiB with this. Once ``threshold`` bytes of
    bodies refused or not read whole have been noted, ``malloc_trim`` runs ``delay``
    seconds later (when aiohttp has drained them): at most one call a ``delay`` while
    they keep coming, none on the path of a request that succeeds. Off glibc (musl,
    macOS) it does nothing.
    """

    def __init__(self, threshold: int = 1024 * 1024, delay: float = 2.0) -> None:
        self.threshold = threshold
        self.delay = delay
        self.trims = 0
        self._noted = 0
        self._pending: asyncio.TimerHandle | None = None
        self._trim = _malloc_trim()

    def note(self, size: int) -> None:
        """A body of ``size`` bytes was refused or not read whole: its buffers are freed."""
        self._noted += size
        if self._noted >= self.threshold and self._pending is None and self._trim:
            self._pending = asyncio.get_running_loop().call_later(self.delay, self._run)

    def _run(self) -> None:
        self._pending = None
        self._noted = 0
        self.trims += 1
        if self._trim is not None:
            self._trim(0)

    def close(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None


def _malloc_trim() -> Callable[[int], int] | None:
    if sys.platform != "linux":
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    return trim


class _Connection(RequestHandler):
    """aiohttp's connection handler with the header deadline, the connection bound and
    quiet, counted errors."""

    def __init__(self, manager: _BoundedServer, **kwargs: Any) -> None:
        super().__init__(manager, **kwargs)
        self._bounds = manager
        self._head_timer: asyncio.TimerHandle | None = None
        self._head_of: asyncio.Future[None] | None = None
        self._quiet = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        bounds = self._bounds
        if bounds.open >= bounds.max_connections:
            bounds.metrics.rejected[Rejected.CONNECTIONS] += 1
            bounds.limiter.warning(
                "connections", "webhook: refused a connection: %d open, the bound "
                "(max_connections); further refusals are counted in /metrics", bounds.open,
            )  # fmt: skip
            self._manager = None  # connection_lost has nothing to undo
            try:
                transport.write(_REFUSED)  # type: ignore[attr-defined]
            finally:
                transport.close()
            return
        super().connection_made(transport)
        self._arm_head_timer(None)

    def connection_lost(self, exc: BaseException | None) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        # Still waiting for a whole head after these bytes: on a kept-alive connection
        # the head's deadline runs from its first byte (the first request's runs from
        # the connection's opening).
        waiter = self._waiter
        if (
            waiter is not None
            and waiter is not self._head_of
            and not waiter.done()
            and self._request_count
        ):
            self._arm_head_timer(waiter)

    def _arm_head_timer(self, waiter: asyncio.Future[None] | None) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
        self._head_of = waiter
        timeout = self._bounds.header_timeout
        self._head_timer = self._loop.call_later(timeout, self._head_deadline, waiter)

    def _head_deadline(self, waiter: asyncio.Future[None] | None) -> None:
        self._head_timer = None
        late = self._request_count == 0 if waiter is None else not waiter.done()
        if late and self.transport is not None and not self._force_close:
            self._bounds.metrics.rejected[Rejected.HEADER_TIMEOUT] += 1
            self._bounds.limiter.warning(
                "header_timeout", "webhook: closed a connection from %s: no complete "
                "request head within %ss (header_timeout)",
                self.transport.get_extra_info("peername"), self._bounds.header_timeout,
            )  # fmt: skip
            self.force_close()

    def handle_error(
        self,
        request: BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> StreamResponse:
        if status >= 500:  # a bug of ours: the traceback is wanted
            return super().handle_error(request, status, exc, message)
        self._bounds.metrics.rejected[Rejected.BAD_HTTP] += 1
        cause = type(exc).__name__ if exc is not None else str(status)
        reason = getattr(exc, "message", None) or str(exc) or cause
        self._bounds.limiter.warning(
            f"bad_http:{cause}", "webhook: malformed HTTP from %s, answered %d: %s: %s",
            request.remote, status, cause, one_line(str(reason)),
        )  # fmt: skip
        self._quiet = True
        try:
            return super().handle_error(request, status, exc, message)
        finally:
            self._quiet = False

    def log_exception(self, *args: Any, **kw: Any) -> None:
        exc = kw.get("exc_info")
        if isinstance(exc, RequestPayloadError):
            # A body that cannot be read, met again while aiohttp drains it after the
            # answer (already counted and logged by the handler that met it first).
            exc.__traceback__ = None  # the frames would keep the payload in a cycle
            self.log_debug("unreadable body drained: %s", exc)
        elif not self._quiet:
            super().log_exception(*args, **kw)


class _BoundedServer(Server):
    """aiohttp's low-level server, making ``_Connection``s and counting them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.open = 0
        self.max_connections = _CONNECTIONS_CAP
        self.header_timeout = DEFAULT_HEADER_TIMEOUT
        self.metrics = Metrics()
        self.limiter = LogLimiter()

    def __call__(self) -> RequestHandler:
        return _Connection(self, loop=self._loop, **self._kwargs)

    def connection_made(self, handler: RequestHandler, transport: asyncio.Transport) -> None:
        self.open += 1
        super().connection_made(handler, transport)

    def connection_lost(self, handler: RequestHandler, exc: BaseException | None = None) -> None:
        self.open -= 1
        super().connection_lost(handler, exc)


class BoundedRunner(web.AppRunner):
    """An ``AppRunner`` whose connections have the bounds of the module docstring.

    ``keepalive_timeout`` and the other handler options go to aiohttp as usual.
    """

    def __init__(
        self,
        app: web.Application,
        *,
        metrics: Metrics,
        header_timeout: float = DEFAULT_HEADER_TIMEOUT,
        max_connections: int | None = None,
        limiter: LogLimiter | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(app, **kwargs)
        self._bounds = (
            metrics,
            header_timeout,
            default_max_connections() if max_connections is None else max_connections,
            limiter or LogLimiter(),
        )

    async def _make_server(self) -> Server:
        server = await super()._make_server()
        # aiohttp builds its Server with the application's handler and factories;
        # taking it over keeps those and only changes the connections it makes.
        server.__class__ = _BoundedServer
        assert isinstance(server, _BoundedServer)
        server.open = 0
        server.metrics, server.header_timeout, server.max_connections, server.limiter = self._bounds
        return server
