"""What the workers of one bot share, made from one Redis URL: ``--redis URL``.

Each worker process keeps three things that are wrong once there are several of them:
the FSM storage (a conversation whose next message reaches another worker would start
over), the recently seen update ids (a redelivery reaching another worker would be
handled twice) and the rate limiter's buckets (N workers would send N times Telegram's
limits). ``RedisShared`` moves all three to one Redis, on one connection (one
``RespClient``, ``shared.wire``, that a ``RedisLeaderLock`` may share too)::

    shared = RedisShared.from_url("redis://127.0.0.1:6379/0", bot_id=bot.id)
    shared.install(dp, bot)              # the FSM storage and the bot's rate limiter
    await shared.check()                 # fail now, clearly, on a wrong URL
    try:
        await serve_webhook(dp, bot, seen=shared.seen, ...)
    finally:
        await shared.close()
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from .._logging import get_logger
from .connect import AnyRedis, client_for_url, close_client, redacted_url, wire_for
from .errors import RedisUnavailable
from .ratelimit import RedisRateLimiter
from .seen import RedisSeenUpdates
from .storage import RedisStorage

if TYPE_CHECKING:
    from ..client import Bot
    from ..dispatcher import Dispatcher

__all__ = [
    "DEFAULT_SEEN_LEASE",
    "REDIS_URL_ENV",
    "SEEN_LEASE_ENV",
    "RedisShared",
]

log = get_logger("tgfast.server")

REDIS_URL_ENV = "TGFAST_REDIS_URL"
"""Where ``--redis`` is read from when it is not given (it may carry a password)."""
SEEN_LEASE_ENV = "TGFAST_SEEN_LEASE"
"""Seconds; overrides ``DEFAULT_SEEN_LEASE`` for the workers ``--redis`` sets up."""
DEFAULT_SEEN_LEASE = 10.0
"""Seconds a dead worker's unfinished updates are refused as busy before another worker
takes them over (``RedisSeenUpdates``' lease)."""


class RedisShared:
    """The FSM ``storage``, the ``seen`` update ids and (unless ``rate_limit`` is off)
    the ``rate_limiter`` of bot ``bot_id``, all on ``redis``.

    The keys are those of the parts' own defaults (``fsm:...``, ``tgfast:seen:...``,
    ``tgfast:ratelimit:...``) unless ``key_prefix`` is given (``PREFIX:fsm:...``,
    ``PREFIX:seen:...``, ``PREFIX:ratelimit:...``). All three send through ``wire``:
    the ``RespClient`` given, or one made like the redis-py client given. ``close()``
    closes what this object made.
    """

    def __init__(
        self,
        redis: AnyRedis,
        *,
        bot_id: int,
        rate_limit: bool = True,
        key_prefix: str | None = None,
        seen_lease: float | None = None,
        description: str = "Redis",
    ) -> None:
        self.redis = redis
        self.wire, self._owns_wire = wire_for(redis)
        self.bot_id = int(bot_id)
        self.description = description
        self.storage = RedisStorage(self.wire, key_prefix=_keys(key_prefix, "fsm", "fsm"))
        if seen_lease is None:
            seen_lease = float(os.environ.get(SEEN_LEASE_ENV) or DEFAULT_SEEN_LEASE)
        self.seen = RedisSeenUpdates(
            self.wire, key_prefix=_keys(key_prefix, "seen", "tgfast:seen"), lease=seen_lease
        )
        self.rate_limiter: RedisRateLimiter | None = None
        if rate_limit:
            self.rate_limiter = RedisRateLimiter(
                self.wire, bot_id=self.bot_id,
                key_prefix=_keys(key_prefix, "ratelimit", "tgfast:ratelimit"),
            )  # fmt: skip
        self._owns = False

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        bot_id: int,
        rate_limit: bool = True,
        key_prefix: str | None = None,
        seen_lease: float | None = None,
        **redis_kwargs: Any,
    ) -> RedisShared:
        """On a new fail-fast client for ``url`` (``client_for_url``: redis-py is not
        needed; ``redis+sentinel://`` follows a failover), closed by ``close()``."""
        shared = cls(
            client_for_url(url, what="RedisShared.from_url", **redis_kwargs), bot_id=bot_id, rate_limit=rate_limit,
            key_prefix=key_prefix, seen_lease=seen_lease,
            description=f"Redis at {redacted_url(url)}",
        )  # fmt: skip
        shared._owns = True
        return shared

    def install(self, dispatcher: Dispatcher, bot: Bot | None = None) -> None:
        """Give ``dispatcher`` the shared FSM storage and ``bot`` the shared rate limiter.

        A storage the dispatcher was given on purpose is kept (it may be shared
        already, or per worker on purpose): only the default ``MemoryStorage`` is
        replaced. A bot without a rate limiter keeps none.
        """
        if dispatcher.storage_is_default:
            dispatcher.fsm.storage = self.storage
        else:
            log.info("--redis: keeping the dispatcher's own FSM storage (%s)",
                     type(dispatcher.storage).__name__)  # fmt: skip
        if bot is not None and bot.rate_limiter is not None:
            if bot.id != self.bot_id:
                raise ValueError(f"this RedisShared is for bot {self.bot_id}, not {bot.id}")
            bot.rate_limiter = self.rate_limiter

    async def check(self) -> None:
        """PING the server: a wrong URL or a Redis that is down fails here, clearly,
        instead of as a 503 on every update."""
        try:
            await self.wire.execute("PING")
        except RedisUnavailable as exc:
            raise RedisUnavailable(f"cannot reach {self.description}: {exc}") from exc

    async def close(self) -> None:
        """Finish the rate limiter's writes, let go of this worker's seen-updates lease,
        then close the clients that are ours."""
        if self.rate_limiter is not None:
            await self.rate_limiter.close()
        await self.seen.close()
        if self._owns_wire:
            await self.wire.close()
        if self._owns:
            await close_client(self.redis)

    def __repr__(self) -> str:
        limits = "shared" if self.rate_limiter is not None else "off"
        return f"RedisShared({self.description}, bot_id={self.bot_id}, rate limits {limits})"


def _keys(prefix: str | None, part: str, default: str) -> str:
    return default if prefix is None else f"{prefix}:{part}"
