"""``WebhookServer``: the aiohttp.web application that receives Telegram's POSTs.

One request, one update. The path is kept short: secret check, body read, decode,
``UpdateProcessor.put``, answer. By default the answer is an empty 200 as soon as the
update is queued (Telegram sends the next one without waiting for the handler). In
reply mode the request waits for the handler and answers with the method object it
returned, so that Telegram performs the call; a handler slower than ``reply_timeout``
gets an empty 200 and its method is sent by a normal call when it is done.

What is refused, and why Telegram behaves well with it: 403 for a client outside
``allowed_ips`` (its real address: see ``addresses``) or a wrong secret, 413
for a body over ``max_body_size``, 400 for a body that is not an update or cannot be
read, say a wrong ``Content-Encoding`` (logged with the reason, once a minute per
cause), 408 for a body slower than ``body_timeout``, 405/404 for a wrong method/path,
and 503 with ``Retry-After`` while the processor is full or draining, or while the
bodies being read hold ``read_budget`` bytes: Telegram delivers that update again
later. Slow, idle and surplus connections are bounded in ``connections``.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import re
import socket
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal

from aiohttp import web
from aiohttp.web_protocol import RequestPayloadError

from .._logging import get_logger
from ..client.encoding import dumps
from ..decoding import decode_update
from .addresses import AddressPolicy, IPNetwork
from .connections import (
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_KEEPALIVE_TIMEOUT,
    BoundedRunner,
    LogLimiter,
    MemoryReclaimer,
    one_line,
)
from .metrics import CONTENT_TYPE, Metrics, Rejected
from .processing import DEFAULT_MAX_IN_FLIGHT, Admission, Concurrency, UpdateProcessor
from .seen import SeenUpdates

if TYPE_CHECKING:
    from ..client import Bot
    from ..dispatcher import Dispatcher
    from ..methods.base import TelegramMethod

__all__ = [
    "DEFAULT_BODY_TIMEOUT",
    "DEFAULT_HEADER_TIMEOUT",
    "DEFAULT_KEEPALIVE_TIMEOUT",
    "DEFAULT_MAX_BODY_SIZE",
    "DEFAULT_READ_BUDGET",
    "DEFAULT_REPLY_TIMEOUT",
    "SECRET_HEADER",
    "WebhookServer",
    "valid_secret_token",
]

log = get_logger("tgfast.server")

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
DEFAULT_MAX_BODY_SIZE = 1024 * 1024
"""Bytes. An update is a few kilobytes; the largest (a long text quoting another) far
below this."""
DEFAULT_BODY_TIMEOUT = 30.0
"""Seconds a body may take to arrive once its head has (nginx: 60 s between two reads)."""
DEFAULT_READ_BUDGET = 8 * 1024 * 1024
"""Bytes of bodies being read at once (announced length, or ``max_body_size``); beyond,
503. A body already received whole costs nothing against it."""
DEFAULT_REPLY_TIMEOUT = 2.0
"""Seconds a reply-mode request waits for its handler before answering without a method."""

# Telegram's rule for secret_token: 1-256 characters A-Z, a-z, 0-9, _ and -.
_SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")


def valid_secret_token(secret: str) -> bool:
    """Whether Telegram's setWebhook would take ``secret`` as a ``secret_token``."""
    return _SECRET.fullmatch(secret) is not None


class WebhookServer:
    """Serve ``dispatcher`` for ``bot`` at ``path``; see the module docstring.

    ``processor`` (or the processing options, used to make one) decides ordering,
    bounds and dedup. ``allowed_ips`` (networks; ``TELEGRAM_NETWORKS``) restricts
    the update path to those clients, told by ``X-Forwarded-For`` when the peer is
    one of ``trusted_proxies``; the health and metrics paths stay open to the
    balancer. ``start`` listens; ``drain`` refuses new updates with 503 and
    waits for the ones taken; ``stop`` closes the listener; ``abort`` drops what is
    in flight. ``app`` is the aiohttp application, to mount or to extend.
    """

    def __init__(
        self,
        dispatcher: Dispatcher,
        bot: Bot,
        *,
        path: str = "/webhook",
        secret_token: str | None = None,
        reply_mode: bool = False,
        reply_timeout: float = DEFAULT_REPLY_TIMEOUT,
        max_body_size: int = DEFAULT_MAX_BODY_SIZE,
        retry_after: int = 1,
        processor: UpdateProcessor | None = None,
        concurrency: Concurrency = "chat",
        max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
        seen: SeenUpdates | None | Literal["memory"] = "memory",
        metrics: Metrics | None = None,
        health_paths: bool = True,
        metrics_path: str | None = "/metrics",
        access_log: logging.Logger | None = None,
        trusted_proxies: Iterable[str | IPNetwork] = (),
        allowed_ips: Iterable[str | IPNetwork] | None = None,
        header_timeout: float = DEFAULT_HEADER_TIMEOUT,
        body_timeout: float = DEFAULT_BODY_TIMEOUT,
        keepalive_timeout: float = DEFAULT_KEEPALIVE_TIMEOUT,
        max_connections: int | None = None,
        read_budget: int = DEFAULT_READ_BUDGET,
    ) -> None:
        if not path.startswith("/"):
            raise ValueError(f"path must start with '/', got {path!r}")
        if secret_token is not None and not valid_secret_token(secret_token):
            raise ValueError("secret_token: 1-256 characters of A-Z, a-z, 0-9, _ and -")
        self.dispatcher = dispatcher
        self.bot = bot
        self.path = path
        self.reply_mode = reply_mode
        self.reply_timeout = reply_timeout
        self.max_body_size = max_body_size
        self.header_timeout = header_timeout
        self.body_timeout = body_timeout
        self.keepalive_timeout = keepalive_timeout
        self.max_connections = max_connections
        """Open connections at most (None: ``default_max_connections()``)."""
        self.read_budget = max(read_budget, max_body_size)
        self._reading = 0  # bytes reserved by the bodies being read
        self._limiter = LogLimiter(log)
        self._reclaimer = MemoryReclaimer()
        self.retry_after = str(int(retry_after))
        self.processor = processor or UpdateProcessor(
            dispatcher, bot, concurrency=concurrency, max_in_flight=max_in_flight,
            seen=seen, metrics=metrics,
        )  # fmt: skip
        self.metrics = self.processor.metrics
        self.secret_token = secret_token
        self._secret = None if secret_token is None else secret_token.encode()
        self._access_log = access_log
        self.addresses = AddressPolicy(trusted_proxies, allowed_ips)
        """Who a request's client is (``client_of``) and the allow-list."""
        self._allows = None if allowed_ips is None else self.addresses.allows_request
        self._forbidden_logged = False
        self._runner: web.AppRunner | None = None
        self._listening = False
        self.url: str | None = None
        """``http://host:port/path`` once started (the port really bound, for port 0)."""
        self.app = web.Application(client_max_size=max_body_size)
        self.app.router.add_route("*", path, self._on_update)
        if health_paths:
            self.app.router.add_get("/healthz", self._on_healthz)
            self.app.router.add_get("/readyz", self._on_readyz)
        if metrics_path is not None:
            self.app.router.add_get(metrics_path, self._on_metrics)
        self.app.router.add_route("*", "/{tail:.*}", self._on_unknown)  # counted, then 404

    # -- requests ----------------------------------------------------------------------

    async def _on_update(self, request: web.Request) -> web.StreamResponse:
        rejected = self.metrics.rejected
        allows = self._allows
        if allows is not None and not allows(request):
            return self._forbidden(request)
        if request.method != "POST":
            rejected[Rejected.METHOD] += 1
            return web.Response(status=405, headers={"Allow": "POST"})
        secret = self._secret
        if secret is not None:
            given = request.headers.get(SECRET_HEADER)
            if given is None or not hmac.compare_digest(
                given.encode("utf-8", "surrogateescape"), secret
            ):
                rejected[Rejected.SECRET] += 1
                return web.Response(status=403)
        processor = self.processor
        if processor.closed or processor.in_flight >= processor.max_in_flight:
            rejected[Rejected.DRAINING if processor.closed else Rejected.OVERLOADED] += 1
            return self._unavailable()
        length = request.content_length
        if length is not None and length > self.max_body_size:
            rejected[Rejected.TOO_LARGE] += 1
            self._reclaimer.note(length)  # aiohttp drains it after the answer
            return web.Response(status=413)
        if request.content.is_eof():  # the whole body came with the head: the usual case
            try:
                body = await request.read()
            except Exception as exc:  # noqa: BLE001 - every failure to read a body is a 4xx
                return self._unreadable(request, exc)
        else:
            reserved = self.max_body_size if length is None else length
            if self._reading + reserved > self.read_budget:
                rejected[Rejected.READ_BUDGET] += 1
                self._reclaimer.note(reserved)
                return self._unavailable()
            self._reading += reserved
            try:
                body = await asyncio.wait_for(self._read_in_chunks(request), self.body_timeout)
            except Exception as exc:  # noqa: BLE001 - every failure to read a body is a 4xx
                self._reclaimer.note(reserved)
                return self._unreadable(request, exc)
            finally:
                self._reading -= reserved
        try:
            update = decode_update(body)
        except Exception as exc:  # noqa: BLE001 - DecodeError, or anything odd: a 400, never a 500
            rejected[Rejected.BAD_BODY] += 1
            log.warning("webhook: refused a body that is not an update (%d bytes): %s",
                        len(body), exc)  # fmt: skip
            return web.Response(status=400, text=f"not an update: {exc}")
        if not self.reply_mode:
            if (await processor.submit(update, None, body)).taken:
                return web.Response()
            return self._unavailable()
        waiter: asyncio.Future[TelegramMethod[Any] | None] = (
            asyncio.get_running_loop().create_future()
        )
        admission = await processor.submit(update, waiter, body)
        if admission is not Admission.ACCEPTED:
            return web.Response() if admission.taken else self._unavailable()
        await asyncio.wait((waiter,), timeout=self.reply_timeout)
        if not waiter.done():
            waiter.cancel()  # the processor sends the method itself when it comes
            return web.Response()
        method = waiter.result()
        if method is None:
            return web.Response()
        defaults = self.bot.defaults
        reply = dumps(method.as_webhook_reply(defaults), defaults)
        return web.Response(body=reply, content_type="application/json")

    async def _read_in_chunks(self, request: web.Request) -> bytes:
        """The body of a request that did not come whole with its head.

        Unlike ``request.read()`` this keeps aiohttp's read-ahead at its default (the
        connection is paused beyond a few chunks) and grows no contiguous buffer: the
        chunks are joined once, at the end, so an aborted upload leaves only
        chunk-sized blocks to the allocator, which it can reuse.
        """
        content = request.content
        chunks: list[bytes] = []
        size, limit = 0, self.max_body_size
        while chunk := await content.readany():
            size += len(chunk)
            if size > limit:
                raise web.HTTPRequestEntityTooLarge(limit, size)
            chunks.append(chunk)
        return b"".join(chunks)

    def _unreadable(self, request: web.Request, exc: Exception) -> web.Response:
        """The answer to a body that could not be read, counted and logged (rate-limited)."""
        # The exception is also kept by the request's payload, and its traceback holds
        # the frames (and the partial body) of the read: a cycle that would keep up to
        # max_body_size alive until a full collection. Dropping the traceback breaks it.
        exc.__traceback__ = None
        rejected = self.metrics.rejected
        if isinstance(exc, web.HTTPRequestEntityTooLarge):
            rejected[Rejected.TOO_LARGE] += 1
            return web.Response(status=413)
        if isinstance(exc, asyncio.TimeoutError):
            rejected[Rejected.BODY_TIMEOUT] += 1
            self._limiter.warning(
                "body_timeout", "webhook: a body from %s did not arrive within %ss "
                "(body_timeout), answered 408", request.remote, self.body_timeout,
            )  # fmt: skip
            response = web.Response(status=408)
            response.force_close()
            return response
        if isinstance(exc, RequestPayloadError) or request.transport is not None:
            rejected[Rejected.BAD_BODY] += 1
            cause = exc.__cause__ or exc
            self._limiter.warning(
                f"bad_body:{type(cause).__name__}", "webhook: refused a body that cannot "
                "be read (Content-Encoding %s): %s", one_line(
                    request.headers.get("Content-Encoding", "none")), one_line(str(cause)),
            )  # fmt: skip
            response = web.Response(status=400, text="the body cannot be read")
        else:
            rejected[Rejected.ABORTED] += 1  # the client is gone: nobody reads the answer
            response = web.Response(status=400)
        response.force_close()  # what is left of the body cannot be skipped reliably
        return response

    def _forbidden(self, request: web.Request) -> web.Response:
        self.metrics.rejected[Rejected.FORBIDDEN_IP] += 1
        if not self._forbidden_logged:  # once: a missing --trusted-proxy refuses everything
            self._forbidden_logged = True
            log.warning("webhook: refused a request from %s (peer %s), not in allowed_ips; "
                        "further refusals are only counted in /metrics",
                        self.addresses.client_of(request), request.remote)  # fmt: skip
        return web.Response(status=403)

    def _unavailable(self) -> web.Response:
        return web.Response(status=503, headers={"Retry-After": self.retry_after})

    async def _on_unknown(self, request: web.Request) -> web.Response:
        self.metrics.rejected[Rejected.PATH] += 1
        return web.Response(status=404)

    async def _on_healthz(self, request: web.Request) -> web.Response:
        return web.Response(text="ok")

    async def _on_readyz(self, request: web.Request) -> web.Response:
        if self.ready:
            return web.Response(text="ready")
        return web.Response(status=503, text="draining" if self.processor.closed else "starting")

    async def _on_metrics(self, request: web.Request) -> web.Response:
        body = self.metrics.render().encode()
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE})

    # -- life cycle --------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        """Listening and taking updates: what ``/readyz`` reports."""
        return self._listening and not self.processor.closed

    async def start(
        self,
        host: str = "127.0.0.1",
        port: int = 8080,
        *,
        sock: socket.socket | None = None,
        reuse_port: bool | None = None,
        backlog: int = 1024,
    ) -> str:
        """Listen on ``host:port`` (or on an already bound ``sock``); returns ``self.url``."""
        if self._runner is not None:
            raise RuntimeError("the webhook server is already started")
        runner = BoundedRunner(
            self.app,
            metrics=self.metrics,
            header_timeout=self.header_timeout,
            max_connections=self.max_connections,
            limiter=self._limiter,
            keepalive_timeout=self.keepalive_timeout,
            handle_signals=False,
            access_log=self._access_log,
            shutdown_timeout=5.0,
        )
        await runner.setup()
        try:
            site: web.BaseSite
            if sock is not None:
                site = web.SockSite(runner, sock, backlog=backlog)
            else:
                site = web.TCPSite(runner, host, port, backlog=backlog, reuse_port=reuse_port)
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        await self.processor.start()
        bound_host, bound_port = runner.addresses[0][:2]
        if ":" in bound_host:
            bound_host = f"[{bound_host}]"
        self.url = f"http://{bound_host}:{bound_port}{self.path}"
        self._listening = True
        return self.url

    async def drain(self) -> None:
        """Refuse new updates (503, ``/readyz`` 503) and wait for every update taken."""
        await self.processor.drain()

    async def abort(self) -> int:
        """Drop the updates in flight at once; returns how many were dropped."""
        return await self.processor.abort()

    async def stop(self) -> None:
        """Close the listener and the open connections."""
        self._listening = False
        runner, self._runner = self._runner, None
        self._reclaimer.close()
        if runner is not None:
            await runner.cleanup()

    async def shutdown(self) -> None:
        """``drain`` then ``stop``: the graceful way out."""
        await self.drain()
        await self.stop()

    def __repr__(self) -> str:
        return f"WebhookServer(url={self.url!r}, reply_mode={self.reply_mode}, {self.processor!r})"
