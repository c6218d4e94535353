"""``RedisSeenUpdates``: the update ids recently taken, shared by every worker process.

Telegram redelivers an update it did not see acknowledged; behind a balancer the
redelivery may reach another worker. Each update id has one key: the claiming
process's token while the update is being handled, ``done`` once it was. Each process
keeps a lease key alive (renewed every third of ``lease``) while it has claims: a claim
whose owner's lease is gone belongs to a dead worker and is taken over, so an update
that worker had not finished is handled by the next delivery instead of being dropped
as a duplicate. One Lua script per claim makes the check and the take atomic.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

from ..fsm.storage.base import StorageError
from ..fsm.storage.redis import connect_redis, ttl_ms
from .seen import Claim
from .tasks import cancel_and_wait

__all__ = ["RedisSeenUpdates"]

log = logging.getLogger("tgfast.server")

_DONE = b"done"

# KEYS[1] the update's key; ARGV: our token, the claim's TTL (ms), the lease key prefix.
# Returns 0: new (now ours), 1: done, 2: busy (ours already, or a live worker's).
_CLAIM = """
local owner = redis.call('GET', KEYS[1])
if owner == 'done' then return 1 end
if owner and (owner == ARGV[1] or redis.call('EXISTS', ARGV[3] .. owner) == 1) then
  return 2
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 0
"""
_CLAIMS = (Claim.NEW, Claim.DONE, Claim.BUSY)


class RedisSeenUpdates:
    """``SeenUpdates`` in Redis: ``claim``, ``done`` and ``release`` as the protocol says.

    A key lives ``ttl`` (one hour by default). ``lease`` (10 s) bounds how long a dead
    worker's unfinished updates are refused as busy before another worker takes them.
    While Redis cannot be reached the methods raise ``StorageError``: the caller refuses
    the update (503) so that Telegram delivers it again later.
    """

    __slots__ = ("_claim", "_lease", "_lease_key", "_lease_prefix", "_owns", "_prefix",
                 "_redis", "_renewing", "_starting", "_token", "_ttl")  # fmt: skip

    def __init__(
        self,
        redis: Redis,
        *,
        key_prefix: str = "tgfast:seen",
        ttl: float | timedelta = 3600.0,
        lease: float | timedelta = 10.0,
    ) -> None:
        self._redis = redis
        self._prefix = key_prefix
        self._ttl = ttl_ms("ttl", ttl)
        self._lease = ttl_ms("lease", lease)
        self._token = secrets.token_hex(8)
        self._lease_prefix = f"{key_prefix}:lease:"
        self._lease_key = self._lease_prefix + self._token
        self._claim = redis.register_script(_CLAIM)
        self._renewing: asyncio.Task[None] | None = None
        self._starting = asyncio.Lock()  # concurrent first claims start one lease
        self._owns = False

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        key_prefix: str = "tgfast:seen",
        ttl: float | timedelta = 3600.0,
        lease: float | timedelta = 10.0,
        **redis_kwargs: Any,
    ) -> RedisSeenUpdates:
        """On a new fail-fast client for ``url`` (``connect_redis``), closed by ``close()``."""
        ttl_ms("ttl", ttl)  # refuse a bad TTL before making a client
        ttl_ms("lease", lease)
        client = connect_redis(url, **redis_kwargs)
        seen = cls(client, key_prefix=key_prefix, ttl=ttl, lease=lease)
        seen._owns = True
        return seen

    def _key(self, bot_id: int, update_id: int) -> str:
        return f"{self._prefix}:{bot_id}:{update_id}"

    async def claim(self, bot_id: int, update_id: int) -> Claim:
        try:
            if self._renewing is None or self._renewing.done():
                await self._start_lease()
            found = await self._claim(
                keys=[self._key(bot_id, update_id)],
                args=[self._token, self._ttl, self._lease_prefix],
            )
        except (RedisError, OSError) as exc:
            raise StorageError(f"seen updates: claim failed: {type(exc).__name__}: {exc}") from exc
        return _CLAIMS[int(found)]

    async def done(self, bot_id: int, update_ids: Sequence[int]) -> None:
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                for update_id in update_ids:
                    pipe.set(self._key(bot_id, update_id), _DONE, px=self._ttl)
                await pipe.execute()
        except (RedisError, OSError) as exc:
            raise StorageError(f"seen updates: done failed: {type(exc).__name__}: {exc}") from exc

    async def release(self, bot_id: int, update_id: int) -> None:
        try:
            await self._redis.delete(self._key(bot_id, update_id))
        except (RedisError, OSError) as exc:
            raise StorageError(
                f"seen updates: release failed: {type(exc).__name__}: {exc}"
            ) from exc

    async def _start_lease(self) -> None:
        """Our lease must exist before our first claim does; one renewal task for all."""
        async with self._starting:
            if self._renewing is None or self._renewing.done():
                await self._renew()
                self._renewing = asyncio.ensure_future(self._keep_lease())

    async def _renew(self) -> None:
        await self._redis.set(self._lease_key, self._token, px=self._lease)

    async def _keep_lease(self) -> None:
        """Renew the lease every third of it; a failed renewal is retried at the next."""
        while True:
            await asyncio.sleep(self._lease / 3000)
            try:
                await self._renew()
            except (RedisError, OSError) as exc:
                log.warning("seen updates: could not renew this worker's lease: %r", exc)

    async def close(self) -> None:
        """Stop the lease (its claims are done or released by now) and close the client
        when this object made it (``from_url``)."""
        renewing, self._renewing = self._renewing, None
        if renewing is not None:
            await cancel_and_wait(renewing)
            with contextlib.suppress(RedisError, OSError):
                await self._redis.delete(self._lease_key)
        if self._owns:
            await self._redis.aclose()

    def __repr__(self) -> str:
        return f"RedisSeenUpdates({self._redis!r}, key_prefix={self._prefix!r})"
