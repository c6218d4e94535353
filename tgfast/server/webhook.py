"""``WebhookServer``: the aiohttp.web application that receives Telegram's POSTs.

One request, one update; the update path is ``UpdateIntake``'s (see ``intake`` for
what is answered when), shared with the aiogram-shaped handlers of ``tgfast.webhook``.
This module adds what a stand-alone server needs around it: its own application with
health, readiness and metrics paths (404 for any other, 405 for a wrong method on the
update path), and a runner that bounds slow, idle and surplus connections
(``connections``).
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal

from aiohttp import web

from .addresses import AddressPolicy, IPNetwork
from .connections import DEFAULT_HEADER_TIMEOUT, DEFAULT_KEEPALIVE_TIMEOUT, BoundedRunner
from .intake import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_MAX_BODY_SIZE,
    DEFAULT_READ_BUDGET,
    DEFAULT_REPLY_TIMEOUT,
    SECRET_HEADER,
    UpdateIntake,
    valid_secret_token,
)
from .metrics import CONTENT_TYPE, Metrics, Rejected
from .processing import DEFAULT_MAX_IN_FLIGHT, Concurrency, UpdateProcessor
from .seen import SeenUpdates

if TYPE_CHECKING:
    from ..client import Bot
    from ..dispatcher import Dispatcher

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


class WebhookServer(UpdateIntake):
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
        processor = processor or UpdateProcessor(
            dispatcher, bot, concurrency=concurrency, max_in_flight=max_in_flight,
            seen=seen, metrics=metrics,
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
        self.header_timeout = header_timeout
        self.keepalive_timeout = keepalive_timeout
        self.max_connections = max_connections
        """Open connections at most (None: ``default_max_connections()``)."""
        self._access_log = access_log
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

    # -- other paths -------------------------------------------------------------------

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
