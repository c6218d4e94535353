"""Redis Sentinel in tgfast's own RESP client, against real servers and sentinels:
the master found through the sentinels and checked with ``ROLE``, a failover followed,
a demoted server's ``READONLY`` ending the connection; the ``redis+sentinel://`` URL;
``RespClient.like()`` of redis-py's Sentinel client. The webhook fleet across a
failover is ``tests/test_redis_sentinel_failover.py``.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Iterator

import pytest
import redis
from redis.asyncio.sentinel import Sentinel
from redis_sentinel import SentinelFleet
from redis_server import RedisServer

from tgfast.fsm.storage.base import StorageKey
from tgfast.redis import (
    RedisConnectionLost,
    RedisStorage,
    RedisUnavailable,
    RespClient,
    Sentinels,
    check_redis_url,
    parse_sentinel_url,
    redacted_url,
)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="redis-server")


# -- the URL ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "parts"),
    [
        ("redis+sentinel://h1:26380,h2,[::1]:26381/mymaster/3",
         {"addresses": [("h1", 26380), ("h2", 26379), ("::1", 26381)], "service_name": "mymaster",
          "db": 3, "username": None, "password": None, "tls": False}),
        ("rediss+sentinel://u:p%40ss@h/svc?db=2&sentinel_password=sp&sentinel_username=su",
         {"addresses": [("h", 26379)], "service_name": "svc", "db": 2, "username": "u",
          "password": "p@ss", "sentinel_username": "su", "sentinel_password": "sp", "tls": True}),
        ("redis+sentinel://:secret@h:1/svc", {"username": None, "password": "secret", "db": 0,
                                              "master_wait": None}),
        ("redis+sentinel://h/svc?master_wait=12.5", {"master_wait": 12.5}),
    ],
)  # fmt: skip
def test_sentinel_urls(url: str, parts: dict[str, object]) -> None:
    parsed = parse_sentinel_url(url)
    assert {name: parsed[name] for name in parts} == parts
    check_redis_url(url)


@pytest.mark.parametrize(
    ("url", "error"),
    [
        ("redis+sentinel://h:26379", "no service name"),
        ("redis+sentinel://h:26379/", "no service name"),
        ("redis+sentinel://h:26379/svc/x", "db must be a number"),
        ("redis+sentinel://h:26379/svc/1/2", "expected /service_name[/db]"),
        ("redis+sentinel://h:26379/svc/1?db=2", "db '1' in the path, '2' in the query"),
        ("redis+sentinel://h:99999/svc", "sentinel port '99999'"),
        ("redis+sentinel://:pw@,h/svc", "a sentinel without a host"),
        ("redis+sentinel://h/svc?socket_timeout=1", "unsupported option(s) socket_timeout"),
        ("redis+sentinel://h/svc#frag", "no #fragment"),
        ("redis+sentinel://h/svc?master_wait=-1", "master_wait must be seconds, got '-1'"),
        ("redis+sentinel://h/svc?master_wait=inf", "master_wait must be seconds"),
        ("redis://h/0?db=1&bogus=1", ""),  # redis-py's own parser, or RespClient's
        ("mysql://h/0", ""),
    ],
)
def test_bad_sentinel_urls_say_why(url: str, error: str) -> None:
    with pytest.raises(ValueError, match="^bad redis URL: ") as info:
        check_redis_url(url)
    assert error in str(info.value)
    assert "pw" not in str(info.value)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis+sentinel://u:pw1@h1:1,h2:2/svc", "redis+sentinel://u:***@h1:1,h2:2/svc"),
        ("rediss+sentinel://:pw1@h1,h2/svc?sentinel_password=pw2&db=1",
         "rediss+sentinel://:***@h1,h2/svc?sentinel_password=***&db=1"),
        ("redis://:pw1@h:1/0?password=pw2", "redis://:***@h:1/0?password=***"),
        ("unix://:pw1@/run/redis.sock?db=2", "unix://:***@/run/redis.sock?db=2"),
        ("redis://user@h/0", "redis://user@h/0"),
    ],
)  # fmt: skip
def test_redacted_urls_show_no_password(url: str, shown: str) -> None:
    assert redacted_url(url) == shown


async def test_a_sentinel_url_makes_a_client_that_hides_its_passwords() -> None:
    client = RespClient.from_url(
        "redis+sentinel://app:pw1@127.0.0.1:1,127.0.0.1:2/svc/4?sentinel_password=pw2"
    )
    try:
        assert client.sentinels is not None
        assert client.sentinels.addresses == [("127.0.0.1", 1), ("127.0.0.1", 2)]
        assert (client.sentinels.service_name, client.sentinels.password) == ("svc", "pw2")
        assert client._master_wait == 5.0
        assert (client._db, client._username, client._password) == (4, "app", "pw1")
        text = repr(client)
        assert "svc" in text and "master not asked yet" in text
        assert "pw1" not in text and "pw2" not in text
    finally:
        await client.close()


async def test_like_reads_a_redis_py_sentinel_master() -> None:
    sentinel = Sentinel(
        [("127.0.0.1", 26400), ("127.0.0.2", 26401)],
        sentinel_kwargs={"password": "sp", "socket_timeout": 0.3},
    )
    master = sentinel.master_for("svc", db=5, password="mp", socket_timeout=0.7)
    try:
        client = RespClient.like(master)
        assert client.sentinels is not None
        assert client.sentinels.addresses == [("127.0.0.1", 26400), ("127.0.0.2", 26401)]
        assert client.sentinels.service_name == "svc"
        assert (client.sentinels.password, client.sentinels.timeout) == ("sp", 0.3)
        assert (client._db, client._password, client._timeout, client._ssl) == (5, "mp", 0.7, None)
    finally:
        await master.aclose()
        await sentinel.aclose()


# -- real servers -----------------------------------------------------------------------


class NamesThis(Sentinels):
    """Sentinels that always name one address (to check what the client verifies)."""

    def __init__(self, port: int) -> None:
        super().__init__([("127.0.0.1", 1)], "svc")
        self.port = port

    async def master(self, avoid: tuple[str, int] | None = None) -> tuple[str, int]:
        return "127.0.0.1", self.port


@pytest.fixture
def pair() -> Iterator[tuple[RedisServer, RedisServer]]:
    """A master and, once in sync, its replica."""
    with RedisServer() as master, RedisServer() as replica:
        with redis.Redis(port=replica.port) as admin:
            admin.replicaof("127.0.0.1", master.port)
            for _ in range(500):
                if admin.info("replication")["master_link_status"] == "up":
                    break
                time.sleep(0.02)
            else:
                raise AssertionError("the replica did not sync")
        yield master, replica


async def test_a_server_the_sentinels_name_must_say_it_is_the_master(
    pair: tuple[RedisServer, RedisServer],
) -> None:
    master, replica = pair
    wrong = RespClient(sentinels=NamesThis(replica.port), master_wait=0)
    right = RespClient(sentinels=NamesThis(master.port), master_wait=0)
    try:
        with pytest.raises(RedisUnavailable, match=f"127.0.0.1:{replica.port}.* is a slave"):
            await wrong.execute("SET", "k", "v")
        assert await right.execute("SET", "k", "v") == b"OK"
        assert f"master 127.0.0.1:{master.port}" in repr(right)
    finally:
        await wrong.close()
        await right.close()


async def test_a_demoted_server_ends_the_connection(pair: tuple[RedisServer, RedisServer]) -> None:
    """READONLY: the server became a replica under the client (a failover behind one
    address, as managed Redis does): the connection goes, the next command connects."""
    master, replica = pair
    client = RespClient(port=replica.port)  # a "master" that is demoted already
    try:
        first = await client.execute("CLIENT", "ID")
        with pytest.raises(RedisUnavailable, match="^READONLY"):
            await client.execute("SET", "k", "v")
        assert client._conn is None  # dropped at the READONLY reply
        assert await client.execute("CLIENT", "ID") != first  # a new connection
    finally:
        await client.close()


async def test_the_master_is_found_and_followed_across_a_failover() -> None:
    with SentinelFleet(down_after_ms=1000, failover_timeout_ms=5000) as fleet:
        storage = RedisStorage.from_url(fleet.url(db=2))
        impatient = RespClient.from_url(fleet.url(db=2), master_wait=0)
        key = StorageKey(bot_id=1, chat_id=2, user_id=3)
        try:
            assert isinstance(storage.redis, RespClient)  # a Sentinel URL: tgfast's client
            await storage.set_state(key, "Form:age")
            await storage.update_data(key, {"name": "Ann"})
            assert await impatient.execute("GET", "fsm:1:2:3:::default:state") == b"Form:age"
            assert f"master 127.0.0.1:{fleet.master.port}" in repr(storage.wire)
            # redis-py's Sentinel client, copied: the same sentinels, service and db
            sentinel = Sentinel([("127.0.0.1", port) for port in fleet.ports])
            copied = RespClient.like(sentinel.master_for("mymaster", db=2))
            try:
                assert await copied.execute("HGET", "fsm:1:2:3:::default:data", "name") == b'"Ann"'
            finally:
                await copied.close()
                await sentinel.aclose()
            fleet.sync_replica()

            fleet.kill_master()
            # no master for a while: a client that does not wait fails, in one error
            with pytest.raises(RedisUnavailable):
                await impatient.execute("GET", "fsm:1:2:3:::default:state")
            # the storage's command waits for the new master (and the one that was out
            # when the connection went is sent again), then reads what was written
            loop = asyncio.get_running_loop()
            started = loop.time()
            assert await storage.get_state(key) == "Form:age"
            assert await storage.get_data(key) == {"name": "Ann"}
            waited = loop.time() - started
            assert f"master 127.0.0.1:{fleet.replica.port}" in repr(storage.wire), fleet.log()
            fleet.wait_failover()
            await storage.set_state(key, "Form:done")  # writes go to the new master
            with fleet.admin(fleet.replica.port) as admin:
                admin.select(2)
                assert admin.get("fsm:1:2:3:::default:state") == b"Form:done"
            print(f"the first command after the kill waited {waited:.2f} s")
        finally:
            await storage.close()
            await impatient.close()


async def test_no_sentinel_answering_is_one_error_naming_each() -> None:
    client = RespClient.from_url(
        "redis+sentinel://127.0.0.1:1,127.0.0.1:2/svc", master_wait=0, timeout=0.5
    )
    try:
        with pytest.raises(RedisUnavailable, match="no sentinel gave the master of 'svc'") as info:
            await client.execute("PING")
        assert "127.0.0.1:1:" in str(info.value) and "127.0.0.1:2:" in str(info.value)
    finally:
        await client.close()


async def test_a_lost_command_is_a_connection_lost(redis_server: RedisServer) -> None:
    redis_server.flushall()
    client = RespClient.from_url(redis_server.url)
    try:
        await client.execute("PING")
        call = asyncio.ensure_future(client.execute("BLPOP", "nothing", 5))
        await asyncio.sleep(0.1)
        redis_server.kill()
        with pytest.raises(RedisConnectionLost):
            await call
    finally:
        await client.close()
        redis_server.start()


# -- the FSM storage sends a command once more when a failover took it ------------------


class OneReplyServer:
    """Each connection reads one command and gets the next of ``replies`` (None: the
    connection is closed instead, the command unanswered)."""

    def __init__(self, replies: list[bytes | None]) -> None:
        self.replies = replies
        self.commands: list[bytes] = []
        self.server: asyncio.Server | None = None

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.commands.append(await reader.read(65536))
        reply = self.replies.pop(0)
        if reply is not None:
            writer.write(reply)
            await writer.drain()
            await reader.read()  # until the client goes
        writer.close()
        await writer.wait_closed()

    async def __aenter__(self) -> int:
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()


KEY = StorageKey(bot_id=1, chat_id=2, user_id=3)


@pytest.mark.parametrize(
    "first",
    [None, b"-READONLY You can't write against a read only replica.\r\n",
     b"-MASTERDOWN Link with MASTER is down\r\n"],
    ids=["lost", "readonly", "masterdown"],
)  # fmt: skip
async def test_the_storage_sends_a_command_again_after_a_failover_took_it(
    first: bytes | None,
) -> None:
    fake = OneReplyServer([first, b"$8\r\nForm:age\r\n"])
    async with fake as port:
        storage = RedisStorage(wire := RespClient(port=port), check_layout=False)
        try:
            assert await storage.get_state(KEY) == "Form:age"
        finally:
            await wire.close()
    assert len(fake.commands) == 2 and fake.commands[0] == fake.commands[1]
    assert b"GET" in fake.commands[0]


async def test_the_storage_does_not_send_again_what_redis_refused() -> None:
    fake = OneReplyServer([b"-WRONGTYPE Operation against a key holding the wrong kind\r\n"])
    async with fake as port:
        storage = RedisStorage(wire := RespClient(port=port), check_layout=False)
        try:
            with pytest.raises(RedisUnavailable, match="get_state failed: WRONGTYPE"):
                await storage.get_state(KEY)
        finally:
            await wire.close()
    assert len(fake.commands) == 1


async def test_the_storage_sends_again_once_only() -> None:
    fake = OneReplyServer([None, None, b"+OK\r\n"])
    async with fake as port:
        storage = RedisStorage(wire := RespClient(port=port), check_layout=False)
        try:
            with pytest.raises(RedisUnavailable, match="set_state failed: connection to redis"):
                await storage.set_state(KEY, "Form:name")
        finally:
            await wire.close()
    assert len(fake.commands) == 2


async def test_a_silent_sentinel_is_passed_over(redis_server: RedisServer) -> None:
    """A sentinel that accepts and never answers costs its timeout, then the next one
    is asked (and goes first from then on)."""
    port = str(redis_server.port).encode()
    named = b"*2\r\n$9\r\n127.0.0.1\r\n$%d\r\n%b\r\n" % (len(port), port)

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()
        writer.close()

    async def answering(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await reader.read(65536):
            writer.write(named)
        writer.close()

    servers = [await asyncio.start_server(handle, "127.0.0.1", 0) for handle in (silent, answering)]
    ports = [server.sockets[0].getsockname()[1] for server in servers]
    client = RespClient.from_url(
        f"redis+sentinel://127.0.0.1:{ports[0]},127.0.0.1:{ports[1]}/svc",
        timeout=0.3, master_wait=0,
    )  # fmt: skip
    try:
        started = asyncio.get_running_loop().time()
        assert await client.execute("PING") == b"PONG"
        assert 0.25 < asyncio.get_running_loop().time() - started < 2.0
        assert client.sentinels is not None
        assert client.sentinels.addresses[0] == ("127.0.0.1", ports[1])
    finally:
        await client.close()
        for server in servers:
            server.close()
            await server.wait_closed()


async def test_a_refused_password_is_not_waited_out(redis_server: RedisServer) -> None:
    """No failover mends a wrong password: it fails at once, not after ``master_wait``."""
    client = RespClient(sentinels=NamesThis(redis_server.port), password="wrong", master_wait=5)
    try:
        started = asyncio.get_running_loop().time()
        with pytest.raises(RedisUnavailable, match="^AUTH failed"):
            await client.execute("PING")
        assert asyncio.get_running_loop().time() - started < 1.0
    finally:
        await client.close()
