"""tgfast's own HTTP/1.1 intake (``tgfast._speedups._intake`` and its twin): the twins
answer every exchange with the same bytes, however the bytes arrive; pipelined
requests are answered in order, over TLS too; overload is refused with 503 and what was
taken is handled."""

from __future__ import annotations

import asyncio
import gzip
import ssl
import subprocess
import time
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import aiohttp
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from implementations import NO_EXTENSIONS
from server_support import make_bot, message, served

from tgfast import Bot, Dispatcher
from tgfast._speedups import SPEEDUPS, load
from tgfast._speedups import _intake_py as pure_intake
from tgfast.methods import SendMessage
from tgfast.server import (
    SECRET_HEADER,
    Claim,
    MemorySeenUpdates,
    Signals,
    WebhookServer,
    serve_webhook,
)
from tgfast.server.intake import retry_after_spread
from tgfast.server.processing import DEFAULT_MAX_LAG
from tgfast.testing import FakeTelegram
from tgfast.types import Message

SECRET = "twin-secret"
INTAKES: dict[str, ModuleType] = {"py": pure_intake}
if SPEEDUPS:
    INTAKES["c"] = load("_intake")


@pytest.fixture(params=list(INTAKES))
def intake(request: pytest.FixtureRequest) -> ModuleType:
    return INTAKES[request.param]


def test_the_switch_picks_the_intake() -> None:
    name = load("_intake").__name__
    assert name == ("tgfast._speedups._intake" if SPEEDUPS else "tgfast._speedups._intake_py")
    assert SPEEDUPS or NO_EXTENSIONS or "c" not in INTAKES


# -- the protocol alone, on a transport that records what it is given ---------------------


class Recorder:
    """A transport: what the protocol wrote, and whether it closed."""

    def __init__(self) -> None:
        self.written = bytearray()
        self.closed = False
        self.reading = True

    def write(self, data: bytes) -> None:
        assert not self.closed, "written after close"
        self.written += data

    def close(self) -> None:
        self.closed = True

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return ("127.0.0.1", 40000) if name == "peername" else default

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def get_write_buffer_size(self) -> int:
        return 0


def request(body: bytes, *, secret: str = SECRET, extra: str = "", path: str = "/webhook",
            method: str = "POST", version: str = "1.1") -> bytes:  # fmt: skip
    head = (f"{method} {path} HTTP/{version}\r\nHost: bot\r\n{SECRET_HEADER}: {secret}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n{extra}\r\n")  # fmt: skip
    return head.encode() + body


def chunked(body: bytes, size: int = 7) -> bytes:
    head = (f"POST /webhook HTTP/1.1\r\nHost: bot\r\n{SECRET_HEADER}: {SECRET}\r\n"
            "Transfer-Encoding: chunked\r\n\r\n").encode()  # fmt: skip
    parts = [b"%x\r\n%s\r\n" % (len(body[i : i + size]), body[i : i + size])
             for i in range(0, len(body), size)]  # fmt: skip
    return head + b"".join(parts) + b"0\r\n\r\n"


UPDATE = orjson.dumps(message(1, 5, "hello"))
EXCHANGES: dict[str, tuple[bytes, list[int]]] = {
    "update": (request(UPDATE), [200]),
    "pipelined": (request(UPDATE) + request(orjson.dumps(message(2, 5, "two"))), [200, 200]),
    "redelivery while handled": (request(UPDATE) + request(UPDATE), [200, 503]),
    "wrong secret": (request(UPDATE, secret="nope"), [403]),
    "wrong method": (request(b"", method="GET"), [405]),
    "health": (request(b"", method="GET", path="/healthz"), [200]),
    "unknown path": (request(b"", method="GET", path="/nothing"), [404]),
    "chunked": (chunked(UPDATE), [200]),
    "too large": (request(b"{" + b" " * 5000 + b"}"), [413]),
    "too large chunked": (chunked(b"{" + b" " * 5000 + b"}", 1000), [413]),
    "not json": (request(b"{nope"), [400]),
    "not an update": (request(b'{"update_id": "x"}'), [400]),
    "gzip": (
        request(
            gzip.compress(orjson.dumps(message(3, 5, "z"))), extra="Content-Encoding: gzip\r\n"
        ),
        [200],
    ),  # fmt: skip
    "gzip bomb": (
        request(gzip.compress(b"{" + b" " * 100_000 + b"}"), extra="Content-Encoding: gzip\r\n"),
        [413],
    ),  # fmt: skip
    "not gzip": (request(UPDATE, extra="Content-Encoding: gzip\r\n"), [400]),
    "length and chunked": (request(b"{}", extra="Transfer-Encoding: chunked\r\n"), [400]),
    "bad length": (request(b"{}").replace(b"Length: 2", b"Length: 2x"), [400]),
    "huge length": (
        request(b"{}").replace(b"Length: 2", b"Length: 18446744073709551615"),
        [413],
    ),  # fmt: skip
    "http/1.0": (request(orjson.dumps(message(4, 5, "old")), version="1.0"), [200]),
    "query": (request(orjson.dumps(message(6, 5, "q")), path="/webhook?x=1"), [200]),
    "expect": (
        request(orjson.dumps(message(7, 5, "e")), extra="Expect: 100-continue\r\n"),
        [100, 200],
    ),  # fmt: skip
    "expect refused": (request(UPDATE, secret="no", extra="Expect: 100-continue\r\n"), [403]),
}


def statuses(answer: bytes) -> list[int]:
    return [int(line[9:12]) for line in answer.split(b"\r\n") if line.startswith(b"HTTP/1.")]


async def exchange(
    intake: ModuleType, bot: Any, chunks: list[bytes], max_body_size: int = 4096
) -> tuple[bytes, bool]:
    """Feed ``chunks`` to one connection of ``intake``; (what it wrote, whether it closed)."""
    dp = Dispatcher()
    server = WebhookServer(dp, bot, secret_token=SECRET, max_body_size=max_body_size, http="tgfast")
    state = server._intake_state(intake)
    protocol = intake.WebhookProtocol(state)
    transport = Recorder()
    protocol.connection_made(transport)
    for chunk in chunks:
        if transport.closed:
            break
        protocol.data_received(chunk)
    closed = transport.closed  # by the protocol, before the client goes
    protocol.connection_lost(None)
    await server.abort()
    return bytes(transport.written), closed


@pytest.mark.parametrize("name", list(EXCHANGES))
async def test_each_exchange_is_answered_as_expected(
    intake: ModuleType, bot: Any, name: str
) -> None:
    data, expected = EXCHANGES[name]
    answer, closed = await exchange(intake, bot, [data])
    assert statuses(answer) == expected, answer
    if name == "huge length":  # refused at once; the body it announced is not waited for
        assert b"Connection: close" in answer
    closing = ("too large", "length and chunked", "bad length", "not gzip", "http/1.0",
               "expect refused")  # fmt: skip
    if name in closing:
        assert closed and b"Connection: close" in answer
    elif name == "health":
        assert not closed and answer.endswith(b"Content-Length: 2\r\n\r\nok")
    elif expected == [200]:
        assert not closed and answer.endswith(b"Content-Length: 0\r\n\r\n")


async def test_a_head_over_64_kib_is_refused_but_not_a_large_body(
    intake: ModuleType, bot: Any
) -> None:
    huge = request(UPDATE, extra="X-Filler: " + "x" * 100_000 + "\r\n")
    answer, closed = await exchange(
        intake, bot, [huge[i : i + 4096] for i in range(0, len(huge), 4096)]
    )
    assert statuses(answer) == [400] and closed
    text = "y" * 200_000  # one read holding a head and a long body: not a long head
    big = request(orjson.dumps(message(8, 5, text)))
    answer, closed = await exchange(intake, bot, [big], max_body_size=1024 * 1024)
    assert statuses(answer) == [200] and not closed


class TestTwins:
    __test__ = len(INTAKES) == 2  # the compiled build's run; a pure build has no pair

    async def test_the_twins_write_the_same_bytes(self, bot: Any) -> None:
        for name, (data, _) in EXCHANGES.items():
            answers = {impl: await exchange(INTAKES[impl], bot, [data]) for impl in INTAKES}
            assert answers["c"] == answers["py"], name


@given(
    name=st.sampled_from(sorted(EXCHANGES)),
    cuts=st.lists(st.integers(min_value=1, max_value=20_000), max_size=8),
)
def test_however_the_bytes_arrive_the_answer_is_the_same(name: str, cuts: list[int]) -> None:
    data, _ = EXCHANGES[name]
    points = sorted({c % len(data) for c in cuts} - {0})
    pieces = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]

    async def both() -> None:
        bot = Bot("1:abc", server="http://127.0.0.1:9", rate_limiter=None)  # never called
        for impl in INTAKES.values():
            whole = await exchange(impl, bot, [data])
            assert await exchange(impl, bot, pieces) == whole, (name, points)

    asyncio.run(both())


# -- real sockets ----------------------------------------------------------------------------


async def test_pipelined_requests_in_reply_mode_are_answered_in_order(
    bot: Any, fake: FakeTelegram
) -> None:
    dp = Dispatcher()

    @dp.message()
    async def reply(message: Message) -> SendMessage:
        await asyncio.sleep(0.02 if message.text == "first" else 0)
        return SendMessage(chat_id=message.chat.id, text=f"re: {message.text}")

    async with served(dp, bot, secret_token=SECRET, reply_mode=True, http="tgfast") as server:
        assert server.url is not None
        host, port = server.url.split("//")[1].split("/")[0].split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        texts = ["first", "second", "third"]
        writer.write(b"".join(request(orjson.dumps(message(i + 1, i + 1, t)))
                              for i, t in enumerate(texts)))  # fmt: skip
        answers = []
        for _ in texts:
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
            answers.append(orjson.loads(await reader.readexactly(length)))
        writer.close()
    assert [a["text"] for a in answers] == [f"re: {t}" for t in texts]
    assert {a["method"] for a in answers} == {"sendMessage"}


class SlowSeen(MemorySeenUpdates):
    """A store that answers after a pause, as a shared one (Redis) does."""

    async def claim(self, bot_id: int, update_id: int) -> Claim:
        await asyncio.sleep(0.01 if update_id % 2 else 0)
        return self.claim_now(bot_id, update_id)


async def test_a_store_that_must_be_awaited_keeps_pipelined_answers_in_order(
    bot: Any, fake: FakeTelegram
) -> None:
    dp = Dispatcher()
    handled: list[str] = []

    @dp.message()
    async def take(message: Message) -> None:
        handled.append(message.text or "")

    async with served(dp, bot, secret_token=SECRET, seen=SlowSeen(), http="tgfast") as server:
        assert server.url is not None
        host, port = server.url.split("//")[1].split("/")[0].split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        sent = [message(n, 1, f"u{n}") for n in (1, 2, 3, 2, 1)]  # two redeliveries
        writer.write(b"".join(request(orjson.dumps(update)) for update in sent))
        writer.write(request(b"", method="GET", path="/healthz"))
        answers = []
        for _ in range(len(sent) + 1):
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
            answers.append((int(head[9:12]), await reader.readexactly(length)))
        writer.close()
        await server.drain()
    assert [status for status, _ in answers[:3]] == [200, 200, 200]
    assert answers[5] == (200, b"ok")  # the last one asked, answered last
    assert sorted(handled) == ["u1", "u2", "u3"]  # each once, redeliveries acknowledged or 503
    assert {status for status, _ in answers[3:5]} <= {200, 503}


async def test_overload_is_refused_with_503_and_what_was_taken_is_handled(
    bot: Any, http: aiohttp.ClientSession
) -> None:
    dp = Dispatcher()
    release = asyncio.Event()
    handled: list[str] = []

    @dp.message()
    async def slow(message: Message) -> None:
        await release.wait()
        handled.append(message.text or "")

    async with served(dp, bot, secret_token=SECRET, max_in_flight=5, http="tgfast") as server:
        url = server.url or ""
        headers = {SECRET_HEADER: SECRET}

        async def post(n: int) -> tuple[int, str | None]:
            data = orjson.dumps(message(n, n, f"u{n}"))
            async with http.post(url, data=data, headers=headers) as resp:
                return resp.status, resp.headers.get("Retry-After")

        answers = await asyncio.gather(*(post(n) for n in range(1, 21)))
        assert sorted(status for status, _ in answers) == [200] * 5 + [503] * 15
        # retry_after=1: the refusals name 1 and 2 s in turn, so they do not come back
        # in one wave
        waits = Counter(after for status, after in answers if status == 503)
        assert waits == {"1": 8, "2": 7}
        release.set()
        await server.processor.join()
        taken = sorted(f"u{n}" for n, (status, _) in enumerate(answers, 1) if status == 200)
        assert sorted(handled) == taken  # each acknowledged update handled, once
        assert server.metrics.rejected["overloaded"] == 15
        refused = [n for n, (status, _) in enumerate(answers, 1) if status == 503]
        refusals = 15
        for _ in range(50):  # delivered again until taken, as Telegram does
            again = await asyncio.gather(*(post(n) for n in refused))
            refused = [n for n, (status, _) in zip(refused, again, strict=True) if status != 200]
            assert all(status == 503 for status, _ in again if status != 200)
            refusals += len(refused)
            if not refused:
                break
            await asyncio.sleep(0.01)
        assert not refused
        await server.drain()
    assert sorted(handled) == sorted(f"u{n}" for n in range(1, 21))  # every one, once
    assert server.metrics.rejected["overloaded"] == refusals


def heads(written: bytes) -> list[tuple[int, dict[bytes, bytes]]]:
    """The answers in ``written`` (bodiless or with ``Content-Length``): status, headers."""
    out = []
    while written:
        head, _, rest = written.partition(b"\r\n\r\n")
        status_line, *lines = head.split(b"\r\n")
        fields = dict(line.split(b": ", 1) for line in lines)
        out.append((int(status_line[9:12]), fields))
        written = rest[int(fields.get(b"Content-Length", b"0")) :]
    return out


def test_retry_after_spreads_from_the_least_wait_to_twice_it() -> None:
    assert retry_after_spread(1) == (1, 2)
    for least in range(1, 100):
        waits = retry_after_spread(least)
        assert waits[0] == least and waits[-1] == 2 * least and 2 <= len(waits) <= 4
        assert list(waits) == sorted(set(waits))  # distinct, increasing
    assert retry_after_spread(0) == (0,)  # "at once" stays at once


async def test_a_connection_refused_at_the_bound_is_kept_and_parked_until_there_is_room(
    intake: ModuleType, bot: Any
) -> None:
    """At the in-flight bound a request is answered 503 from a prebuilt answer, whose
    Retry-After names 1 and 2 s in turn, on a connection kept open but no longer read
    (parked) until the processor has room; then the refused updates, sent again on it,
    are taken and each is handled once. Closing (drain) resumes a parked connection,
    whose next request is refused at once without parking it again."""
    dp = Dispatcher()
    gates: dict[str, asyncio.Event] = {}
    handled: list[str] = []

    @dp.message()
    async def slow(message: Message) -> None:
        text = message.text or ""
        if text in gates:
            await gates[text].wait()
        handled.append(text)

    server = WebhookServer(dp, bot, secret_token=SECRET, max_in_flight=1, http="tgfast")
    state = server._intake_state(intake)

    def connect() -> tuple[Any, Recorder]:
        protocol, transport = intake.WebhookProtocol(state), Recorder()
        protocol.connection_made(transport)
        return protocol, transport

    def update(n: int) -> bytes:
        return request(orjson.dumps(message(n, n, f"u{n}")))

    async def settle() -> None:
        for _ in range(20):  # a few turns of the loop: the waker resumes what it may
            await asyncio.sleep(0)

    (one, one_t), (two, two_t) = connect(), connect()
    gates["u1"] = asyncio.Event()
    one.data_received(update(1))  # taken: holds the one slot
    two.data_received(update(2))  # refused, parked
    assert not two_t.reading and one_t.reading
    two.data_received(update(3))  # was on its way already: refused, still parked
    one.data_received(update(4))  # refused, parked too
    assert not one_t.reading and list(state.parked) == [two, one]
    answers = heads(bytes(one_t.written)) + heads(bytes(two_t.written))
    assert [status for status, _ in answers] == [200, 503, 503, 503]
    assert [fields[b"Retry-After"] for _, fields in answers[1:]] == [b"1", b"1", b"2"]
    assert not one_t.closed and not two_t.closed
    assert b"Connection: close" not in one_t.written + two_t.written
    assert server.metrics.rejected["overloaded"] == 3
    await settle()
    assert not one_t.reading and not two_t.reading  # still full: nothing resumed
    gates["u1"].set()
    await server.processor.join()
    await settle()
    assert one_t.reading and two_t.reading and not state.parked
    del one_t.written[:], two_t.written[:]
    for protocol, n in ((two, 2), (two, 3), (one, 4)):  # delivered again, one at a time
        protocol.data_received(update(n))
        await server.processor.join()
    assert [s for s, _ in heads(bytes(one_t.written) + bytes(two_t.written))] == [200] * 3
    assert sorted(handled) == ["u1", "u2", "u3", "u4"]  # each once

    gates["u5"] = asyncio.Event()
    one.data_received(update(5))  # holds the slot
    two.data_received(update(6))  # refused, parked
    assert not two_t.reading
    server.processor.close()  # draining: the parked connection is read again
    await settle()
    assert two_t.reading and not state.parked
    del two_t.written[:]
    two.data_received(update(7))  # refused while draining: answered, not parked
    assert [s for s, _ in heads(bytes(two_t.written))] == [503] and two_t.reading
    gates["u5"].set()
    await server.drain()
    assert sorted(handled) == ["u1", "u2", "u3", "u4", "u5"]
    for protocol in (one, two):
        protocol.connection_lost(None)
    state.close()


async def test_a_parked_connection_that_goes_away_is_forgotten(
    intake: ModuleType, bot: Any
) -> None:
    dp = Dispatcher()
    release = asyncio.Event()

    @dp.message()
    async def slow(message: Message) -> None:
        await release.wait()

    server = WebhookServer(dp, bot, secret_token=SECRET, max_in_flight=1, http="tgfast")
    state = server._intake_state(intake)
    protocol, transport = intake.WebhookProtocol(state), Recorder()
    protocol.connection_made(transport)
    protocol.data_received(request(orjson.dumps(message(1, 1, "a"))))
    protocol.data_received(request(orjson.dumps(message(2, 2, "b"))))
    assert list(state.parked) == [protocol] and state.waker is not None
    protocol.connection_lost(None)
    assert not state.parked
    release.set()
    await server.drain()
    for _ in range(5):
        await asyncio.sleep(0)
    assert state.waker is None  # nothing left to wake: the waker is done


async def test_a_loop_running_late_refuses_new_updates_until_it_is_on_time(
    intake: ModuleType, bot: Any
) -> None:
    """Two ticks in a row late by over ``max_lag`` make the processor ``lagging``: a new
    update is then refused from its head (503, counted "lagging") on a connection kept
    and parked, not read again until a tick on time clears it; then it is taken. One late
    tick alone refuses nothing."""
    dp = Dispatcher()
    handled: list[str] = []

    @dp.message()
    async def take(message: Message) -> None:
        handled.append(message.text or "")

    server = WebhookServer(dp, bot, secret_token=SECRET, http="tgfast")
    processor = server.processor
    assert processor.max_lag == DEFAULT_MAX_LAG
    state = server._intake_state(intake)
    await processor.start()

    async def stall() -> None:  # the loop blocked past max_lag, then a turn for the tick
        time.sleep(0.15)  # noqa: ASYNC251 - the stall is the point
        await asyncio.sleep(0.005)

    await stall()
    assert not processor.lagging  # one late tick: a pause, not an overload
    await stall()
    assert processor.lagging and processor.room == 0
    protocol, transport = intake.WebhookProtocol(state), Recorder()
    protocol.connection_made(transport)
    protocol.data_received(request(orjson.dumps(message(1, 1, "late"))))
    [(status, fields)] = heads(bytes(transport.written))
    assert status == 503 and fields[b"Retry-After"] == b"1" and not transport.closed
    assert server.metrics.rejected["lagging"] == 1 and not transport.reading
    for _ in range(50):  # the next ticks are on time: lagging clears, the connection is read
        await asyncio.sleep(0.01)
        if transport.reading:
            break
    assert not processor.lagging and transport.reading and processor.room > 0
    del transport.written[:]
    protocol.data_received(request(orjson.dumps(message(1, 1, "late"))))
    await processor.join()
    assert [s for s, _ in heads(bytes(transport.written))] == [200] and handled == ["late"]
    await server.drain()
    assert processor._lag_timer is None  # closing stops the watch
    protocol.connection_lost(None)
    state.close()


async def test_aiohttp_refusals_spread_their_retry_after_too(
    bot: Any, http: aiohttp.ClientSession
) -> None:
    dp = Dispatcher()
    release = asyncio.Event()

    @dp.message()
    async def slow(message: Message) -> None:
        await release.wait()

    options = {"secret_token": SECRET, "max_in_flight": 1, "http": "aiohttp", "retry_after": 2}
    async with served(dp, bot, **options) as server:
        url, headers = server.url or "", {SECRET_HEADER: SECRET}
        waits = []
        for n in range(1, 7):
            async with http.post(url, data=orjson.dumps(message(n, n, "x")), headers=headers) as r:
                waits.append((r.status, r.headers.get("Retry-After")))
        assert waits == [(200, None), *[(503, w) for w in ("2", "3", "4", "2", "3")]]
        release.set()
        await server.drain()


async def test_the_bound_in_force_is_the_one_refused_at(
    intake: ModuleType, bot: Any, http: aiohttp.ClientSession
) -> None:
    """Below ``max_in_flight``, the bound the saturation watch holds (``in_flight_limit``)
    is where both intakes and the aiohttp one refuse: 503, counted "overloaded"."""
    dp = Dispatcher()
    release = asyncio.Event()

    @dp.message()
    async def slow(message: Message) -> None:
        await release.wait()

    server = WebhookServer(dp, bot, secret_token=SECRET, http="tgfast")
    server.processor.in_flight_limit = 1  # as the watch holds it on a saturated loop
    state = server._intake_state(intake)
    protocol, transport = intake.WebhookProtocol(state), Recorder()
    protocol.connection_made(transport)
    protocol.data_received(request(orjson.dumps(message(1, 1, "a"))))
    protocol.data_received(request(orjson.dumps(message(2, 2, "b"))))
    assert [status for status, _ in heads(bytes(transport.written))] == [200, 503]
    assert server.metrics.rejected["overloaded"] == 1 and server.processor.in_flight == 1
    assert not transport.reading  # refused from its head: parked until there is room
    release.set()
    await server.drain()
    protocol.connection_lost(None)
    state.close()

    release.clear()
    async with served(dp, bot, secret_token=SECRET, http="aiohttp") as served_by_aiohttp:
        served_by_aiohttp.processor.in_flight_limit = 1
        url, headers = served_by_aiohttp.url or "", {SECRET_HEADER: SECRET}
        statuses = []
        for n in (3, 4):
            async with http.post(url, data=orjson.dumps(message(n, n, "x")), headers=headers) as r:
                statuses.append(r.status)
        assert statuses == [200, 503]
        assert served_by_aiohttp.metrics.rejected["overloaded"] == 1
        release.set()
        await served_by_aiohttp.drain()


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key (made by openssl)."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.mark.parametrize("layer", ["tgfast", "aiohttp"])
async def test_it_terminates_tls_itself(
    fake: FakeTelegram, certificate: tuple[Path, Path], layer: str
) -> None:
    cert, key = certificate
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(cert, key)
    client_tls = ssl.create_default_context(cafile=str(cert))
    dp = Dispatcher()
    handled: list[str] = []

    @dp.message()
    async def take(message: Message) -> None:
        handled.append(message.text or "")

    async with make_bot(fake) as bot:
        server = WebhookServer(dp, bot, secret_token=SECRET, http=layer)  # type: ignore[arg-type]
        url = await server.start("127.0.0.1", 0, ssl=server_tls)
        try:
            assert url.startswith("https://127.0.0.1:")
            async with aiohttp.ClientSession() as http:
                data = orjson.dumps(message(1, 1, "secure"))
                async with http.post(url, data=data, headers={SECRET_HEADER: SECRET},
                                     ssl=client_tls) as resp:  # fmt: skip
                    assert resp.status == 200
            await server.drain()
        finally:
            await server.stop()
    assert handled == ["secure"]


async def test_stop_closes_open_connections(bot: Any) -> None:
    server = WebhookServer(Dispatcher(), bot, http="tgfast")
    url = await server.start("127.0.0.1", 0)
    host, port = url.split("//")[1].split("/")[0].split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: bot\r\n\r\n")
    assert (await reader.readuntil(b"ok")).startswith(b"HTTP/1.1 200")
    await asyncio.wait_for(server.stop(), 10)
    assert await asyncio.wait_for(reader.read(), 5) == b""  # closed by the server
    writer.close()


async def test_serve_webhook_terminates_tls_too(
    fake: FakeTelegram, certificate: tuple[Path, Path]
) -> None:
    cert, key = certificate
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(cert, key)
    client_tls = ssl.create_default_context(cafile=str(cert))
    dp = Dispatcher()
    handled: list[str] = []

    @dp.message()
    async def take(message: Message) -> None:
        handled.append(message.text or "")

    signals = Signals()
    ready: asyncio.Future[WebhookServer] = asyncio.get_running_loop().create_future()
    async with make_bot(fake) as bot:
        serving = asyncio.ensure_future(serve_webhook(
            dp, bot, port=0, secret_token=SECRET, signals=signals, ssl=server_tls,
            on_ready=ready.set_result, close_bot=False,
        ))  # fmt: skip
        url = (await ready).url or ""
        assert url.startswith("https://")
        async with aiohttp.ClientSession() as http:
            data = orjson.dumps(message(1, 1, "tls"))
            async with http.post(url, data=data, headers={SECRET_HEADER: SECRET},
                                 ssl=client_tls) as resp:  # fmt: skip
                assert resp.status == 200
        signals.request_stop()
        assert await asyncio.wait_for(serving, 10) == 0
    assert handled == ["tls"]
