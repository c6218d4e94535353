"""``RespClient``: a small pipelining RESP2 client for tgfast's per-update commands.

With several workers sharing Redis, each update costs a claim (``EVALSHA``), a
``SET key done PX ttl`` and, with a conversation, the FSM state read (``GET``); each send
through the shared rate limiter an ``EVALSHA``. This is an asyncio Protocol that speaks
RESP2 itself: one connection, one ``transport.write`` per call, replies matched in order
to a deque of waiting futures. It is not a general Redis client (no pub/sub, cluster
or RESP3): tgfast's Redis parts send a handful of commands, all through it. With
``sentinels`` it finds the master through Redis Sentinel and follows a failover
(``tgfast.redis.sentinel``).

Why not redis-py: ``benchmarks/micro/redis_client.py`` (issue #18's rule: redis-py with
hiredis within 2x of this client's CPU per command would have replaced it), µs of
process CPU per command on uvloop, median of 7 rounds of 4000, at commit d7e271c::

    command         RespClient  redis-py  redis-py+hiredis  hiredis / RespClient
    GET                   15.1      64.5              52.9  3.51x
    EVALSHA               14.1      62.4              65.8  4.41x
    pipelined SET          3.4      24.7              23.1  6.75x

    machine: AMD EPYC, 2 cores | CPython 3.11.7 | redis-py 8.1.0 | hiredis 3.5.0 |
    uvloop 0.23.0 | redis-server 7.0.15 | 2026-11-24 21:13 UTC

hiredis replaces only redis-py's reply parser, and the figures show it saves little:
most of redis-py's CPU per command is spent elsewhere in its Python.

Every failure is a ``RedisUnavailable``: an error reply (its text is the server's,
``NOSCRIPT ...``), no reply within ``timeout``, a connection that could not be made or
was lost, or a closed client; a command sent whose connection then went away raises
a ``RedisConnectionLost`` (it may have run). A ``READONLY`` or ``MASTERDOWN`` reply
(the server is a replica now) also ends the connection: the next command connects
again, to the new master.
"""

from __future__ import annotations

import asyncio
import inspect
import ssl as _ssl
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias
from urllib.parse import parse_qsl, unquote, urlsplit

from .errors import RedisConnectionLost, RedisUnavailable
from .sentinel import SENTINEL_SCHEMES, Sentinels, parse_sentinel_url

if TYPE_CHECKING:
    from redis.asyncio import Redis

DEFAULT_MASTER_WAIT = 5.0
"""Seconds a command waits for a master through Sentinel (a failover) before failing."""

__all__ = ["Arg", "RespClient"]

Arg: TypeAlias = bytes | str | int | float


_NOT_MASTER = ("READONLY", "MASTERDOWN")
_SETTINGS_REFUSED = ("AUTH failed", "SELECT")
"""Error replies of a server that is not (or no longer) a usable master."""


class _ProtocolError(ValueError):
    """Bytes that are not RESP2: the stream cannot be trusted any more."""


# -- encoding ---------------------------------------------------------------------------


def _encode_other(arg: object) -> bytes:
    """The rarer argument types: floats, int subclasses; a bool is refused (1? b"true"?)."""
    if isinstance(arg, bool):
        raise TypeError("a bool is ambiguous as a redis argument: pass 1/0 or a string")
    if isinstance(arg, int):
        return b"%d" % arg
    if isinstance(arg, float):
        return repr(arg).encode()
    raise TypeError(f"cannot send {type(arg).__name__} to redis: pass bytes, str, int or float")


def _encode(args: Sequence[Arg]) -> bytes:
    """One command as a RESP array of bulk strings."""
    if not args:
        # Redis answers nothing to an empty array: the replies would shift by one
        raise ValueError("a redis command needs at least its name")
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        if isinstance(arg, bytes):
            data = arg
        elif isinstance(arg, str):
            data = arg.encode()
        elif type(arg) is int:
            data = b"%d" % arg
        else:
            data = _encode_other(arg)
        out.append(b"$%d\r\n%b\r\n" % (len(data), data))
    return b"".join(out)


# -- parsing ----------------------------------------------------------------------------


def _integer(buf: bytearray, start: int, end: int) -> int:
    try:
        return int(buf[start:end])
    except ValueError:
        raise _ProtocolError(f"not an integer: {bytes(buf[start:end])!r}") from None


def _parse(buf: bytearray, pos: int) -> tuple[Any, int] | None:
    """The reply starting at ``pos`` and the position after it; None if incomplete."""
    end = buf.find(b"\r\n", pos)
    if end < 0:
        return None
    kind = buf[pos]
    if kind == 36:  # $ bulk string
        size = _integer(buf, pos + 1, end)
        if size < 0:
            return None, end + 2
        start = end + 2
        stop = start + size
        if len(buf) < stop + 2:
            return None
        if buf[stop] != 13 or buf[stop + 1] != 10:
            raise _ProtocolError(f"bulk string of {size} bytes not followed by CRLF")
        return bytes(buf[start:stop]), stop + 2
    if kind == 43:  # + simple string
        return bytes(buf[pos + 1 : end]), end + 2
    if kind == 58:  # : integer
        return _integer(buf, pos + 1, end), end + 2
    if kind == 45:  # - error
        return RedisUnavailable(buf[pos + 1 : end].decode("utf-8", "replace")), end + 2
    if kind == 42:  # * array
        count = _integer(buf, pos + 1, end)
        if count < 0:
            return None, end + 2
        items = []
        pos = end + 2
        for _ in range(count):
            item = _parse(buf, pos)
            if item is None:
                return None
            items.append(item[0])
            pos = item[1]
        return items, pos
    raise _ProtocolError(f"unexpected reply type byte {bytes((kind,))!r}")


class _RespParser:
    """Replies out of a byte stream that arrives in pieces of any size.

    An incomplete reply is parsed again from its start when more bytes come: replies
    on the hot path are a few bytes, and a large bulk string costs one length check
    per piece, not a rescan.
    """

    __slots__ = ("_buf", "_pos")

    def __init__(self) -> None:
        self._buf = bytearray()
        self._pos = 0

    def feed(self, data: bytes) -> None:
        if self._pos:
            del self._buf[: self._pos]
            self._pos = 0
        self._buf += data

    def replies(self) -> list[Any]:
        """Every complete reply fed so far and not yet returned; ``_ProtocolError``."""
        buf = self._buf
        pos = self._pos
        size = len(buf)
        out = []
        while pos < size:
            item = _parse(buf, pos)
            if item is None:
                break
            out.append(item[0])
            pos = item[1]
        self._pos = pos
        return out


# -- one connection ---------------------------------------------------------------------


class _Connection(asyncio.Protocol):
    """One socket; a waiter per call: (future, replies it takes or 0 for one, sent at).

    Replies go to the waiters in order. A waiter whose caller was cancelled still takes
    its reply, so the rest stay aligned. Once the alignment cannot be trusted (no reply
    in time, bad bytes, lost socket) the connection is dropped and every waiter fails.
    """

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        timeout: float,
        on_close: Callable[[_Connection], None],
    ) -> None:
        self._loop = loop
        self._timeout = timeout
        self._on_close = on_close
        self._transport: asyncio.Transport | None = None
        self._parser = _RespParser()
        self._waiters: deque[tuple[asyncio.Future[Any], int, float]] = deque()
        self._batch: list[Any] = []
        self._timer: asyncio.TimerHandle | None = None
        self._closed: str | None = None
        self._lost: asyncio.Future[None] = loop.create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport  # type: ignore[assignment]

    def send(self, payload: bytes, count: int) -> asyncio.Future[Any]:
        """Write ``payload``; the future gets its reply, or ``count`` replies as a list."""
        loop = self._loop
        future = loop.create_future()
        if self._closed is not None or self._transport is None:
            future.set_exception(RedisConnectionLost(self._closed or "not connected"))
            return future
        now = loop.time()
        self._waiters.append((future, count, now))
        if self._timer is None:
            self._timer = loop.call_at(now + self._timeout, self._check)
        self._transport.write(payload)
        return future

    def adopt(self, queued: list[tuple[bytes, int, asyncio.Future[Any]]]) -> bool:
        """Write the commands that waited for this connection, in one write; False if
        it was lost in the meantime."""
        if self._closed is not None or self._transport is None:
            return False
        queued = [item for item in queued if not item[2].done()]  # cancelled: never sent
        if queued:
            now = self._loop.time()
            self._waiters.extend((future, count, now) for _, count, future in queued)
            if self._timer is None:
                self._timer = self._loop.call_at(now + self._timeout, self._check)
            self._transport.write(b"".join([payload for payload, _, _ in queued]))
        return True

    def data_received(self, data: bytes) -> None:
        parser = self._parser
        parser.feed(data)
        try:
            replies = parser.replies()
        except _ProtocolError as exc:
            self.drop(f"redis protocol error: {exc}")
            return
        waiters = self._waiters
        demoted: RedisUnavailable | None = None
        for reply in replies:
            if not waiters:
                self.drop("redis protocol error: a reply nobody asked for")
                return
            if type(reply) is RedisUnavailable and str(reply).startswith(_NOT_MASTER):
                demoted = reply
            future, count, _ = waiters[0]
            if count:
                batch = self._batch
                batch.append(reply)
                if len(batch) < count:
                    continue
                self._batch = []
                waiters.popleft()
                if not future.done():
                    future.set_result(batch)
            else:
                waiters.popleft()
                if future.done():
                    pass  # its caller was cancelled: the reply is dropped
                elif type(reply) is RedisUnavailable:
                    future.set_exception(reply)
                else:
                    future.set_result(reply)
        if demoted is not None:
            # a failover made this server a replica (or cut it off): the commands still
            # out fail, and the next one connects again, to the master of the moment
            self.drop(f"redis stopped being the master: {demoted}")

    def connection_lost(self, exc: Exception | None) -> None:
        self.drop("connection to redis lost" + (f": {exc}" if exc else ""))
        if not self._lost.done():
            self._lost.set_result(None)

    def _check(self) -> None:
        """The timer: the oldest waiter has had ``timeout`` seconds, or wait for it."""
        self._timer = None
        if not self._waiters:
            return
        sent = self._waiters[0][2]
        if self._loop.time() - sent >= self._timeout:
            self.drop(f"no reply from redis within {self._timeout} s")
        else:
            self._timer = self._loop.call_at(sent + self._timeout, self._check)

    def drop(self, message: str) -> None:
        """Close the socket and fail every waiter with ``RedisUnavailable(message)``."""
        if self._closed is not None:
            return
        self._closed = message
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._transport is not None:
            self._transport.abort()
        elif not self._lost.done():
            self._lost.set_result(None)  # never connected: nothing to wait for
        self._on_close(self)
        waiters, self._waiters = self._waiters, deque()
        for future, _, _ in waiters:
            if not future.done():
                future.set_exception(RedisConnectionLost(message))

    async def wait_closed(self) -> None:
        await asyncio.wait((self._lost,))


# -- the client -------------------------------------------------------------------------


class RespClient:
    """A pipelining RESP2 client on one lazily opened connection (see the module doc).

    Commands from concurrent callers are written in call order and share the socket.
    A reply that does not come within ``timeout`` seconds (a connect within
    ``connect_timeout``, by default ``timeout``) fails every pending command, as a lost
    connection does, with ``RedisUnavailable``; the next command connects again.
    ``close()`` is final.

    With ``sentinels`` (a ``Sentinels``), ``host`` and ``port`` are those of the master
    the sentinels name at each connect, checked with ``ROLE``. A connect that fails is
    tried again, every 50 to 500 ms, for ``master_wait`` seconds (by default 5 with
    sentinels, none without): the commands sent meanwhile wait for the new master of a
    failover instead of failing at once.
    """

    __slots__ = ("_closed", "_conn", "_connect_timeout", "_connecting", "_db", "_host",
                 "_master_wait", "_password", "_path", "_port", "_sentinels", "_ssl",
                 "_timeout", "_username", "_waiting")  # fmt: skip

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 6379,
        path: str | None = None,
        db: int = 0,
        username: str | None = None,
        password: str | None = None,
        ssl: _ssl.SSLContext | None = None,
        timeout: float = 2.0,
        connect_timeout: float | None = None,
        sentinels: Sentinels | None = None,
        master_wait: float | None = None,
    ) -> None:
        if path is not None and ssl is not None:
            raise ValueError("TLS over a unix socket is not supported")
        if path is not None and sentinels is not None:
            raise ValueError("sentinels name a TCP master: a unix socket path is not used")
        if master_wait is None:
            master_wait = DEFAULT_MASTER_WAIT if sentinels is not None else 0.0
        elif not master_wait >= 0:
            raise ValueError(f"master_wait must be 0 or more seconds, got {master_wait!r}")
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout!r}")
        if connect_timeout is None:
            connect_timeout = timeout
        elif connect_timeout <= 0:
            raise ValueError(f"connect_timeout must be positive, got {connect_timeout!r}")
        self._host = host
        self._port = port
        self._path = path
        self._db = db
        self._username = username
        self._password = password
        self._ssl = ssl
        self._timeout = timeout
        self._connect_timeout = connect_timeout
        if sentinels is not None:
            self._host, self._port = "", 0  # the master the sentinels name, at each connect
        self._sentinels = sentinels
        self._master_wait = float(master_wait)
        self._conn: _Connection | None = None
        self._connecting: asyncio.Task[None] | None = None
        self._waiting: list[tuple[bytes, int, asyncio.Future[Any]]] = []
        self._closed = False

    def __repr__(self) -> str:
        if self._path is not None:
            where = f"unix:{self._path}"
        elif self._sentinels is not None:
            master = f"{self._host}:{self._port}" if self._host else "not asked yet"
            where = f"{self._sentinels!r}, master {master}"
        else:
            where = f"{self._host}:{self._port}"
        return f"<RespClient {where} db={self._db}{' tls' if self._ssl else ''}>"

    @property
    def sentinels(self) -> Sentinels | None:
        """The sentinels this client finds its master through, if any."""
        return self._sentinels

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        timeout: float = 2.0,
        connect_timeout: float | None = None,
        master_wait: float | None = None,
    ) -> RespClient:
        """``redis://[user:pass@]host[:port][/db]``, ``rediss://...`` (TLS with the
        default context), ``unix://[user:pass@]/path[?db=N]`` or, through Sentinel,
        ``redis+sentinel://[user:pass@]host[:port][,host[:port]...]/service[/db]``
        (``rediss+sentinel://`` for TLS; see ``tgfast.redis.sentinel``)."""
        if url.partition("://")[0].lower() in SENTINEL_SCHEMES:
            return cls._from_sentinel_url(url, timeout, connect_timeout, master_wait)
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError as exc:
            raise ValueError(f"bad redis URL: {exc}") from None
        if parts.scheme not in ("redis", "rediss", "unix"):
            raise ValueError(
                f"bad redis URL: scheme {parts.scheme!r}, expected redis://, rediss://, "
                "unix:// or redis+sentinel://"
            )
        options = dict(parse_qsl(parts.query, keep_blank_values=True))
        db_text = options.pop("db", None)
        if options:
            raise ValueError(
                f"bad redis URL: unsupported option(s) {', '.join(sorted(options))} (only db); "
                "for other options build a redis-py client (pip install 'tgfast[redis]') "
                "and use RespClient.like()"
            )
        username = unquote(parts.username) if parts.username else None
        password = unquote(parts.password) if parts.password is not None else None
        if parts.scheme == "unix":
            if parts.hostname or port is not None:
                raise ValueError("bad redis URL: unix:// takes no host or port (unix:///path)")
            if not parts.path:
                raise ValueError("bad redis URL: unix:// needs a socket path (unix:///path)")
            return cls(
                path=unquote(parts.path),
                db=_db_number("0" if db_text is None else db_text),
                username=username,
                password=password,
                timeout=timeout,
                connect_timeout=connect_timeout,
            )
        if not parts.hostname:
            raise ValueError("bad redis URL: no host")
        path_db = parts.path[1:] if parts.path.startswith("/") else parts.path
        if path_db and db_text is not None and path_db != db_text:
            raise ValueError(f"bad redis URL: db {path_db!r} in the path, {db_text!r} in the query")
        return cls(
            host=parts.hostname,
            port=6379 if port is None else port,
            db=_db_number(path_db or ("0" if db_text is None else db_text)),
            username=username,
            password=password,
            ssl=_ssl.create_default_context() if parts.scheme == "rediss" else None,
            timeout=timeout,
            connect_timeout=connect_timeout,
        )

    @classmethod
    def _from_sentinel_url(
        cls,
        url: str,
        timeout: float,
        connect_timeout: float | None,
        master_wait: float | None,
    ) -> RespClient:
        parts = parse_sentinel_url(url)
        context = _ssl.create_default_context() if parts["tls"] else None
        sentinels = Sentinels(
            parts["addresses"], parts["service_name"], username=parts["sentinel_username"],
            password=parts["sentinel_password"], ssl=context,
            timeout=connect_timeout or timeout,
        )  # fmt: skip
        return cls(
            db=parts["db"], username=parts["username"], password=parts["password"],
            ssl=context, timeout=timeout, connect_timeout=connect_timeout,
            sentinels=sentinels,
            master_wait=parts["master_wait"] if master_wait is None else master_wait,
        )  # fmt: skip

    @classmethod
    def like(cls, redis: Redis, *, timeout: float | None = None) -> RespClient:
        """The server, db and credentials of a redis-py asyncio client (TCP, TLS, a
        unix socket, or a master through Sentinel: ``Sentinel(...).master_for(name)``),
        so that one setting configures both. ``timeout`` defaults to the client's
        ``socket_timeout``, else 2 s; the connect timeout is the client's
        ``socket_connect_timeout``, else ``timeout``."""
        from redis.asyncio.connection import (
            Connection,
            SSLConnection,
            UnixDomainSocketConnection,
        )
        from redis.asyncio.sentinel import (
            SentinelConnectionPool,
            SentinelManagedConnection,
            SentinelManagedSSLConnection,
        )

        pool = getattr(redis, "connection_pool", None)
        kind = getattr(pool, "connection_class", None)
        plain = (Connection, SSLConnection, UnixDomainSocketConnection)
        managed = (SentinelManagedConnection, SentinelManagedSSLConnection)
        if pool is None or kind not in (*plain, *managed):
            raise TypeError(
                f"RespClient.like() reads redis-py asyncio clients (TCP, TLS, unix socket, "
                f"Sentinel), not {type(redis).__name__} with "
                f"{getattr(kind, '__name__', kind)}: pass a URL to RespClient.from_url() instead"
            )
        sentinels: Sentinels | None = None
        if kind in managed:
            if not (isinstance(pool, SentinelConnectionPool) and pool.is_master):
                raise TypeError(
                    "RespClient.like() needs the master of a Sentinel service "
                    "(Sentinel.master_for()), not a replica: tgfast writes"
                )
            sentinels = _sentinels_like(pool, Connection, SSLConnection)
        kwargs: dict[str, Any] = pool.connection_kwargs
        if kwargs.get("credential_provider") is not None:
            raise TypeError(
                "RespClient.like() cannot use a credential_provider: "
                "pass a URL to RespClient.from_url() instead"
            )
        if timeout is None:
            timeout = kwargs.get("socket_timeout") or 2.0
        common: dict[str, Any] = {
            "db": int(kwargs.get("db") or 0),
            "username": kwargs.get("username"),
            "password": kwargs.get("password"),
            "timeout": float(timeout),
            "connect_timeout": kwargs.get("socket_connect_timeout") or None,
        }
        if kind is UnixDomainSocketConnection:
            return cls(path=kwargs["path"], **common)
        tls = kind is SSLConnection or kind is SentinelManagedSSLConnection
        return cls(
            host=kwargs.get("host", "localhost"),
            port=int(kwargs.get("port", 6379)),
            ssl=_ssl_context_like(SSLConnection, kwargs) if tls else None,
            sentinels=sentinels,
            **common,
        )

    async def execute(self, *args: Arg) -> Any:
        """One command's reply: bytes (bulk and simple strings), int, None or a list.

        Any failure, an error reply too, raises ``RedisUnavailable``.
        """
        payload = _encode(args)
        conn = self._conn
        if conn is None:
            return await self._queue(payload, 0)
        return await conn.send(payload, 0)

    async def pipeline(self, commands: Sequence[Sequence[Arg]]) -> list[Any]:
        """The replies of ``commands``, written at once, in order; an error reply is a
        ``RedisUnavailable`` in the list, so one bad command hides none of the others."""
        if not commands:
            return []
        payload = b"".join([_encode(command) for command in commands])
        conn = self._conn
        future = (
            self._queue(payload, len(commands))
            if conn is None
            else conn.send(payload, len(commands))
        )
        replies: list[Any] = await future
        return replies

    async def close(self) -> None:
        """Close the connection: pending commands and every later one raise
        ``RedisUnavailable("closed")``."""
        self._closed = True
        task = self._connecting
        if task is not None:
            task.cancel()
            await asyncio.wait((task,))
        waiting, self._waiting = self._waiting, []  # if the task was cancelled unstarted
        for _, _, future in waiting:
            if not future.done():
                future.set_exception(RedisUnavailable("closed"))
        conn = self._conn
        if conn is not None:
            conn.drop("closed")
            await conn.wait_closed()
        if self._sentinels is not None:
            await self._sentinels.close()

    def _queue(self, payload: bytes, count: int) -> asyncio.Future[Any]:
        """Hold a command until connected; the first one starts the connect.

        The queued commands are written at once when the connection is ready, in call
        order, and never before AUTH and SELECT succeeded (after a failed SELECT they
        would run in db 0).
        """
        if self._closed:
            raise RedisUnavailable("closed")
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._waiting.append((payload, count, future))
        if self._connecting is None:
            self._connecting = loop.create_task(self._open())
        return future

    def _forget(self, conn: _Connection) -> None:
        if self._conn is conn:
            self._conn = None

    async def _open(self) -> None:
        """Connect, then hand the queued commands over, or fail them all."""
        conn: _Connection | None = None
        error: BaseException | None = None
        try:
            conn = await self._connect()
        except asyncio.CancelledError:
            error = RedisUnavailable("closed" if self._closed else "connect cancelled")
            raise
        except BaseException as exc:  # each waiting caller gets it
            error = exc
            if not isinstance(exc, Exception):
                raise
        finally:
            self._connecting = None
            waiting, self._waiting = self._waiting, []
            if conn is not None and conn.adopt(waiting):
                self._conn = conn
            else:
                if conn is not None:
                    conn.drop("connect failed")
                for _, _, future in waiting:
                    if not future.done():
                        future.set_exception(error or RedisUnavailable("connection to redis lost"))

    async def _connect(self) -> _Connection:
        """A connection through its handshake, tried again for ``master_wait`` seconds."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self._master_wait
        pause = 0.05
        failed: tuple[str, int] | None = None
        while True:
            conn = _Connection(loop, self._timeout, self._forget)
            try:
                if self._sentinels is not None:  # each sentinel within its own timeout
                    self._host, self._port = await self._sentinels.master(avoid=failed)
                await asyncio.wait_for(self._handshake(conn), self._connect_timeout)
                return conn
            except asyncio.TimeoutError:  # not the builtin one on Python 3.10
                error = RedisUnavailable(
                    f"connecting to redis at {self!r} took over {self._connect_timeout} s"
                )
            except RedisUnavailable as exc:  # AUTH, SELECT or ROLE refused, no master
                if str(exc).startswith(_SETTINGS_REFUSED):
                    conn.drop("connect failed")
                    raise  # a wrong password or db: no failover mends that
                error = exc
            except OSError as exc:  # refused, no such host, TLS handshake failed
                error = RedisUnavailable(f"cannot connect to redis at {self!r}: {exc}")
                error.__cause__ = exc
            except BaseException:
                conn.drop("connect failed")
                raise
            conn.drop("connect failed")
            failed = (self._host, self._port) if self._sentinels is not None else None
            if self._closed or loop.time() + pause > give_up:
                raise error
            await asyncio.sleep(pause)
            pause = min(2 * pause, 0.5)

    async def _handshake(self, conn: _Connection) -> None:
        loop = asyncio.get_running_loop()
        sentinels = self._sentinels
        if self._path is not None:
            await loop.create_unix_connection(lambda: conn, self._path)
        else:
            await loop.create_connection(lambda: conn, self._host, self._port, ssl=self._ssl)
        hello: list[tuple[Arg, ...]] = []
        if self._username is not None:
            hello.append(("AUTH", self._username, self._password or ""))
        elif self._password is not None:
            hello.append(("AUTH", self._password))
        if self._db:
            hello.append(("SELECT", self._db))
        if sentinels is not None:
            hello.append(("ROLE",))
        if not hello:
            return
        replies = await conn.send(b"".join([_encode(command) for command in hello]), len(hello))
        for command, reply in zip(hello, replies, strict=True):
            if isinstance(reply, RedisUnavailable):
                what = f"SELECT {self._db}" if command[0] == "SELECT" else str(command[0])
                raise RedisUnavailable(f"{what} failed: {reply}")
        role = replies[-1][0] if sentinels is not None and replies[-1] else None
        if sentinels is not None and role != b"master":
            # a sentinel that has not seen the failover yet names the old master, now
            # a replica (or a server that restarted as one): ask again
            what = role.decode(errors="replace") if isinstance(role, bytes) else repr(role)
            raise RedisUnavailable(
                f"{self._host}:{self._port}, named master of {sentinels.service_name!r} by "
                f"the sentinels, is a {what}"
            )


def _sentinels_like(pool: Any, plain: type, tls: type) -> Sentinels:
    """The ``Sentinels`` of a redis-py ``SentinelConnectionPool``: its service name and
    the address, credentials and TLS settings of each of its sentinel clients."""
    addresses: list[tuple[str, int]] = []
    settings: set[tuple[Any, ...]] = set()
    context: _ssl.SSLContext | None = None
    for client in pool.sentinel_manager.sentinels:
        sentinel_pool = client.connection_pool
        kind = sentinel_pool.connection_class
        kwargs: dict[str, Any] = sentinel_pool.connection_kwargs
        if kind not in (plain, tls) or kwargs.get("credential_provider") is not None:
            raise TypeError(
                "RespClient.like() reads sentinels reached over TCP or TLS with a password, "
                f"not {kind.__name__}: pass a redis+sentinel:// URL to RespClient.from_url()"
            )
        addresses.append((kwargs.get("host", "localhost"), int(kwargs.get("port", 26379))))
        settings.add((kwargs.get("username"), kwargs.get("password"), kind,
                      kwargs.get("socket_timeout")))  # fmt: skip
        if kind is tls and context is None:
            context = _ssl_context_like(tls, kwargs)
    if len(settings) != 1:
        raise TypeError("RespClient.like() needs the same settings for every sentinel")
    username, password, _, timeout = settings.pop()
    return Sentinels(
        addresses, pool.service_name, username=username, password=password, ssl=context,
        timeout=float(timeout or 1.0),
    )  # fmt: skip


def _db_number(text: str) -> int:
    if not (text.isascii() and text.isdigit()):
        raise ValueError(f"bad redis URL: db must be a number, got {text!r}")
    return int(text)


_CERT_REQS = {
    "none": _ssl.CERT_NONE,
    "optional": _ssl.CERT_OPTIONAL,
    "required": _ssl.CERT_REQUIRED,
}


def _ssl_context_like(connection_class: type, kwargs: dict[str, Any]) -> _ssl.SSLContext:
    """The TLS context a redis-py ``SSLConnection`` with these kwargs would use: its own
    defaults (which differ across redis-py versions) under the pool's ``ssl_*`` options."""
    params = inspect.signature(connection_class).parameters
    options = {name: p.default for name, p in params.items() if name.startswith("ssl_")}
    options.update((name, value) for name, value in kwargs.items() if name.startswith("ssl_"))
    reqs = options.get("ssl_cert_reqs")
    verify = _CERT_REQS[reqs] if isinstance(reqs, str) else _ssl.VerifyMode(reqs or 0)
    context = _ssl.create_default_context(
        cafile=options.get("ssl_ca_certs"),
        capath=options.get("ssl_ca_path"),
        cadata=options.get("ssl_ca_data"),
    )
    context.check_hostname = bool(options.get("ssl_check_hostname")) and verify != _ssl.CERT_NONE
    context.verify_mode = verify
    for flag in options.get("ssl_include_verify_flags") or ():
        context.verify_flags |= flag
    for flag in options.get("ssl_exclude_verify_flags") or ():
        context.verify_flags &= ~flag
    if options.get("ssl_certfile") or options.get("ssl_keyfile"):
        context.load_cert_chain(
            options["ssl_certfile"], options.get("ssl_keyfile"), options.get("ssl_password")
        )
    if options.get("ssl_min_version") is not None:
        context.minimum_version = options["ssl_min_version"]
    if options.get("ssl_ciphers") is not None:
        context.set_ciphers(options["ssl_ciphers"])
    return context
