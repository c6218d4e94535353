"""``ServeConfig`` and ``serve``: one way to serve a bot, for the ``tgfast`` command and
for code.

uvicorn's shape: the command maps its options to a ``ServeConfig`` and calls
``serve(dispatcher, bot, config)``; code does the same and gets the same worker::

    config = ServeConfig("webhook", port=8081, secret_token=SECRET, redis="redis://...")
    run(serve(dp, bot, config), use_uvloop=config.uvloop)

Around ``serve_webhook``/``serve_polling``, ``serve`` assembles what one worker needs:
SIGTERM/SIGINT handling, the state shared through Redis (``redis``: FSM storage, seen
update ids, rate limits, and the poller's leader lock), a watch that drains this
worker when its supervisor dies, and the work done once per deployment (``setWebhook``,
dropping pending updates), by worker 0 on its first start only. Running N workers
is the command's (``--workers N``: it runs itself N times under a ``Supervisor``).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Literal

from .._logging import get_logger
from .addresses import IPNetwork
from .connections import DEFAULT_HEADER_TIMEOUT, DEFAULT_KEEPALIVE_TIMEOUT
from .intake import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_MAX_BODY_SIZE,
    DEFAULT_READ_BUDGET,
    DEFAULT_REPLY_TIMEOUT,
)
from .polling import DEFAULT_POLL_TIMEOUT
from .processing import DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_LAG, Concurrency
from .runner import Signals, serve_polling, serve_webhook
from .supervisor import WorkerIdentity, notify_ready, this_worker, watch_supervisor
from .webhook import HttpLayer

if TYPE_CHECKING:
    import logging

    from ..client import Bot
    from ..dispatcher import Dispatcher

__all__ = ["ServeConfig", "does_once_only_work", "serve"]

log = get_logger("tgfast.server")


@dataclasses.dataclass
class ServeConfig:
    """How one worker serves a bot: the options of ``tgfast webhook``/``polling``.

    ``mode`` picks webhook or long polling; the webhook fields go to ``WebhookServer``,
    ``poll_timeout`` to ``Poller``; ``concurrency`` and ``max_in_flight`` to either.
    ``redis`` (a URL) shares FSM state, seen update ids and (``rate_limit``) rate limits
    with the other workers. ``uvloop`` is for the caller's ``run``.
    """

    mode: Literal["webhook", "polling"] = "webhook"
    host: str = "127.0.0.1"
    port: int = 8080
    port_per_worker: bool = False
    webhook_url: str | None = None
    drop_pending_updates: bool = False
    path: str = "/webhook"
    secret_token: str | None = None
    reply_mode: bool = False
    reply_timeout: float = DEFAULT_REPLY_TIMEOUT
    max_body_size: int = DEFAULT_MAX_BODY_SIZE
    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    keepalive_timeout: float = DEFAULT_KEEPALIVE_TIMEOUT
    max_connections: int | None = None
    read_budget: int = DEFAULT_READ_BUDGET
    http: HttpLayer | None = None
    trusted_proxies: Iterable[str | IPNetwork] = ()
    allowed_ips: Iterable[str | IPNetwork] | None = None
    access_log: logging.Logger | None = None
    poll_timeout: float = DEFAULT_POLL_TIMEOUT
    concurrency: Concurrency = "chat"
    max_in_flight: int = DEFAULT_MAX_IN_FLIGHT
    max_lag: float | None = DEFAULT_MAX_LAG
    redis: str | None = None
    rate_limit: bool = True
    uvloop: bool | None = None

    def __post_init__(self) -> None:
        if self.mode not in ("webhook", "polling"):
            raise ValueError(f"mode must be 'webhook' or 'polling', got {self.mode!r}")

    def webhook_options(self) -> dict[str, Any]:
        """The ``WebhookServer`` (and processing) options of this config."""
        return {
            "path": self.path, "secret_token": self.secret_token,
            "reply_mode": self.reply_mode, "reply_timeout": self.reply_timeout,
            "max_body_size": self.max_body_size, "header_timeout": self.header_timeout,
            "body_timeout": self.body_timeout, "keepalive_timeout": self.keepalive_timeout,
            "max_connections": self.max_connections, "read_budget": self.read_budget,
            "http": self.http, "concurrency": self.concurrency,
            "max_in_flight": self.max_in_flight, "max_lag": self.max_lag,
            "access_log": self.access_log,
            "trusted_proxies": self.trusted_proxies, "allowed_ips": self.allowed_ips,
        }  # fmt: skip

    def polling_options(self) -> dict[str, Any]:
        """The ``Poller`` (and processing) options of this config."""
        return {
            "timeout": self.poll_timeout, "concurrency": self.concurrency,
            "max_in_flight": self.max_in_flight,
        }  # fmt: skip


def does_once_only_work(worker: WorkerIdentity | None) -> bool:
    """Whether this process registers the webhook and drops pending updates.

    Worker 0 does it, on its first start: setWebhook N times would be N calls for one
    setting, and a restarted worker dropping pending updates would lose the ones that
    arrived meanwhile. The supervisor itself could not: it does not import the
    application, whose handlers say which update kinds to ask for.
    """
    return worker is None or (worker.id == 0 and not worker.restarted)


async def serve(dispatcher: Dispatcher, bot: Bot, config: ServeConfig) -> int:
    """Serve ``dispatcher`` for ``bot`` as ``config`` says until SIGTERM/SIGINT, then
    drain; the exit status (0 clean, 1 forced). See the module docstring."""
    worker = this_worker()
    once = does_once_only_work(worker)
    if config.mode == "polling":
        options = config.polling_options()
        options["drop_pending_updates"] = config.drop_pending_updates and once
        async with _worker_context(config, dispatcher, bot, options, worker) as signals:
            return await serve_polling(
                dispatcher, bot, signals=signals, on_ready=lambda poller: notify_ready(),
                **options,
            )  # fmt: skip
    options = config.webhook_options()
    port = config.port
    if worker is not None and config.port_per_worker:
        port += worker.id
    # several workers share the port unless each has its own
    reuse_port = worker is not None and worker.count > 1 and not config.port_per_worker
    async with _worker_context(config, dispatcher, bot, options, worker) as signals:
        return await serve_webhook(
            dispatcher, bot, host=config.host, port=port, reuse_port=reuse_port or None,
            webhook_url=config.webhook_url if once else None,
            drop_pending_updates=config.drop_pending_updates and once,
            signals=signals, on_ready=lambda server: notify_ready(), **options,
        )  # fmt: skip


@asynccontextmanager
async def _worker_context(
    config: ServeConfig,
    dispatcher: Dispatcher,
    bot: Bot,
    options: dict[str, Any],
    worker: WorkerIdentity | None,
) -> AsyncIterator[Signals]:
    """Signals, the shared Redis state (``redis``), and, under a supervisor, a watch
    that drains this worker if the supervisor dies."""
    signals = Signals()
    signals.install()
    watch: asyncio.Future[None] | None = None
    if worker is not None:
        watch = asyncio.ensure_future(
            watch_supervisor(lambda: signals.request_stop("the supervisor is gone"))
        )
    shared = None
    try:
        if config.redis:
            from ..redis import RedisShared

            shared = RedisShared.from_url(config.redis, bot_id=bot.id, rate_limit=config.rate_limit)
            await shared.check()
            shared.install(dispatcher, bot)
            options["seen"] = shared.seen
            if config.mode == "polling":
                # one poller per bot at a time, whatever the workers (or deployments)
                from ..redis import RedisLeaderLock, poller_key

                options["leader"] = RedisLeaderLock(shared.wire, poller_key(bot.id))
            log.info("sharing FSM state, seen update ids%s%s through %s",
                     " and rate limits" if shared.rate_limiter else "",
                     ", one poller at a time" if "leader" in options else "",
                     shared.description)  # fmt: skip
        yield signals
    finally:
        if watch is not None:
            watch.cancel()
        signals.remove()
        if shared is not None:
            await shared.close()
