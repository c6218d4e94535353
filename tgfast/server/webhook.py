"""``WebhookServer``: the server that receives Telegram's POSTs.

One request, one update; what is answered when is ``intake``'s (the same rules for
every way tgfast takes webhooks). This module adds what a stand-alone server needs
around it: health, readiness and metrics paths (404 for any other, 405 for a wrong
method on the update path) and bounds on slow, idle and surplus connections.

Two HTTP layers serve it, with the same answers and bounds:

- ``http="tgfast"`` (the default): tgfast's own HTTP/1.1 protocol over llhttp
  (``tgfast._speedups._intake``, compiled, or its pure twin), answering from prebuilt
  bytes, with no task or future per update;
- ``http="aiohttp"``: an ``aiohttp.web`` application (``app``) and a runner with the
  bounds of ``connections``: for extra routes on the same port. Using ``app`` chooses it.

``http=None`` takes ``$TGFAST_HTTP`` (``tgfast`` or ``aiohttp``), else ``tgfast``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Iterable
from functools import partial
from ssl import SSLContext
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from aiohttp import web

from .._speedups import load
from .._speedups._wire import response
from ..client.encoding import dumps
from ..decoding import decode_update
from .addresses import AddressPolicy, IPNetwork
from .connections import (
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_KEEPALIVE_TIMEOUT,
    BoundedRunner,
    default_max_connections,
    one_line,
)
from .intake import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_MAX_BODY_SIZE,
    DEFAULT_READ_BUDGET,
    DEFAULT_REPLY_TIMEOUT,
    SECRET_HEADER,
    UpdateIntake,
    log,
    valid_secret_token,
)
from .metrics import CONTENT_TYPE, Metrics, Rejected
from .processing import (
    DEFAULT_MAX_IN_FLIGHT,
    DEFAULT_MAX_LAG,
    Admission,
    Concurrency,
    UpdateProcessor,
)
from .seen import SeenUpdates

if TYPE_CHECKING:
    from ..client import Bot
    from ..dispatcher import Dispatcher
    from ..methods.base import TelegramMethod
    from ..types import Update

__all__ = [
    "DEFAULT_BODY_TIMEOUT",
    "DEFAULT_HEADER_TIMEOUT",
    "DEFAULT_KEEPALIVE_TIMEOUT",
    "DEFAULT_MAX_BODY_SIZE",
    "DEFAULT_READ_BUDGET",
    "DEFAULT_REPLY_TIMEOUT",
    "HTTP_LAYERS",
    "SECRET_HEADER",
    "HttpLayer",
    "WebhookServer",
    "valid_secret_token",
]

HttpLayer: TypeAlias = Literal["tgfast", "aiohttp"]
HTTP_LAYERS: tuple[HttpLayer, ...] = ("tgfast", "aiohttp")

_HEALTHY = response(200, b"ok")
_READY = response(200, b"ready")
_DRAINING = response(503, b"draining")
_STARTING = response(503, b"starting")
_NOT_FOUND = response(404)
_STOP_WAIT = 5.0  # seconds stop() lets answers being written finish


class WebhookServer(UpdateIntake):
    """Serve ``dispatcher`` for ``bot`` at ``path``; see the module docstring.

    ``processor`` (or the processing options, used to make one) decides ordering,
    bounds and dedup. ``allowed_ips`` (networks; ``TELEGRAM_NETWORKS``) restricts
    the update path to those clients, told by ``X-Forwarded-For`` when the peer is
    one of ``trusted_proxies``; the health and metrics paths stay open to the
    balancer. ``start`` listens (over TLS with ``ssl``); ``drain`` refuses new updates
    with 503 and waits for the ones taken; ``stop`` closes the listener; ``abort``
    drops what is in flight. ``http`` picks the HTTP layer (module docstring); ``app``
    is the aiohttp application, to mount or to extend (which selects aiohttp).
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
        max_lag: float | None = DEFAULT_MAX_LAG,
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
        http: HttpLayer | None = None,
    ) -> None:
        if not path.startswith("/"):
            raise ValueError(f"path must start with '/', got {path!r}")
        if http is None:
            http = os.environ.get("TGFAST_HTTP") or "tgfast"  # type: ignore[assignment]
        if http not in HTTP_LAYERS:
            raise ValueError(f"http must be one of {HTTP_LAYERS}, got {http!r}")
        processor = processor or UpdateProcessor(
            dispatcher, bot, concurrency=concurrency, max_in_flight=max_in_flight,
            seen=seen, metrics=metrics, max_lag=max_lag,
        )  # fmt: skip
        super().__init__(
            processor, secret_token=secret_token, reply_mode=reply_mode,
            reply_timeout=reply_timeout, max_body_size=max_body_size, retry_after=retry_after,
            body_timeout=body_timeout, read_budget=read_budget,
            addresses=AddressPolicy(trusted_proxies, allowed_ips),
        )  # fmt: skip
        self.dispatcher = dispatcher
        self.bot = bot
        self.path = path
        self.http: HttpLayer = http
        self.header_timeout = header_timeout
        self.keepalive_timeout = keepalive_timeout
        self.max_connections = max_connections
        """Open connections at most (None: ``default_max_connections()``)."""
        self.health_paths = health_paths
        self.metrics_path = metrics_path
        self._access_log = access_log
        self._app: web.Application | None = None
        self._runner: web.AppRunner | None = None
        self._server: asyncio.Server | None = None
        self._state: Any = None  # the protocol's IntakeState, while listening
        self._listening = False
        # what the protocol takes from here (it imports nothing of tgfast's own)
        self.decode = decode_update
        self.accepted = Admission.ACCEPTED
        self.duplicate = Admission.DUPLICATE
        self._ok = response(200)
        self._busy = tuple(
            response(503, headers=[("Retry-After", wait)]) for wait in self.retry_after_values
        )
        self._refused_connection = response(
            503, headers=[("Retry-After", self.retry_after)], close=True
        )
        self.url: str | None = None
        """``http://host:port/path`` once started (the port really bound, for port 0)."""

    @property
    def app(self) -> web.Application:
        """The aiohttp application serving this server's paths, to mount or to extend
        with routes of your own; using it serves through aiohttp (``http="aiohttp"``)."""
        if self._app is None:
            if self._server is not None:
                raise RuntimeError("the server listens already, without aiohttp")
            self.http = "aiohttp"
            self._app = app = web.Application(client_max_size=self.max_body_size)
            app.router.add_route("*", self.path, self._on_update)
            if self.health_paths:
                app.router.add_get("/healthz", self._on_healthz)
                app.router.add_get("/readyz", self._on_readyz)
            if self.metrics_path is not None:
                app.router.add_get(self.metrics_path, self._on_metrics)
            app.router.add_route("*", "/{tail:.*}", self._on_unknown)  # counted, then 404
        return self._app

    # -- other paths (aiohttp) -----------------------------------------------------------

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

    # -- what tgfast's protocol asks (its rare paths) ----------------------------------

    def other_path(self, path: bytes, method: bytes) -> bytes:
        """The answer to a request for ``path`` other than the update path."""
        if method in (b"GET", b"HEAD"):
            answer = None
            if self.health_paths and path == b"/healthz":
                answer = _HEALTHY
            elif self.health_paths and path == b"/readyz":
                if self.ready:
                    answer = _READY
                else:
                    answer = _DRAINING if self.processor.closed else _STARTING
            elif self.metrics_path is not None and path == self.metrics_path.encode():
                text = self.metrics.render().encode()
                answer = response(200, text, content_type=CONTENT_TYPE)
            if answer is not None:
                return (
                    answer if method == b"GET" else answer.partition(b"\r\n\r\n")[0] + b"\r\n\r\n"
                )
        self.metrics.rejected[Rejected.PATH] += 1
        return _NOT_FOUND

    def forbidden(self, peer: str | None, forwarded: list[str]) -> bytes:
        self.metrics.rejected[Rejected.FORBIDDEN_IP] += 1
        if not self._forbidden_logged:  # once: a missing --trusted-proxy refuses everything
            self._forbidden_logged = True
            log.warning("webhook: refused a request from %s (peer %s), not in allowed_ips; "
                        "further refusals are only counted in /metrics",
                        self.addresses.client_address(peer, forwarded), peer)  # fmt: skip
        return response(403)

    def refuse_connection(self, transport: asyncio.BaseTransport, open_now: int) -> None:
        self.metrics.rejected[Rejected.CONNECTIONS] += 1
        self._limiter.warning(
            "connections", "webhook: refused a connection: %d open, the bound "
            "(max_connections); further refusals are counted in /metrics", open_now,
        )  # fmt: skip
        try:
            transport.write(self._refused_connection)  # type: ignore[attr-defined]
        finally:
            transport.close()

    def aborted(self) -> None:
        """A client went away before its body was read."""
        self.metrics.rejected[Rejected.ABORTED] += 1

    def malformed(self, peer: str | None, reason: str) -> bytes:
        """A request llhttp refuses: counted, logged once a minute per cause, 400."""
        self.metrics.rejected[Rejected.BAD_HTTP] += 1
        cause = reason.partition(":")[0] or reason
        self._limiter.warning(f"bad_http:{cause}", "webhook: malformed HTTP from %s, answered "
                              "400: %s", peer, one_line(reason))  # fmt: skip
        return response(400, b"malformed HTTP request", close=True)

    def unreadable(self, encoding: bytes, reason: str) -> bytes:
        self.metrics.rejected[Rejected.BAD_BODY] += 1
        self._limiter.warning(
            f"bad_body:{reason.partition(' ')[0]}", "webhook: refused a body that cannot be "
            "read (Content-Encoding %s): %s", one_line(encoding.decode("latin-1")), reason,
        )  # fmt: skip
        return response(400, b"the body cannot be read", close=True)

    def not_an_update(self, size: int, exc: Exception) -> bytes:
        self.metrics.rejected[Rejected.BAD_BODY] += 1
        log.warning("webhook: refused a body that is not an update (%d bytes): %s", size, exc)
        return response(400, f"not an update: {exc}".encode(errors="replace"))

    def header_timed_out(self, peer: str | None) -> None:
        self.metrics.rejected[Rejected.HEADER_TIMEOUT] += 1
        self._limiter.warning(
            "header_timeout", "webhook: closed a connection from %s: no complete request "
            "head within %ss (header_timeout)", peer, self.header_timeout,
        )  # fmt: skip

    def body_timed_out(self, peer: str | None) -> bytes:
        self.metrics.rejected[Rejected.BODY_TIMEOUT] += 1
        self._limiter.warning(
            "body_timeout", "webhook: a body from %s did not arrive within %ss "
            "(body_timeout), answered 408", peer, self.body_timeout,
        )  # fmt: skip
        return response(408, close=True)

    def failed(self, exc: BaseException) -> None:
        if not isinstance(exc, asyncio.CancelledError):
            log.error("webhook: answering an update failed: %r", exc, exc_info=exc)

    def access(self, peer: str | None, answer: bytes) -> None:
        if self._access_log is not None:
            self._access_log.info("%s %s", peer, answer.partition(b"\r\n")[0].decode("latin-1"))

    async def answer_later(self, update: Update, body: bytes) -> bytes:
        """The answer to an update that needs waiting: a shared dedup store's claim, or
        reply mode's handler."""
        processor = self.processor
        if not self.reply_mode:
            admission = await processor.submit(update, None, body)
            return self._ok if admission.taken else self._busy[self._refusal_turn()]
        waiter: asyncio.Future[TelegramMethod[Any] | None] = (
            asyncio.get_running_loop().create_future()
        )
        admission = await processor.submit(update, waiter, body)
        if admission is not Admission.ACCEPTED:
            return self._ok if admission.taken else self._busy[self._refusal_turn()]
        await asyncio.wait((waiter,), timeout=self.reply_timeout)
        if not waiter.done():
            waiter.cancel()  # the processor sends the method itself when it comes
            return self._ok
        method = waiter.result()
        if method is None:
            return self._ok
        defaults = self.bot.defaults
        reply = dumps(method.as_webhook_reply(defaults), defaults)
        return response(200, reply, content_type="application/json")

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
        ssl: SSLContext | None = None,
    ) -> str:
        """Listen on ``host:port`` (or on an already bound ``sock``), over TLS with
        ``ssl``; returns ``self.url``."""
        if self._runner is not None or self._server is not None:
            raise RuntimeError("the webhook server is already started")
        if self.http == "aiohttp":
            address = await self._start_aiohttp(host, port, sock, reuse_port, backlog, ssl)
        else:
            address = await self._start_tgfast(host, port, sock, reuse_port, backlog, ssl)
        await self.processor.start()
        bound_host, bound_port = address[:2]
        if ":" in bound_host:
            bound_host = f"[{bound_host}]"
        scheme = "http" if ssl is None else "https"
        self.url = f"{scheme}://{bound_host}:{bound_port}{self.path}"
        self._listening = True
        return self.url

    async def _start_tgfast(
        self, host: str, port: int, sock: socket.socket | None, reuse_port: bool | None,
        backlog: int, ssl: SSLContext | None,
    ) -> tuple[Any, ...]:  # fmt: skip
        intake = load("_intake")
        state = self._intake_state(intake)
        loop = asyncio.get_running_loop()
        factory = partial(intake.WebhookProtocol, state)
        if sock is not None:
            server = await loop.create_server(factory, sock=sock, backlog=backlog, ssl=ssl)
        else:
            server = await loop.create_server(
                factory, host, port, backlog=backlog, reuse_port=reuse_port, ssl=ssl
            )
        self._server, self._state = server, state
        address: tuple[Any, ...] = server.sockets[0].getsockname()
        return address

    def _intake_state(self, intake: ModuleType) -> Any:
        """The ``IntakeState`` of ``intake`` (``_intake`` or its twin) for this server."""
        allowed = self.addresses.allowed_ips
        state = intake.IntakeState(
            self, path=self.path.encode(), secret=self._secret,
            secret_refused=response(self._secret_refused),
            retry_after=tuple(wait.encode() for wait in self.retry_after_values),
            max_body_size=self.max_body_size,
            read_budget=self.read_budget, header_timeout=self.header_timeout,
            body_timeout=self.body_timeout, keepalive_timeout=self.keepalive_timeout,
            max_connections=default_max_connections() if self.max_connections is None
            else self.max_connections,
            reply_mode=self.reply_mode,
            allows=None if allowed is None else self.addresses.allows,
            access_log=self._access_log is not None,
        )  # fmt: skip
        return state

    async def _start_aiohttp(
        self, host: str, port: int, sock: socket.socket | None, reuse_port: bool | None,
        backlog: int, ssl: SSLContext | None,
    ) -> tuple[Any, ...]:  # fmt: skip
        runner = BoundedRunner(
            self.app,
            metrics=self.metrics,
            header_timeout=self.header_timeout,
            max_connections=self.max_connections,
            limiter=self._limiter,
            keepalive_timeout=self.keepalive_timeout,
            handle_signals=False,
            access_log=self._access_log,
            shutdown_timeout=_STOP_WAIT,
        )
        await runner.setup()
        try:
            site: web.BaseSite
            if sock is not None:
                site = web.SockSite(runner, sock, backlog=backlog, ssl_context=ssl)
            else:
                site = web.TCPSite(
                    runner, host, port, backlog=backlog, reuse_port=reuse_port, ssl_context=ssl
                )
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        address: tuple[Any, ...] = runner.addresses[0]
        return address

    async def drain(self) -> None:
        """Refuse new updates (503, ``/readyz`` 503) and wait for every update taken."""
        await self.processor.drain()

    async def abort(self) -> int:
        """Drop the updates in flight at once; returns how many were dropped."""
        return await self.processor.abort()

    async def stop(self) -> None:
        """Close the listener and the open connections (an answer being written gets a
        few seconds to finish)."""
        self._listening = False
        self._reclaimer.close()
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        connections = self._state.connections
        for connection in [c for c in connections if not c.busy]:
            connection.close()
        waited = 0.0
        while any(c.busy for c in connections) and waited < _STOP_WAIT:
            await asyncio.sleep(0.05)
            waited += 0.05
        for connection in list(connections):
            connection.close()
        self._state.close()  # no parked connection is left to resume
        try:  # Python 3.12+ waits for the connections, whose clients may not read
            await asyncio.wait_for(server.wait_closed(), _STOP_WAIT)
        except asyncio.TimeoutError:
            log.warning("webhook: connections still open %ss after stop", _STOP_WAIT)

    async def shutdown(self) -> None:
        """``drain`` then ``stop``: the graceful way out."""
        await self.drain()
        await self.stop()

    def __repr__(self) -> str:
        return (
            f"WebhookServer(url={self.url!r}, http={self.http!r}, "
            f"reply_mode={self.reply_mode}, {self.processor!r})"
        )
