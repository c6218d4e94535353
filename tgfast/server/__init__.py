"""Serving a bot: the webhook server, long polling, and the processing model they share.

```py
from tgfast.server import WebhookServer, serve_webhook, serve_polling
```

``UpdateProcessor`` keeps a chat's updates in order, bounds the work in flight and
drops redeliveries (``SeenUpdates``); ``WebhookServer`` and ``Poller`` feed it;
``serve_webhook``/``serve_polling`` run either until SIGTERM/SIGINT and drain;
``serve(dispatcher, bot, ServeConfig(...))`` adds what a worker of the ``tgfast``
command has around them (shared Redis state, once-only work), for code too;
``Supervisor`` runs several worker processes of one command (``--workers N``).
What several workers share lives in Redis: ``tgfast.redis.RedisShared`` (the
``tgfast.redis`` package holds every Redis part).
"""

from __future__ import annotations

from ..backoff import Backoff
from .addresses import TELEGRAM_NETWORKS, AddressPolicy
from .keys import update_key
from .metrics import Metrics, Rejected
from .polling import DEFAULT_POLL_TIMEOUT, POLL_BACKOFF, Poller
from .processing import (
    CONCURRENCY_MODES,
    DEFAULT_MAX_IN_FLIGHT,
    Admission,
    Concurrency,
    UpdateProcessor,
)
from .runner import Signals, run, serve_polling, serve_webhook
from .seen import DEFAULT_SEEN_SIZE, Claim, MemorySeenUpdates, SeenUpdates
from .serve import ServeConfig, serve
from .supervisor import (
    RESTART_BACKOFF,
    Supervisor,
    WorkerIdentity,
    notify_ready,
    this_worker,
)
from .webhook import (
    DEFAULT_MAX_BODY_SIZE,
    DEFAULT_REPLY_TIMEOUT,
    SECRET_HEADER,
    WebhookServer,
)

__all__ = [
    "CONCURRENCY_MODES",
    "DEFAULT_MAX_BODY_SIZE",
    "DEFAULT_MAX_IN_FLIGHT",
    "DEFAULT_POLL_TIMEOUT",
    "DEFAULT_REPLY_TIMEOUT",
    "DEFAULT_SEEN_SIZE",
    "POLL_BACKOFF",
    "RESTART_BACKOFF",
    "SECRET_HEADER",
    "TELEGRAM_NETWORKS",
    "AddressPolicy",
    "Admission",
    "Backoff",
    "Claim",
    "Concurrency",
    "MemorySeenUpdates",
    "Metrics",
    "Poller",
    "Rejected",
    "SeenUpdates",
    "ServeConfig",
    "Signals",
    "Supervisor",
    "UpdateProcessor",
    "WebhookServer",
    "WorkerIdentity",
    "notify_ready",
    "run",
    "serve",
    "serve_polling",
    "serve_webhook",
    "this_worker",
    "update_key",
]
