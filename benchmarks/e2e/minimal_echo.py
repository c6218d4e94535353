"""The minimal Python floor: what Python itself can do, no framework, no aiohttp.

    python minimal_echo.py --port P --path /webhook --secret S --token T --api-url URL
    python minimal_echo.py ... --client aiohttp      # the same server, aiohttp's client
    python minimal_echo.py ... --model task          # a task and a coroutine per update

uvloop, an ``asyncio.Protocol`` server over llhttp (httptools) that answers from
prebuilt bytes, and a raw keep-alive client: a pool of connections, each request a
prebuilt head plus the orjson body, each answer read by llhttp's response parser.
The secret is compared in constant time; an update with a text message is answered
200 at once and echoed with ``sendMessage`` 10 ms later (``call_later``: no task per
update). Only what the echo needs: no body limit, no timeouts, no retries.

``--model task`` (the ``minimal-async`` contender) keeps the raw client but gives each
update what a framework's handler has: an ``asyncio`` task running an ``async def``
that awaits the sleep, then awaits its call's answer (a future the client resolves)
and reads it with ``orjson``. What that shape costs on asyncio, with no framework in
it, is the least any bot whose handlers are coroutines can cost.

``--client aiohttp`` (the ``minimal-aiohttp`` contender) sends the echo with one bare
``aiohttp.ClientSession.post`` per update instead (a task each, as a coroutine needs):
the least a bot on aiohttp's client can cost, what tgfast's default session is
measured against.
"""

from __future__ import annotations

import asyncio
import hmac
import signal
from collections import deque
from typing import Any
from urllib.parse import urlsplit

import botcli
import httptools
import orjson

SLEEP = 0.01
OK = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
FORBIDDEN = b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n"
NOT_FOUND = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
SECRET_HEADER = b"x-telegram-bot-api-secret-token"
JSON = {"Content-Type": "application/json"}


class WebhookProtocol(asyncio.Protocol):
    """One webhook connection: llhttp callbacks collect a request, answered at once."""

    def __init__(self, bot: Echo) -> None:
        self.bot = bot
        self.parser = httptools.HttpRequestParser(self)
        self.transport: Any = None
        self.url = b""
        self.secret = b""
        self.body: list[bytes] = []

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            self.transport.close()

    def on_message_begin(self) -> None:
        self.url, self.secret, self.body = b"", b"", []

    def on_url(self, url: bytes) -> None:
        self.url += url

    def on_header(self, name: bytes, value: bytes) -> None:
        if name.lower() == SECRET_HEADER:
            self.secret = value

    def on_body(self, body: bytes) -> None:
        self.body.append(body)

    def on_message_complete(self) -> None:
        bot = self.bot
        if self.url != bot.path:
            self.transport.write(NOT_FOUND)
            return
        if not hmac.compare_digest(self.secret, bot.secret):
            self.transport.write(FORBIDDEN)
            return
        update = orjson.loads(b"".join(self.body))
        self.transport.write(OK)
        message = update.get("message")
        if message is not None and "text" in message:
            if bot.tasks_per_update:
                bot.spawn(bot.handle(message["chat"]["id"], message["text"]))
            else:
                bot.loop.call_later(SLEEP, bot.send, message["chat"]["id"], message["text"])


class ClientProtocol(asyncio.Protocol):
    """One keep-alive connection to the API: one request at a time."""

    def __init__(self, pool: Pool) -> None:
        self.pool = pool
        self.parser = httptools.HttpResponseParser(self)
        self.transport: Any = None
        self.waiter: asyncio.Future[bytes] | None = None  # --model task: the answer's
        self.body: list[bytes] = []

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.parser.feed_data(data)

    def on_body(self, body: bytes) -> None:
        if self.waiter is not None:
            self.body.append(body)

    def on_message_complete(self) -> None:
        waiter = self.waiter
        if waiter is not None:
            self.waiter = None
            waiter.set_result(b"".join(self.body))
            self.body = []
        self.pool.release(self)

    def connection_lost(self, exc: BaseException | None) -> None:
        self.pool.lost(self)


class Pool:
    """Idle connections first; new ones up to ``limit``; the rest of the requests queue."""

    def __init__(self, loop: asyncio.AbstractEventLoop, host: str, port: int, limit: int) -> None:
        self.loop, self.host, self.port, self.limit = loop, host, port, limit
        self.idle: list[ClientProtocol] = []
        self.open = 0
        self.queue: deque[tuple[bytes, asyncio.Future[bytes] | None]] = deque()

    def send(self, request: bytes, waiter: asyncio.Future[bytes] | None = None) -> None:
        """Write ``request`` on a free connection; ``waiter`` gets the answer's body."""
        if self.idle:
            self._write(self.idle.pop(), request, waiter)
        elif self.open < self.limit:
            self.open += 1
            self.loop.create_task(self._connect(request, waiter))
        else:
            self.queue.append((request, waiter))

    def _write(
        self, conn: ClientProtocol, request: bytes, waiter: asyncio.Future[bytes] | None
    ) -> None:
        conn.waiter = waiter
        conn.transport.write(request)

    async def _connect(self, request: bytes, waiter: asyncio.Future[bytes] | None) -> None:
        _, conn = await self.loop.create_connection(
            lambda: ClientProtocol(self), self.host, self.port
        )
        self._write(conn, request, waiter)

    def release(self, conn: ClientProtocol) -> None:
        if self.queue:
            self._write(conn, *self.queue.popleft())
        else:
            self.idle.append(conn)

    def lost(self, conn: ClientProtocol) -> None:
        self.open -= 1
        if conn in self.idle:
            self.idle.remove(conn)


class Echo:
    def __init__(self, loop: asyncio.AbstractEventLoop, args: Any) -> None:
        self.loop = loop
        self.path = args.path.encode()
        self.secret = args.secret.encode()
        api = urlsplit(args.api_url)
        self.pool = Pool(loop, api.hostname or "127.0.0.1", api.port or 80, 100)
        target = f"{api.path.rstrip('/')}/bot{args.token}/sendMessage"
        self.head = (
            f"POST {target} HTTP/1.1\r\nHost: {api.netloc}\r\n"
            "Content-Type: application/json\r\nContent-Length: "
        ).encode()
        self.endpoint = f"{args.api_url.rstrip('/')}/bot{args.token}/sendMessage"
        self.session: Any = None  # aiohttp's client (--client aiohttp)
        self.tasks_per_update = args.model == "task"
        self.tasks: set[asyncio.Task[None]] = set()

    def send(self, chat_id: int, text: str) -> None:
        body = orjson.dumps({"chat_id": chat_id, "text": text})
        if self.session is None:
            self.pool.send(b"%s%d\r\n\r\n%s" % (self.head, len(body), body))
            return
        self.spawn(self.post(body))

    def spawn(self, coro: Any) -> None:
        task = self.loop.create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def handle(self, chat_id: int, text: str) -> None:
        """--model task: the echo as a coroutine, its call's answer awaited and read."""
        await asyncio.sleep(SLEEP)
        body = orjson.dumps({"chat_id": chat_id, "text": text})
        answer = self.loop.create_future()
        self.pool.send(b"%s%d\r\n\r\n%s" % (self.head, len(body), body), answer)
        if not orjson.loads(await answer).get("ok"):
            raise RuntimeError("the Bot API refused the echo")

    async def post(self, body: bytes) -> None:
        async with self.session.post(self.endpoint, data=body, headers=JSON) as resp:
            await resp.read()


async def main(args: Any) -> None:
    loop = asyncio.get_running_loop()
    bot = Echo(loop, args)
    if args.client == "aiohttp":
        import aiohttp

        bot.session = aiohttp.ClientSession()
    server = await loop.create_server(lambda: WebhookProtocol(bot), args.host, args.port)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    server.close()
    if bot.session is not None:
        await bot.session.close()


if __name__ == "__main__":
    cli = botcli.parser("The minimal Python floor: uvloop + llhttp, raw client.")
    cli.add_argument("--client", choices=("raw", "aiohttp"), default="raw")
    cli.add_argument("--model", choices=("callback", "task"), default="callback")
    arguments = cli.parse_args()
    botcli.run(lambda: main(arguments), arguments.loop)
