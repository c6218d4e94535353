"""The mock Bot API server of the round-trip benchmark (``benchmarks/micro/mock_api.py``).

The benchmark's numbers are only worth something if this server answers every
call correctly over kept-alive connections, so it is tested for real: started
as a subprocess, spoken to over 127.0.0.1, terminated.
"""

from __future__ import annotations

import asyncio
import json
import runpy
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

# the same whichever build is installed: scripts/test.sh runs it once, not per build
pytestmark = pytest.mark.once

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "micro" / "mock_api.py"
# run_path compiles the source itself: no __pycache__ appears in benchmarks/.
MOCK = runpy.run_path(str(SCRIPT), run_name="tgfast_bench_mock_api")
TOKEN = "1234567890:AAFakeTokenOfTheRoundTripBenchmark_0"
NOT_FOUND = {"ok": False, "error_code": 404, "description": "Not Found"}


class Server:
    def __init__(self, proc: asyncio.subprocess.Process, port: int) -> None:
        self.proc = proc
        self.port = port
        self.url = f"http://127.0.0.1:{port}"

    async def stop(self) -> tuple[int, str, str]:
        """Terminate it; (exit status, stdout after the port line, stderr)."""
        self.proc.terminate()
        out, err = await asyncio.wait_for(self.proc.communicate(), 20)
        assert self.proc.returncode is not None
        return self.proc.returncode, out.decode(), err.decode()


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(SCRIPT),
        cwd=tmp_path,  # not the repo root
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        line = await asyncio.wait_for(proc.stdout.readline(), 30)
        assert line.strip().isdigit(), line
        yield Server(proc, int(line))
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.communicate()


async def read_response(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    status_line, *lines = head.decode("ascii").rstrip("\r\n").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers["content-length"]))
    return int(status_line.split()[1]), headers, body


async def stats(url: str) -> dict[str, Any]:
    async with aiohttp.ClientSession() as session, session.get(f"{url}/_stats") as resp:
        return await resp.json()


def test_canned_answer_is_a_sent_message() -> None:
    answer = json.loads(MOCK["SEND_MESSAGE_BODY"])
    message = answer["result"]
    assert answer["ok"] is True
    assert message["message_id"] == MOCK["MESSAGE_ID"]
    assert message["from"]["is_bot"] is True
    assert message["chat"] == {
        "id": MOCK["CHAT_ID"],
        "first_name": "Alice",
        "last_name": "Liddell",
        "username": "alice_liddell",
        "type": "private",
    }
    assert message["text"] == MOCK["TEXT"]
    # Telegram's encoding: ASCII only, the emoji as a surrogate pair.
    assert MOCK["SEND_MESSAGE_BODY"].isascii()
    assert b"\\ud83d\\udce6" in MOCK["SEND_MESSAGE_BODY"]
    mention = message["entities"][0]
    utf16 = message["text"].encode("utf-16-le")
    start, end = 2 * mention["offset"], 2 * (mention["offset"] + mention["length"])
    assert utf16[start:end].decode("utf-16-le") == "@alice_liddell"


async def test_keep_alive_sequence(server: Server) -> None:
    body = json.dumps({"chat_id": MOCK["CHAT_ID"], "text": MOCK["TEXT"]}).encode()
    methods = ["sendMessage", "SENDMESSAGE", "sendmessage"]
    connector = aiohttp.TCPConnector(limit=1)
    async with aiohttp.ClientSession(connector=connector) as session:
        for i in range(30):
            url = f"{server.url}/bot{TOKEN}/{methods[i % 3]}"
            async with session.post(
                url, data=body, headers={"Content-Type": "application/json"}
            ) as resp:
                assert resp.status == 200
                assert resp.headers["Content-Type"] == "application/json"
                assert resp.headers["Connection"] == "keep-alive"
                assert await resp.read() == MOCK["SEND_MESSAGE_BODY"]
        async with session.get(f"{server.url}/_stats") as resp:
            counters = await resp.json()
    assert counters["requests"] == 30
    assert counters["connections"] == 1  # 30 calls and the stats request on one connection
    status, out, err = await server.stop()
    assert status == 0
    assert out.startswith("served 30 requests on 1 connections, ")
    assert err == ""


async def test_pipelined_chunked_and_other_paths(server: Server) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    body = b'{"chat_id":123456789,"text":"hi"}'
    requests = [
        b"POST /bot%s/sendMessage HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s"
        % (TOKEN.encode(), len(body), body),
        # chunked body, with a chunk extension and a trailer field
        b"POST /bot%s/sendMessage?x=1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        b'5;ext=1\r\n{"cha\r\n%x\r\n%s\r\n0\r\nX-Trailer: 1\r\n\r\n'
        % (TOKEN.encode(), len(body) - 5, body[5:]),
        b"GET /bot%s/getMe HTTP/1.1\r\nHost: x\r\n\r\n" % TOKEN.encode(),
        b"POST /bot%s/noSuchMethod HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
        % TOKEN.encode(),
        b"GET /favicon.ico HTTP/1.1\r\nHost: x\r\n\r\n",
        b"POST /bot%s/sendMessage HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (TOKEN.encode(), len(body), body),
    ]
    stream = b"".join(requests)
    # In pieces that cut through request lines, headers, chunk sizes and bodies.
    for start in range(0, len(stream), 37):
        writer.write(stream[start : start + 37])
        await writer.drain()
        await asyncio.sleep(0.001)
    answers = [await read_response(reader) for _ in requests]
    assert await reader.read() == b""  # closed after the Connection: close request
    writer.close()
    await writer.wait_closed()

    assert [status for status, _, _ in answers] == [200, 200, 200, 404, 404, 200]
    assert answers[0][2] == answers[1][2] == answers[5][2] == MOCK["SEND_MESSAGE_BODY"]
    me = json.loads(answers[2][2])
    assert me["ok"] is True and me["result"]["id"] == MOCK["BOT_ID"]
    assert json.loads(answers[3][2]) == json.loads(answers[4][2]) == NOT_FOUND
    assert (await stats(server.url))["requests"] == 6
    status, _, err = await server.stop()
    assert status == 0 and err == ""


async def test_malformed_request_gets_400_and_close(server: Server) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"NONSENSE\r\n\r\n")
    status, headers, _ = await read_response(reader)
    assert (status, headers["connection"]) == (400, "close")
    assert await reader.read() == b""
    writer.close()
    await writer.wait_closed()
    status, _, err = await server.stop()
    assert status == 0 and err == ""


async def test_expect_100_continue(server: Server) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(
        b"POST /bot%s/sendMessage HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
        b"Content-Length: 2\r\n\r\n" % TOKEN.encode()
    )
    assert await reader.readuntil(b"\r\n\r\n") == b"HTTP/1.1 100 Continue\r\n\r\n"
    writer.write(b"{}")
    status, _, body = await read_response(reader)
    assert (status, body) == (200, MOCK["SEND_MESSAGE_BODY"])
    writer.close()
    await writer.wait_closed()


async def test_terminate_with_open_connections_exits_cleanly(server: Server) -> None:
    connector = aiohttp.TCPConnector(limit=4)
    async with aiohttp.ClientSession(connector=connector) as session:
        url = f"{server.url}/bot{TOKEN}/sendMessage"

        async def call() -> bytes:
            async with session.post(url, data=b"{}") as resp:
                return await resp.read()

        answers = await asyncio.gather(*(call() for _ in range(8)))
        assert set(answers) == {MOCK["SEND_MESSAGE_BODY"]}
        # Connections are still open (kept alive by the session) when the server stops.
        status, out, err = await server.stop()
    assert status == 0
    assert out.startswith("served 8 requests on ")
    assert err == ""
