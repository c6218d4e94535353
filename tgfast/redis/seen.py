"""``RedisSeenUpdates``: the update ids recently taken, shared by every worker process.

Telegram redelivers an update it did not see acknowledged; behind a balancer the
redelivery may reach another worker. Each update id has one key: the claiming
process's token while the update is being handled, ``done`` once it was. Each process
keeps a lease key alive (renewed every third of ``lease``) while it has claims: a claim
whose owner's lease is gone belongs to a dead worker and is taken over, so an update
that worker had not finished is handled by the next delivery instead of being dropped
as a duplicate. One Lua script per claim makes the check and the take atomic.

It is a ``Journal`` too: a claim made with the update's body keeps it in the claiming
process's hash (``<prefix>:owned:<token>``) until the update is done or released. Every
process with claims is listed in ``<prefix>:workers``; at each lease renewal a process
that ``adopt``-s a bot looks for listed processes whose lease is gone and takes their
unfinished updates of that bot over, body and claim, in one script: an update a dead
worker acknowledged is handled by a live one instead of being lost.

The commands go through a ``RespClient`` (see ``tgfast.redis.resp_client`` for its
figures against redis-py): the one given, or one made ``like`` the redis-py client given.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from ..server.seen import Claim
from ..server.tasks import cancel_and_wait
from .connect import AnyRedis, Script, connect_redis, ttl_ms, wire_for
from .errors import RedisUnavailable
from .resp_client import Arg, RespClient

__all__ = ["RedisSeenUpdates"]

log = logging.getLogger("tgfast.server")

_DONE = b"done"

# KEYS[1] the update's key; ARGV: our token, the claim's TTL (ms), the lease key prefix,
# and with a body: our owned hash, the update's field in it, the body.
# Returns 0: new (now ours), 1: done, 2: busy (ours already, or a live worker's).
_CLAIM = """
local owner = redis.call('GET', KEYS[1])
if owner == 'done' then return 1 end
if owner and (owner == ARGV[1] or redis.call('EXISTS', ARGV[3] .. owner) == 1) then
  return 2
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if #ARGV > 3 then
  redis.call('HSET', ARGV[4], ARGV[5], ARGV[6])
  redis.call('PEXPIRE', ARGV[4], ARGV[2])
end
return 0
"""
# ARGV: the key prefix, our token, the claims' TTL (ms), then the bot ids we adopt for.
# Takes over the unfinished updates of those bots from every listed process whose lease
# is gone; returns them as field, body, field, body, ... (field: "<bot id>:<update id>").
_ADOPT = """
local prefix, mine, ttl = ARGV[1], ARGV[2], ARGV[3]
local bots = {}
for i = 4, #ARGV do bots[ARGV[i]] = true end
local workers = prefix .. ':workers'
local ours = prefix .. ':owned:' .. mine
local out = {}
for _, token in ipairs(redis.call('SMEMBERS', workers)) do
  if token ~= mine and redis.call('EXISTS', prefix .. ':lease:' .. token) == 0 then
    local owned = prefix .. ':owned:' .. token
    local entries = redis.call('HGETALL', owned)
    for i = 1, #entries, 2 do
      local field, body = entries[i], entries[i + 1]
      if bots[string.match(field, '^[^:]+')] then
        local key = prefix .. ':' .. field
        if redis.call('GET', key) == token then
          redis.call('SET', key, mine, 'PX', ttl)
          redis.call('HSET', ours, field, body)
          out[#out + 1] = field
          out[#out + 1] = body
        end
        redis.call('HDEL', owned, field)
      end
    end
    if redis.call('EXISTS', owned) == 0 then redis.call('SREM', workers, token) end
  end
end
if #out > 0 then redis.call('PEXPIRE', ours, ttl) end
return out
"""
_CLAIMS = (Claim.NEW, Claim.DONE, Claim.BUSY)
_CLAIM_SCRIPT = Script(_CLAIM)
_ADOPT_SCRIPT = Script(_ADOPT)


def _checked(replies: list[Any]) -> None:
    for reply in replies:
        if isinstance(reply, RedisUnavailable):
            raise reply


class RedisSeenUpdates:
    """``SeenUpdates`` in Redis: ``claim``, ``done`` and ``release`` as the protocol says.

    A key lives ``ttl`` (one hour by default). ``lease`` (10 s) bounds how long a dead
    worker's unfinished updates are refused as busy before another worker takes them.
    While Redis cannot be reached the methods raise ``RedisUnavailable``: the caller
    refuses the update (503) so that Telegram delivers it again later. ``redis`` is a
    ``RespClient`` to share (not closed here) or a redis-py client to copy settings from.
    """

    __slots__ = ("_adopters", "_lease", "_lease_key", "_lease_prefix", "_owned_key", "_owns",
                 "_owns_wire", "_prefix", "_redis", "_renewing", "_starting", "_token", "_ttl",
                 "_wire", "_workers_key")  # fmt: skip

    def __init__(
        self,
        redis: AnyRedis,
        *,
        key_prefix: str = "tgfast:seen",
        ttl: float | timedelta = 3600.0,
        lease: float | timedelta = 10.0,
    ) -> None:
        self._redis = redis
        self._wire, self._owns_wire = wire_for(redis)
        self._prefix = key_prefix
        self._ttl = ttl_ms("ttl", ttl)
        self._lease = ttl_ms("lease", lease)
        self._token = secrets.token_hex(8)
        self._lease_prefix = f"{key_prefix}:lease:"
        self._lease_key = self._lease_prefix + self._token
        self._owned_key = f"{key_prefix}:owned:{self._token}"
        self._workers_key = f"{key_prefix}:workers"
        self._adopters: dict[int, Callable[[list[bytes]], None]] = {}
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

    async def claim(self, bot_id: int, update_id: int, body: bytes | None = None) -> Claim:
        args: list[Arg] = [self._token, self._ttl, self._lease_prefix]
        if body is not None:
            args += (self._owned_key, f"{bot_id}:{update_id}", body)
        try:
            if self._renewing is None or self._renewing.done():
                await self._start_lease()
            found = await _CLAIM_SCRIPT(self._wire, (self._key(bot_id, update_id),), args)
        except RedisUnavailable as exc:
            raise RedisUnavailable(f"seen updates: claim failed: {exc}") from exc
        return _CLAIMS[int(found)]

    async def done(self, bot_id: int, update_ids: Sequence[int]) -> None:
        if not update_ids:
            return
        commands: list[tuple[Arg, ...]] = [
            ("SET", self._key(bot_id, update_id), _DONE, "PX", self._ttl)
            for update_id in update_ids
        ]
        commands.append(("HDEL", self._owned_key, *(f"{bot_id}:{u}" for u in update_ids)))
        try:
            _checked(await self._wire.pipeline(commands))
        except RedisUnavailable as exc:
            raise RedisUnavailable(f"seen updates: done failed: {exc}") from exc

    async def release(self, bot_id: int, update_id: int) -> None:
        try:
            _checked(await self._wire.pipeline((
                ("DEL", self._key(bot_id, update_id)),
                ("HDEL", self._owned_key, f"{bot_id}:{update_id}"),
            )))  # fmt: skip
        except RedisUnavailable as exc:
            raise RedisUnavailable(f"seen updates: release failed: {exc}") from exc

    async def adopt(self, bot_id: int, take: Callable[[list[bytes]], None]) -> None:
        """Start taking over ``bot_id``'s unfinished updates from dead workers: now, and
        at every lease renewal (a third of ``lease``) while this object is open."""
        self._adopters[bot_id] = take
        try:
            if self._renewing is None or self._renewing.done():
                await self._start_lease()
            await self._take_over()
        except RedisUnavailable as exc:  # the renewals try again
            log.warning("seen updates: could not look for a dead worker's updates: %r", exc)

    async def _start_lease(self) -> None:
        """Our lease must exist before our first claim does; one renewal task for all."""
        async with self._starting:
            if self._renewing is None or self._renewing.done():
                await self._renew()
                self._renewing = asyncio.ensure_future(self._keep_lease())

    async def _renew(self) -> None:
        _checked(await self._wire.pipeline((
            ("SET", self._lease_key, self._token, "PX", self._lease),
            ("SADD", self._workers_key, self._token),
        )))  # fmt: skip

    async def _keep_lease(self) -> None:
        """Renew the lease every third of it and take over what dead workers left; a
        failure is logged and tried again at the next renewal."""
        while True:
            await asyncio.sleep(self._lease / 3000)
            try:
                await self._renew()
                await self._take_over()
            except RedisUnavailable as exc:
                log.warning("seen updates: could not renew this worker's lease: %r", exc)

    async def _take_over(self) -> None:
        if not self._adopters:
            return
        found = await _ADOPT_SCRIPT(
            self._wire, (), (self._prefix, self._token, self._ttl, *self._adopters)
        )
        taken: dict[int, list[bytes]] = {}
        for field, body in zip(found[::2], found[1::2], strict=True):
            taken.setdefault(int(field.partition(b":")[0]), []).append(body)
        for bot_id, bodies in taken.items():
            log.warning("seen updates: took over %d updates of bot %d that a dead worker "
                        "acknowledged and never finished", len(bodies), bot_id)  # fmt: skip
            self._adopters[bot_id](bodies)

    async def close(self) -> None:
        """Stop the lease (its claims are done or released by now, or left for a live
        worker to take over) and close the connections this object made (a
        ``RespClient`` given stays open)."""
        renewing, self._renewing = self._renewing, None
        if renewing is not None:
            await cancel_and_wait(renewing)
            with contextlib.suppress(RedisUnavailable):
                await self._wire.execute("DEL", self._lease_key)
        if self._owns_wire:
            await self._wire.close()
        if self._owns and not isinstance(self._redis, RespClient):
            await self._redis.aclose()

    def __repr__(self) -> str:
        return f"RedisSeenUpdates({self._redis!r}, key_prefix={self._prefix!r})"
