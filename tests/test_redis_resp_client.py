"""RespClient: the RESP2 parser fed in pieces down to single bytes, argument encoding, and
the client against a real redis-server (replies, scripts, pipelines with errors, concurrent
callers, cancelled callers, restarts, AUTH, db, unix socket) and against servers of our
own that never answer or answer garbage; ``from_url`` and ``like`` configurations."""

from __future__ import annotations

import asyncio
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis
import uvloop
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.sentinel import Sentinel
from redis_server import REDIS_SERVER, RedisServer, free_port

from tgfast.errors import TgfastError
from tgfast.fsm import StorageError
from tgfast.redis import RedisConnectionLost, RedisUnavailable, RespClient
from tgfast.redis.resp_client import _encode, _ProtocolError, _RespParser


@pytest.fixture
async def client(redis_server: RedisServer) -> AsyncIterator[RespClient]:
    redis_server.flushall()
    resp = RespClient.from_url(redis_server.url)
    yield resp
    await resp.close()


async def wait_until_blocked(observer: RespClient, command: bytes = b"cmd=blpop") -> None:
    """Until some connection is blocked in ``command`` (so it was surely written)."""
    for _ in range(200):
        if command in await observer.execute("CLIENT", "LIST"):
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"no client ever showed {command!r}")


def plain(value: Any) -> Any:
    """A reply with its RedisUnavailable instances as comparable tuples."""
    if isinstance(value, RedisUnavailable):
        return ("error", str(value))
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


# -- the parser -------------------------------------------------------------------------

BIG = (bytes(range(256)) + b"\r\n") * 400  # 103 KB, CRLFs inside
REPLIES: list[tuple[bytes, Any]] = [
    (b"+OK\r\n", b"OK"),
    (b"-ERR unknown command 'x'\r\n", ("error", "ERR unknown command 'x'")),
    (b"-ERR \xc3\xbc \xff\r\n", ("error", "ERR \u00fc \ufffd")),
    (b":0\r\n", 0),
    (b":-42\r\n", -42),
    (b":9223372036854775807\r\n", 2**63 - 1),
    (b"$-1\r\n", None),
    (b"$0\r\n\r\n", b""),
    (b"$5\r\nhello\r\n", b"hello"),
    (b"$7\r\na\r\nb\r\nc\r\n", b"a\r\nb\r\nc"),
    (b"*-1\r\n", None),
    (b"*0\r\n", []),
    (
        b"*4\r\n:1\r\n*3\r\n$1\r\na\r\n*-1\r\n*1\r\n$-1\r\n-WRONGTYPE bad\r\n+QUEUED\r\n",
        [1, [b"a", None, [None]], ("error", "WRONGTYPE bad"), b"QUEUED"],
    ),
    (b"$%d\r\n%b\r\n" % (len(BIG), BIG), BIG),
    (b":7\r\n", 7),
]
STREAM = b"".join(data for data, _ in REPLIES)


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64, 4096, len(STREAM)])
def test_parser_in_pieces_of_any_size(chunk: int) -> None:
    parser = _RespParser()
    got: list[Any] = []
    for start in range(0, len(STREAM), chunk):
        parser.feed(STREAM[start : start + chunk])
        got.extend(plain(reply) for reply in parser.replies())
    assert got == [expected for _, expected in REPLIES]
    assert parser.replies() == []


def test_parser_holds_an_incomplete_reply_until_it_completes() -> None:
    parser = _RespParser()
    parser.feed(b"*2\r\n$5\r\nhel")
    assert parser.replies() == []
    parser.feed(b"lo\r\n")
    assert parser.replies() == []
    parser.feed(b":1\r\n:2")
    assert parser.replies() == [[b"hello", 1]]
    parser.feed(b"\r\n")
    assert parser.replies() == [2]


@pytest.mark.parametrize(
    "data",
    [b"!oops\r\n", b"_\r\n", b"$abc\r\n", b"*x\r\n", b":1.5\r\n", b"$3\r\nabcd\r\n", b"\r\n"],
)
def test_parser_refuses_what_is_not_resp2(data: bytes) -> None:
    parser = _RespParser()
    parser.feed(b"+OK\r\n" + data)
    with pytest.raises(_ProtocolError):
        parser.replies()


# -- encoding ---------------------------------------------------------------------------


def test_encode_arguments() -> None:
    payload = _encode(("SET", b"k\x00\r\n", "\u00fc", 5, -3, 0.1, 1e20, float("inf")))
    assert payload == (
        b"*8\r\n$3\r\nSET\r\n$4\r\nk\x00\r\n\r\n$2\r\n\xc3\xbc\r\n$1\r\n5\r\n$2\r\n-3\r\n"
        b"$3\r\n0.1\r\n$5\r\n1e+20\r\n$3\r\ninf\r\n"
    )


@pytest.mark.parametrize("bad", [True, False, None, [1], bytearray(b"x"), object()])
async def test_bad_arguments_raise_type_error_before_connecting(bad: object) -> None:
    client = RespClient(port=free_port())  # nothing listens: connecting would fail otherwise
    with pytest.raises(TypeError):
        await client.execute("SET", "k", bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        await client.pipeline([("PING",), ("SET", "k", bad)])  # type: ignore[list-item]
    assert client._conn is None and client._connecting is None


async def test_an_empty_command_is_refused() -> None:
    client = RespClient(port=free_port())
    with pytest.raises(ValueError, match="at least its name"):
        await client.execute()
    with pytest.raises(ValueError, match="at least its name"):
        await client.pipeline([("PING",), ()])
    assert await client.pipeline([]) == []
    assert client._conn is None and client._connecting is None


# -- against redis-server ---------------------------------------------------------------


async def test_reply_types(client: RespClient) -> None:
    assert await client.execute("SET", "k", "v") == b"OK"
    assert await client.execute("GET", "k") == b"v"
    assert await client.execute("GET", "missing") is None
    assert await client.execute("INCRBY", "n", -5) == -5
    assert await client.execute("INCRBYFLOAT", "f", 1.5) == b"1.5"
    assert await client.execute("RPUSH", "list", "a", b"\xff", 3) == 3
    assert await client.execute("LRANGE", "list", 0, -1) == [b"a", b"\xff", b"3"]
    assert await client.execute("HGETALL", "missing") == []
    assert await client.execute("SET", "\u00e9t\u00e9", "\u2603") == b"OK"
    assert await client.execute("GET", b"\xc3\xa9t\xc3\xa9") == "\u2603".encode()
    big = bytes(range(256)) * 8192  # 2 MB: many reads
    assert await client.execute("SET", "big", big) == b"OK"
    assert await client.execute("GET", "big") == big
    assert await client.execute("DEL", "k", "big", "missing") == 2
    assert await client.execute("GET", "k") is None


async def test_scripts_and_error_replies(client: RespClient) -> None:
    sha = await client.execute("SCRIPT", "LOAD", "return {redis.call('GET', KEYS[1]), ARGV[1]}")
    await client.execute("SET", "k", "v")
    assert await client.execute("EVALSHA", sha, 1, "k", 7) == [b"v", b"7"]
    with pytest.raises(RedisUnavailable, match="^NOSCRIPT") as caught:
        await client.execute("EVALSHA", "0" * 40, 0)
    assert isinstance(caught.value, StorageError) and isinstance(caught.value, TgfastError)
    with pytest.raises(RedisUnavailable, match="^WRONGTYPE"):
        await client.execute("LPUSH", "k", "x")
    nested = "return {1, 'a', {2, false}, redis.error_reply('MY failure')}"
    reply = await client.execute("EVAL", nested, 0)  # an error inside an array is a value
    assert plain(reply) == [1, b"a", [2, None], ("error", "MY failure")]
    assert await client.execute("GET", "k") == b"v"  # still aligned after the errors


async def test_pipeline_error_in_the_middle(client: RespClient) -> None:
    replies = await client.pipeline(
        [("SET", "a", 1), ("HGET", "a", "f"), ("NOSUCHCOMMAND",), ("INCR", "a"), ("GET", "a")]
    )
    assert replies[0] == b"OK" and replies[3:] == [2, b"2"]
    assert isinstance(replies[1], RedisUnavailable) and str(replies[1]).startswith("WRONGTYPE")
    assert isinstance(replies[2], RedisUnavailable) and str(replies[2]).startswith("ERR unknown")
    assert await client.execute("GET", "a") == b"2"


async def test_one_write_per_call(client: RespClient, monkeypatch: pytest.MonkeyPatch) -> None:
    assert await client.execute("PING") == b"PONG"
    conn = client._conn
    assert conn is not None and conn._transport is not None
    writes: list[bytes] = []
    write = conn._transport.write

    def counting(data: bytes | bytearray | memoryview) -> None:
        writes.append(bytes(data))
        write(data)

    monkeypatch.setattr(conn._transport, "write", counting)
    assert await client.execute("SET", "k", "v") == b"OK"
    assert len(writes) == 1
    replies = await client.pipeline([("INCR", "n")] * 50)
    assert replies == list(range(1, 51))
    assert len(writes) == 2 and writes[1].count(b"INCR") == 50


async def test_concurrent_first_commands_share_one_connection(redis_server: RedisServer) -> None:
    client = RespClient.from_url(redis_server.url)
    try:
        ids = await asyncio.gather(*(client.execute("CLIENT", "ID") for _ in range(50)))
        assert len(set(ids)) == 1
        assert await client.execute("CLIENT", "ID") == ids[0]
    finally:
        await client.close()


async def test_concurrent_commands_get_their_own_replies(client: RespClient) -> None:
    calls = [
        client.execute("ECHO", f"m{i}") if i % 2 else client.execute("INCRBY", "n", 1)
        for i in range(100)
    ]
    calls.append(client.pipeline([("ECHO", "p1"), ("INCRBY", "n", 0), ("ECHO", "p2")]))
    replies = await asyncio.gather(*calls)
    assert replies[:100] == [f"m{i}".encode() if i % 2 else i // 2 + 1 for i in range(100)]
    assert replies[100] == [b"p1", 50, b"p2"]


@pytest.mark.parametrize("kind", ["execute", "pipeline"])
async def test_a_cancelled_caller_keeps_the_replies_aligned(
    client: RespClient, redis_server: RedisServer, kind: str
) -> None:
    other = RespClient.from_url(redis_server.url)
    try:
        await client.execute("SET", "k", "mine")
        blocked: asyncio.Future[Any] = asyncio.ensure_future(
            client.execute("BLPOP", "queue", 5)
            if kind == "execute"
            else client.pipeline([("BLPOP", "queue", 5), ("ECHO", "after")])
        )
        queued = asyncio.ensure_future(client.execute("GET", "k"))
        await wait_until_blocked(other)
        blocked.cancel()
        assert await other.execute("RPUSH", "queue", "for-blpop") == 1
        assert await queued == b"mine"
        assert await client.execute("ECHO", "next") == b"next"
        assert blocked.cancelled()
        assert await other.execute("LLEN", "queue") == 0  # BLPOP took it; its reply was dropped
    finally:
        await other.close()


async def test_a_cancelled_first_caller_does_not_cancel_the_connect(
    redis_server: RedisServer,
) -> None:
    client = RespClient.from_url(redis_server.url)
    try:
        first = asyncio.ensure_future(client.execute("INCR", "cancelled-first"))
        second = asyncio.ensure_future(client.execute("INCR", "cancelled-first"))
        await asyncio.sleep(0)  # both wait for the connection now
        first.cancel()
        assert await second == 1  # the cancelled command was never sent
        assert first.cancelled()
        assert await client.execute("GET", "cancelled-first") == b"1"
    finally:
        await client.close()


async def test_idle_longer_than_timeout_is_fine(redis_server: RedisServer) -> None:
    client = RespClient.from_url(redis_server.url, timeout=0.1)
    try:
        connection = await client.execute("CLIENT", "ID")
        await asyncio.sleep(0.25)
        assert await client.execute("CLIENT", "ID") == connection
        for _ in range(20):  # the timer re-arms from the oldest pending command
            await client.execute("PING")
            await asyncio.sleep(0.01)
        assert await client.execute("CLIENT", "ID") == connection
    finally:
        await client.close()


async def test_a_slow_reply_times_out_and_the_next_command_reconnects(
    redis_server: RedisServer,
) -> None:
    client = RespClient.from_url(redis_server.url, timeout=0.2)
    try:
        connection = await client.execute("CLIENT", "ID")
        loop = asyncio.get_running_loop()
        start = loop.time()
        slow = asyncio.ensure_future(client.execute("BLPOP", "nothing", 2))
        behind = asyncio.ensure_future(client.execute("PING"))
        with pytest.raises(RedisUnavailable, match="within 0.2 s"):
            await slow
        with pytest.raises(RedisUnavailable):
            await behind
        assert 0.15 < loop.time() - start < 1.0
        assert await client.execute("CLIENT", "ID") != connection
    finally:
        await client.close()


# -- servers of our own -----------------------------------------------------------------


@dataclass
class FakeServer:
    """A TCP server that reads everything and answers ``answers[n]`` on its n-th
    connection (nothing at all when there is none)."""

    answers: list[bytes] = field(default_factory=list)
    connections: int = 0
    closed: int = 0
    server: asyncio.Server | None = None

    @property
    def port(self) -> int:
        assert self.server is not None
        return int(self.server.sockets[0].getsockname()[1])

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        number = self.connections
        self.connections += 1
        while await reader.read(65536):
            if number < len(self.answers):
                writer.write(self.answers[number])
        self.closed += 1
        writer.close()

    async def wait_closed(self, count: int) -> None:
        for _ in range(200):
            if self.closed >= count:
                return
            await asyncio.sleep(0.005)
        raise AssertionError(f"{self.closed} of {count} connections closed by the client")


@pytest.fixture
async def fake_server() -> AsyncIterator[FakeServer]:
    fake = FakeServer()
    fake.server = await asyncio.start_server(fake.handle, "127.0.0.1", 0)
    yield fake
    fake.server.close()
    await fake.server.wait_closed()


async def test_a_silent_server_times_out_every_pending_command(fake_server: FakeServer) -> None:
    client = RespClient(port=fake_server.port, timeout=0.2)
    try:
        loop = asyncio.get_running_loop()
        start = loop.time()
        calls = [client.execute("GET", f"k{i}") for i in range(3)]
        calls.append(client.pipeline([("PING",), ("PING",)]))
        results = await asyncio.gather(*calls, return_exceptions=True)
        # sent, then dropped unanswered: they may have run
        assert [type(result) for result in results] == [RedisConnectionLost] * 4
        assert 0.15 < loop.time() - start < 1.0
        await fake_server.wait_closed(1)  # the client dropped the connection
        with pytest.raises(RedisUnavailable):
            await client.execute("PING")
        assert fake_server.connections == 2
    finally:
        await client.close()


async def test_connect_with_auth_to_a_silent_server_times_out(fake_server: FakeServer) -> None:
    client = RespClient(port=fake_server.port, password="secret", timeout=0.2)
    try:
        start = asyncio.get_running_loop().time()
        results = await asyncio.gather(
            *(client.execute("PING") for _ in range(5)), return_exceptions=True
        )
        assert [type(result) for result in results] == [RedisUnavailable] * 5
        assert asyncio.get_running_loop().time() - start < 1.0
        assert fake_server.connections == 1
        await fake_server.wait_closed(1)
        assert client._conn is None
    finally:
        await client.close()


async def test_close_before_the_connect_starts(redis_server: RedisServer) -> None:
    client = RespClient.from_url(redis_server.url)
    call = asyncio.ensure_future(client.execute("PING"))
    await asyncio.sleep(0)  # queued; the connect task has not run yet
    await client.close()
    with pytest.raises(RedisUnavailable, match="^closed$"):
        await call


async def test_close_while_connecting(fake_server: FakeServer) -> None:
    client = RespClient(port=fake_server.port, password="secret", timeout=5)
    calls = [asyncio.ensure_future(client.execute("PING")) for _ in range(3)]
    await asyncio.sleep(0.05)
    await client.close()
    results = await asyncio.gather(*calls, return_exceptions=True)
    assert [(type(result), str(result)) for result in results] == [(RedisUnavailable, "closed")] * 3
    await fake_server.wait_closed(1)


async def test_garbage_drops_the_connection(fake_server: FakeServer) -> None:
    fake_server.answers = [b"!garbage\r\n", b"+OK\r\n", b"+OK\r\n+EXTRA\r\n"]
    client = RespClient(port=fake_server.port)
    try:
        with pytest.raises(RedisUnavailable, match="protocol error"):
            await client.execute("PING")
        assert await client.execute("PING") == b"OK"  # a new connection
        await client.close()
        client = RespClient(port=fake_server.port)
        assert await client.execute("PING") == b"OK"
        await fake_server.wait_closed(3)  # dropped for the reply nobody asked for
        assert client._conn is None
    finally:
        await client.close()


async def test_connection_refused() -> None:
    client = RespClient(port=free_port())
    with pytest.raises(RedisUnavailable, match="cannot connect to redis") as refused:
        await client.execute("PING")
    assert isinstance(refused.value.__cause__, ConnectionRefusedError)
    with pytest.raises(RedisUnavailable):
        await client.execute("PING")
    assert client._conn is None and client._connecting is None


async def test_close(redis_server: RedisServer) -> None:
    client = RespClient.from_url(redis_server.url)
    assert await client.execute("PING") == b"PONG"
    pending = asyncio.ensure_future(client.execute("BLPOP", "queue", 5))
    await asyncio.sleep(0.02)
    await client.close()
    with pytest.raises(RedisUnavailable, match="^closed$"):
        await pending
    with pytest.raises(RedisUnavailable, match="^closed$"):
        await client.execute("PING")
    with pytest.raises(RedisUnavailable, match="^closed$"):
        await client.pipeline([("PING",)])
    await client.close()  # again: nothing happens
    never = RespClient(port=free_port())
    await never.close()
    with pytest.raises(RedisUnavailable, match="^closed$"):
        await never.execute("PING")


async def test_reconnects_after_a_restart() -> None:
    with RedisServer() as own:
        client = RespClient.from_url(own.url)
        observer = RespClient.from_url(own.url)
        try:
            assert await client.execute("SET", "k", "v") == b"OK"
            pending = asyncio.ensure_future(client.execute("BLPOP", "queue", 5))
            await wait_until_blocked(observer)
            await asyncio.to_thread(own.stop)
            with pytest.raises(RedisUnavailable):
                await pending
            with pytest.raises(RedisUnavailable):  # down: refused
                await client.execute("PING")
            await asyncio.to_thread(own.start)
            assert await client.execute("PING") == b"PONG"
            assert await client.pipeline([("SET", "k", "w"), ("GET", "k")]) == [b"OK", b"w"]
        finally:
            await client.close()
            await observer.close()


# -- AUTH, db and a unix socket ---------------------------------------------------------


@dataclass
class SecuredRedis:
    port: int
    socket: str


ACL_ALICE = ("ACL", "SETUSER", "alice", "on", ">wonder/land", "~*", "&*", "+@all")


@pytest.fixture(scope="module")
def secured() -> Iterator[SecuredRedis]:
    """A redis-server with a password, an ACL user ``alice`` and a unix socket."""
    assert REDIS_SERVER is not None
    directory = Path(tempfile.mkdtemp(prefix="tgfast-resp-"))
    port, path = free_port(), str(directory / "redis.sock")
    process = subprocess.Popen(
        [
            REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1",
            "--unixsocket", path, "--unixsocketperm", "700",
            "--requirepass", "secret",
            "--save", "", "--appendonly", "no", "--dir", str(directory),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.socket(socket.AF_UNIX) as sock:
                    sock.settimeout(1)
                    sock.connect(path)
                    sock.sendall(_encode(("PING",)))
                    if sock.recv(100).startswith(b"-NOAUTH"):
                        # --user on the command line takes no spaces: make alice here
                        sock.sendall(_encode(("AUTH", "secret")) + _encode(ACL_ALICE))
                        replies = b""
                        while replies.count(b"\r\n") < 2:
                            replies += sock.recv(100)
                        assert replies == b"+OK\r\n+OK\r\n", replies
                        break
            except OSError:
                pass
            assert process.poll() is None and time.monotonic() < deadline, "no redis-server"
            time.sleep(0.01)
        yield SecuredRedis(port, path)
    finally:
        process.kill()
        process.wait()
        shutil.rmtree(directory, ignore_errors=True)


async def test_unix_socket_password_and_db(secured: SecuredRedis) -> None:
    in_db3 = RespClient(path=secured.socket, password="secret", db=3)
    in_db0 = RespClient.from_url(f"unix://:secret@{secured.socket}")
    again = RespClient.from_url(f"unix://:secret@{secured.socket}?db=3")
    try:
        assert await in_db3.execute("SET", "k", "three") == b"OK"
        assert await in_db0.execute("GET", "k") is None
        assert await again.execute("GET", "k") == b"three"
        assert b" db=3 " in await again.execute("CLIENT", "INFO")
    finally:
        for client in (in_db3, in_db0, again):
            await client.close()


async def test_acl_user_over_tcp(secured: SecuredRedis) -> None:
    client = RespClient.from_url(f"redis://alice:wonder%2Fland@127.0.0.1:{secured.port}/2")
    try:
        assert await client.execute("ACL", "WHOAMI") == b"alice"
        assert b" db=2 " in await client.execute("CLIENT", "INFO")
    finally:
        await client.close()


async def test_a_failed_auth_leaves_no_connection(secured: SecuredRedis) -> None:
    wrong = RespClient(port=secured.port, password="wrong")
    without = RespClient(port=secured.port)
    try:
        for _ in range(2):  # the second attempt authenticates again, then fails again
            with pytest.raises(RedisUnavailable, match="^AUTH failed: WRONGPASS"):
                await wrong.execute("PING")
            assert wrong._conn is None
        with pytest.raises(RedisUnavailable, match="^NOAUTH"):
            await without.execute("PING")
    finally:
        await wrong.close()
        await without.close()


async def test_a_bad_db_fails_the_connect(secured: SecuredRedis) -> None:
    client = RespClient(port=secured.port, username="alice", password="wonder/land", db=99)
    try:
        with pytest.raises(RedisUnavailable, match="^SELECT 99 failed: ERR"):
            await client.execute("PING")
        assert client._conn is None
    finally:
        await client.close()


# -- configuration ----------------------------------------------------------------------


def where(client: RespClient) -> tuple[Any, ...]:
    return (client._host, client._port, client._path, client._db, client._username,
            client._password, client._ssl is not None, client._timeout)  # fmt: skip


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("redis://localhost", ("localhost", 6379, None, 0, None, None, False, 2.0)),
        ("redis://10.0.0.1:6380/", ("10.0.0.1", 6380, None, 0, None, None, False, 2.0)),
        ("redis://h:1/15", ("h", 1, None, 15, None, None, False, 2.0)),
        ("redis://h?db=4", ("h", 6379, None, 4, None, None, False, 2.0)),
        ("redis://h/4?db=4", ("h", 6379, None, 4, None, None, False, 2.0)),
        ("redis://h/?db=0", ("h", 6379, None, 0, None, None, False, 2.0)),
        ("redis://:pw@h/1", ("h", 6379, None, 1, None, "pw", False, 2.0)),
        ("redis://u:p%40ss@h", ("h", 6379, None, 0, "u", "p@ss", False, 2.0)),
        ("redis://[::1]:7000/2", ("::1", 7000, None, 2, None, None, False, 2.0)),
        ("rediss://cache.example:6380/1", ("cache.example", 6380, None, 1, None, None, True, 2.0)),
        ("unix:///run/redis.sock", ("127.0.0.1", 6379, "/run/redis.sock", 0, None, None, False, 2.0)),
        ("unix:///run/r.sock?db=5", ("127.0.0.1", 6379, "/run/r.sock", 5, None, None, False, 2.0)),
        ("unix://:pw@/run/r.sock", ("127.0.0.1", 6379, "/run/r.sock", 0, None, "pw", False, 2.0)),
    ],
)  # fmt: skip
def test_from_url(url: str, expected: tuple[Any, ...]) -> None:
    assert where(RespClient.from_url(url)) == expected


def test_from_url_timeout_and_tls_context() -> None:
    client = RespClient.from_url("rediss://h", timeout=0.5)
    assert client._timeout == 0.5
    assert client._ssl is not None and client._ssl.verify_mode == ssl.CERT_REQUIRED
    assert client._ssl.check_hostname


def test_connect_timeout_defaults_to_the_reply_timeout() -> None:
    assert RespClient.from_url("redis://h", timeout=0.5)._connect_timeout == 0.5
    client = RespClient.from_url("redis://h", timeout=0.5, connect_timeout=0.1)
    assert (client._timeout, client._connect_timeout) == (0.5, 0.1)
    redis_py = Redis.from_url("redis://h", socket_connect_timeout=0.3, socket_timeout=0.7)
    like = RespClient.like(redis_py)
    assert (like._timeout, like._connect_timeout) == (0.7, 0.3)
    with pytest.raises(ValueError, match="connect_timeout must be positive"):
        RespClient(connect_timeout=0)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://h", "scheme 'http'"),
        ("h:6379", "scheme 'h'"),
        ("", "scheme ''"),
        ("redis://", "no host"),
        ("redis://h:port", "bad redis URL: Port could not be cast"),
        ("redis://h:99999", "bad redis URL: Port out of range"),
        ("redis://h/x", "db must be a number, got 'x'"),
        ("redis://h/1/2", "db must be a number, got '1/2'"),
        ("redis://h/-1", "db must be a number"),
        ("redis://h?db=", "db must be a number, got ''"),
        ("redis://h/1?db=2", "db '1' in the path, '2' in the query"),
        ("redis://h?ssl_cert_reqs=none", "unsupported option.*ssl_cert_reqs.*like"),
        ("unix://", "needs a socket path"),
        ("unix://host/run/r.sock", "takes no host"),
        ("unix:///r.sock?db=x", "db must be a number"),
    ],
)
def test_from_url_refuses(url: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        RespClient.from_url(url)


@pytest.mark.parametrize(
    ("url", "expected", "verify", "check_hostname"),
    [
        ("redis://u:p@h:1234/3", ("h", 1234, None, 3, "u", "p", False, 2.0), None, None),
        ("redis://:p@h?socket_timeout=0.5", ("h", 6379, None, 0, None, "p", False, 0.5), None, None),
        ("rediss://h:6380/2", ("h", 6380, None, 2, None, None, True, 2.0), ssl.CERT_REQUIRED, True),
        ("rediss://h?ssl_cert_reqs=none", ("h", 6379, None, 0, None, None, True, 2.0), ssl.CERT_NONE, False),
        ("rediss://h?ssl_check_hostname=false", ("h", 6379, None, 0, None, None, True, 2.0), ssl.CERT_REQUIRED, False),
        ("unix:///tmp/r.sock?db=4", ("127.0.0.1", 6379, "/tmp/r.sock", 4, None, None, False, 2.0), None, None),
    ],
)  # fmt: skip
async def test_like(
    url: str, expected: tuple[Any, ...], verify: ssl.VerifyMode | None, check_hostname: bool | None
) -> None:
    redis_py = Redis.from_url(url)
    try:
        client = RespClient.like(redis_py)
        assert where(client) == expected
        if verify is not None:
            assert client._ssl is not None
            assert (client._ssl.verify_mode, client._ssl.check_hostname) == (verify, check_hostname)
        assert RespClient.like(redis_py, timeout=0.25)._timeout == 0.25
    finally:
        await redis_py.aclose()


async def test_like_reads_keyword_clients() -> None:
    redis_py = Redis(host="h", port=7, db=1, password="p", socket_timeout=0.75, ssl=True,
                     ssl_cert_reqs="optional", ssl_check_hostname=False)  # fmt: skip
    try:
        client = RespClient.like(redis_py)
        assert where(client) == ("h", 7, None, 1, None, "p", True, 0.75)
        assert client._ssl is not None and client._ssl.verify_mode == ssl.CERT_OPTIONAL
    finally:
        await redis_py.aclose()


async def test_like_refuses_what_it_cannot_copy() -> None:
    # a Sentinel master_for() client is read (tests/test_redis_sentinel.py); a replica not
    replica = Sentinel([("127.0.0.1", 26379)]).slave_for("mymaster")
    cluster = RedisCluster(host="127.0.0.1", port=7000)
    sync = redis.Redis()
    try:
        for other in (cluster, sync, object()):
            with pytest.raises(TypeError, match="from_url"):
                RespClient.like(other)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="not a replica"):
            RespClient.like(replica)
    finally:
        await replica.aclose()
        await cluster.aclose()
        sync.close()


async def test_like_talks_to_the_same_server_and_db(redis_server: RedisServer) -> None:
    redis_server.flushall()
    redis_py = Redis.from_url(redis_server.url.replace("/0", "/7"))
    client = RespClient.like(redis_py)
    try:
        await redis_py.set("shared", "from redis-py")
        assert await client.execute("GET", "shared") == b"from redis-py"
    finally:
        await client.close()
        await redis_py.aclose()


# -- uvloop -----------------------------------------------------------------------------


def run_on_uvloop(main: Callable[[], Awaitable[None]]) -> None:
    async def wrapped() -> None:
        assert type(asyncio.get_running_loop()).__module__.startswith("uvloop")
        await main()

    uvloop.run(wrapped())


def test_on_uvloop(redis_server: RedisServer) -> None:
    async def main() -> None:
        client = RespClient.from_url(redis_server.url, timeout=0.2)
        try:
            assert await client.execute("SET", "u", "v") == b"OK"
            gets = await asyncio.gather(*(client.execute("ECHO", i) for i in range(50)))
            assert gets == [str(i).encode() for i in range(50)]
            assert plain(await client.pipeline([("GET", "u"), ("HGET", "u", "f")])) == [
                b"v",
                ("error", "WRONGTYPE Operation against a key holding the wrong kind of value"),
            ]
            with pytest.raises(RedisUnavailable, match="no reply from redis within 0.2 s"):
                await client.execute("BLPOP", "nothing", 1)
            assert await client.execute("GET", "u") == b"v"
        finally:
            await client.close()

    run_on_uvloop(main)
