"""``RedisSeenUpdates``: the update ids recently taken, shared by every worker process.

Telegram redelivers an update it did not see acknowledged; behind a balancer the
redelivery may reach another worker. One ``SET key 1 NX PX ttl`` per update tells
each worker, atomically, whether the update is new (claim it) or already taken.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

from ..fsm.storage.base import StorageError
from ..fsm.storage.redis import connect_redis, ttl_ms

__all__ = ["RedisSeenUpdates"]


class RedisSeenUpdates:
    """``claim(bot_id, update_id)`` is True the first time an update id is seen (it is
    then marked for ``ttl``, one hour by default) and False for a redelivery;
    ``release`` forgets a claim (the update was refused with 503 and will come again).

    While Redis cannot be reached both raise ``StorageError``: the caller should
    refuse the update (503) so that Telegram delivers it again later.
    """

    __slots__ = ("_owns", "_prefix", "_redis", "_ttl")

    def __init__(
        self,
        redis: Redis,
        *,
        key_prefix: str = "tgfast:seen",
        ttl: float | timedelta = 3600.0,
    ) -> None:
        self._redis = redis
        self._prefix = key_prefix
        self._ttl = ttl_ms("ttl", ttl)
        self._owns = False

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        key_prefix: str = "tgfast:seen",
        ttl: float | timedelta = 3600.0,
        **redis_kwargs: Any,
    ) -> RedisSeenUpdates:
        """On a new fail-fast client for ``url`` (``connect_redis``), closed by ``close()``."""
        ttl_ms("ttl", ttl)  # refuse a bad TTL before making a client
        seen = cls(connect_redis(url, **redis_kwargs), key_prefix=key_prefix, ttl=ttl)
        seen._owns = True
        return seen

    async def claim(self, bot_id: int, update_id: int) -> bool:
        try:
            fresh = await self._redis.set(
                f"{self._prefix}:{bot_id}:{update_id}", b"1", nx=True, px=self._ttl
            )
        except (RedisError, OSError) as exc:
            raise StorageError(f"seen updates: claim failed: {type(exc).__name__}: {exc}") from exc
        return bool(fresh)

    async def release(self, bot_id: int, update_id: int) -> None:
        try:
            await self._redis.delete(f"{self._prefix}:{bot_id}:{update_id}")
        except (RedisError, OSError) as exc:
            raise StorageError(
                f"seen updates: release failed: {type(exc).__name__}: {exc}"
            ) from exc

    async def close(self) -> None:
        """Close the client when this object made it (``from_url``)."""
        if self._owns:
            await self._redis.aclose()

    def __repr__(self) -> str:
        return f"RedisSeenUpdates({self._redis!r}, key_prefix={self._prefix!r})"
