"""``FastSession``: Bot API calls over tgfast's own keep-alive HTTP/1.1 connections.

An opt-in transport beside the default ``AiohttpSession``, for bots whose CPU goes to
HTTP: each JSON call is one prepared request head plus the body written to a pooled
connection, and one compiled parser reading the answer (``tgfast._speedups._http``,
or its pure twin). Everything above the wire is the ``Bot``'s, as with the default:
timeouts, retries, rate limits, error mapping, token redaction.

What it does not do itself goes to aiohttp, through the ``AiohttpSession`` it extends
(opened only when first needed): multipart uploads and file downloads. Proxies are
refused: use ``AiohttpSession(proxy=...)``.

``TGFAST_TRANSPORT=fast`` (what ``tgfast ... --transport fast`` sets) makes every
``Bot`` that builds its own session build a ``FastSession``; ``session_for`` reads it.
"""

from __future__ import annotations

import asyncio
import math
import os
import ssl
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from yarl import URL

from ..._speedups import load
from ..._speedups._http_shared import ConnectFailed, MalformedResponse
from ..telegram import TelegramAPIServer
from .aiohttp import AiohttpSession, ProxyType
from .base import DEFAULT_TIMEOUT

if TYPE_CHECKING:
    from ..._speedups import _http_py as _http
else:
    _http = load("_http")

__all__ = [
    "TRANSPORTS",
    "ConnectFailed",
    "FastSession",
    "MalformedResponse",
    "session_for",
]

TRANSPORTS: Final = ("aiohttp", "fast")
"""The values of ``TGFAST_TRANSPORT`` and ``--transport``."""

_request_bytes = _http.request_bytes
_running_loop = asyncio.get_running_loop
_TIMER_SLACK = 0.001  # a timer may fire this early (the loop's clock ticks in milliseconds)


class _Pool:
    """Keep-alive connections to one origin: the most recently used idle one first,
    at most ``limit`` open, callers beyond that wait for one to be handed back."""

    __slots__ = (
        "deadlines", "host", "idle", "keepalive", "limit", "loop", "open", "port", "ssl",
        "timer", "timer_at", "waiters",
    )  # fmt: skip

    def __init__(
        self, host: str, port: int, ssl: ssl.SSLContext | None, limit: int, keepalive: float
    ) -> None:
        self.loop = asyncio.get_running_loop()  # connections belong to the loop they began in
        self.host = host
        self.port = port
        self.ssl = ssl
        self.limit = limit
        self.keepalive = keepalive
        self.idle: list[Any] = []
        self.open = 0
        self.waiters: deque[asyncio.Future[Any]] = deque()
        # calls in flight with a timeout: connection -> (its answer, deadline, seconds)
        self.deadlines: dict[Any, tuple[asyncio.Future[Any], float, float]] = {}
        self.timer: asyncio.TimerHandle | None = None
        self.timer_at = math.inf

    def watch(
        self, conn: Any, answer: asyncio.Future[Any], deadline: float, seconds: float
    ) -> None:
        """Fail ``answer`` with a timeout at ``deadline`` (loop time) unless taken out
        of ``deadlines`` first. One timer for the pool, at the earliest deadline, instead
        of one timer made and cancelled per call: with one timeout for every call it is
        armed about once per timeout, whatever the rate."""
        self.deadlines[conn] = (answer, deadline, seconds)
        if deadline < self.timer_at:
            if self.timer is not None:
                self.timer.cancel()
            self.timer = self.loop.call_at(deadline, self._on_timer)
            self.timer_at = deadline

    def _on_timer(self) -> None:
        self.timer, self.timer_at = None, math.inf
        now = self.loop.time() + _TIMER_SLACK
        deadlines = self.deadlines
        next_at = math.inf
        for conn, (answer, deadline, seconds) in list(deadlines.items()):
            if deadline <= now:
                del deadlines[conn]
                _expire(answer, seconds)
            elif deadline < next_at:
                next_at = deadline
        if next_at < math.inf:
            self.timer = self.loop.call_at(next_at, self._on_timer)
            self.timer_at = next_at

    def take(self, now: float) -> Any:
        """An idle connection that is still good, else None."""
        idle = self.idle
        while idle:
            conn = idle.pop()
            if conn.usable and now - conn.idle_since < self.keepalive:
                return conn
            self._drop(conn)
        return None

    async def acquire(self, loop: asyncio.AbstractEventLoop) -> Any:
        """A connection: an idle one, a new one, or the next one handed back."""
        conn = self.take(loop.time())
        if conn is not None:
            return conn
        while self.open >= self.limit:
            waiter = loop.create_future()
            self.waiters.append(waiter)
            try:
                conn = await waiter
            except BaseException:
                if not waiter.done():
                    self.waiters.remove(waiter)
                elif not waiter.cancelled():  # handed something as we were cancelled
                    if waiter.result() is not None:
                        self.give_back(waiter.result())
                    else:
                        self._wake()
                raise
            if conn is not None:
                return conn
            # None: a slot was freed (and may be taken again before we run: hence the loop)
        self.open += 1
        try:
            _transport, conn = await loop.create_connection(
                lambda: _http.Connection(loop),
                self.host,
                self.port,
                ssl=self.ssl,
                server_hostname=self.host if self.ssl is not None else None,
            )
        except OSError as exc:
            self._release_slot()
            reason = exc.strerror or str(exc) or type(exc).__name__
            raise ConnectFailed(f"cannot connect to {self.host}:{self.port}: {reason}") from None
        except BaseException:
            self._release_slot()
            raise
        return conn

    def give_back(self, conn: Any) -> None:
        """A connection whose call ended: reused if it can be, else closed."""
        if not conn.usable:
            self._drop(conn)
            return
        while self.waiters:
            waiter = self.waiters.popleft()
            if not waiter.done():
                waiter.set_result(conn)
                return
        self.idle.append(conn)

    def _drop(self, conn: Any) -> None:
        conn.abort()
        self._release_slot()

    def _release_slot(self) -> None:
        self.open -= 1
        self._wake()

    def _wake(self) -> None:
        while self.waiters:
            waiter = self.waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)  # the waiter opens a connection in the freed slot
                return

    def close(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer, self.timer_at = None, math.inf
        idle, self.idle = self.idle, []
        if self.loop.is_closed():  # nothing can close them now; the garbage collector will
            return
        for conn in idle:
            self._drop(conn)


def _expire(waiter: asyncio.Future[Any], seconds: float) -> None:
    if not waiter.done():
        waiter.set_exception(asyncio.TimeoutError(f"no answer within {seconds}s"))


class FastSession(AiohttpSession):
    """``Bot(token, session=FastSession())``: JSON calls over tgfast's keep-alive pool.

    ``limit`` bounds the open connections per server, ``keepalive_timeout`` how long
    an idle one is reused (below the server's own idle timeout), ``timeout`` is in
    seconds as for ``AiohttpSession``. ``ssl`` is the ``SSLContext`` for ``https://``
    servers (the system's trusted CAs by default). Uploads and downloads go through
    the aiohttp session this class extends; proxies are refused.
    """

    def __init__(
        self,
        limit: int = 100,
        *,
        api: TelegramAPIServer | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        keepalive_timeout: float = 15.0,
        ssl: ssl.SSLContext | None = None,
        json_loads: Callable[..., Any] | None = None,
        json_dumps: Callable[..., Any] | None = None,
    ) -> None:
        if limit < 1:
            raise ValueError(f"limit: at least one connection, got {limit}")
        super().__init__(
            None,
            limit,
            api=api,
            timeout=timeout,
            keepalive_timeout=keepalive_timeout,
            json_loads=json_loads,
            json_dumps=json_dumps,
        )
        self.ssl_context = ssl
        self._pools: dict[tuple[str, str, int], _Pool] = {}
        self._targets: dict[int, tuple[_Pool, bytes, URL]] = {}

    @property
    def proxy(self) -> ProxyType | None:
        return None

    @proxy.setter
    def proxy(self, proxy: ProxyType | None) -> None:
        if proxy is not None:
            raise TypeError(
                "FastSession connects directly: for a proxy use AiohttpSession(proxy=...)"
            )

    async def post_json(self, url: URL, body: bytes, timeout: float | None) -> tuple[int, bytes]:
        """POST ``body`` (JSON) to ``url``: the answer's status and body.

        Raises ``asyncio.TimeoutError`` after ``timeout`` seconds, ``ConnectFailed``
        when no connection could be made, and another ``OSError`` (a
        ``MalformedResponse`` among them) when the connection failed mid-call."""
        target = self._targets.get(id(url))  # a yarl URL hashes slowly; a Bot keeps its URLs
        if target is None or target[2] is not url:
            target = self._target(url)
        pool, prefix, _ = target
        loop = pool.loop
        if loop is not _running_loop():  # used from another event loop: start over in this one
            self._drop_pools()
            pool, prefix, _ = self._target(url)
            loop = pool.loop
        now = loop.time()
        conn = pool.take(now)
        if conn is None:
            if timeout is None:
                conn = await pool.acquire(loop)
            else:
                conn = await asyncio.wait_for(pool.acquire(loop), timeout)
                timeout = max(timeout - (loop.time() - now), 0.001)
                now = loop.time()
        waiter = conn.request(_request_bytes(prefix, body))
        if timeout is not None:
            pool.watch(conn, waiter, now + timeout, timeout)
        try:
            answer: tuple[int, bytes] = await waiter
        except BaseException:
            conn.abort()
            raise
        finally:
            if timeout is not None:
                pool.deadlines.pop(conn, None)  # not watched any more (gone if it fired)
            pool.give_back(conn)
        return answer

    def _target(self, url: URL) -> tuple[_Pool, bytes, URL]:
        scheme, host, port = url.scheme, url.host, url.port
        if scheme not in ("http", "https") or not host or port is None:
            raise ValueError("FastSession: the server URL must be http:// or https://")
        key = (scheme, host, port)
        pool = self._pools.get(key)
        if pool is None:
            context = None
            if scheme == "https":
                context = self.ssl_context or ssl.create_default_context()
            pool = self._pools[key] = _Pool(host, port, context, self.limit, self.keepalive_timeout)
        default_port = 443 if scheme == "https" else 80
        authority = host if port == default_port else f"{host}:{port}"
        if ":" in host:
            authority = f"[{host}]" if port == default_port else f"[{host}]:{port}"
        prefix = (
            f"POST {url.raw_path_qs} HTTP/1.1\r\nHost: {authority}\r\n"
            "Content-Type: application/json\r\nContent-Length: "
        ).encode("ascii")
        target = self._targets[id(url)] = (pool, prefix, url)
        return target

    @property
    def closed(self) -> bool:
        return not self._pools and super().closed

    async def close(self) -> None:
        """Close the idle connections (a call in flight closes its own on the way out)
        and the aiohttp session of uploads and downloads, if it was opened."""
        self._drop_pools()
        await super().close()

    def _drop_pools(self) -> None:
        pools, self._pools = self._pools, {}
        self._targets = {}
        for pool in pools.values():
            pool.close()

    def __repr__(self) -> str:
        return f"FastSession(limit={self.limit}, timeout={self.timeout})"


def session_for(api: TelegramAPIServer) -> AiohttpSession:
    """The session a ``Bot`` builds for itself: per ``TGFAST_TRANSPORT`` (``aiohttp``,
    the default, or ``fast``)."""
    transport = os.environ.get("TGFAST_TRANSPORT", "").strip().lower() or "aiohttp"
    if transport == "fast":
        return FastSession(api=api)
    if transport == "aiohttp":
        return AiohttpSession(api=api)
    raise ValueError(
        f"TGFAST_TRANSPORT: expected one of {', '.join(TRANSPORTS)}, got {transport!r}"
    )
