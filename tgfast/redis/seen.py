"""``RedisSeenUpdates``: the update ids recently taken, shared by every worker process.

Telegram redelivers an update it did not see acknowledged; behind a balancer the
redelivery may reach another worker. Each update id has one key: the claiming
process's token while the update is being handled, ``done`` once it was. Each process
keeps a lease key alive (renewed every third of ``lease``) while it has claims: a claim
whose owner's lease has been gone for a whole lease belongs to a dead worker and is
taken over (a lease that expired while Redis was away is renewed before that), so an update
that worker had not finished is handled by the next delivery instead of being dropped
as a duplicate. One Lua script per claim makes the check and the take atomic.

It is a ``Journal`` too: a claim made with the update's body keeps it in the claiming
process's hash (``<prefix>:owned:<token>``) until the update is done or released. Every
process with claims is listed in ``<prefix>:workers``; at each lease renewal a process
that ``adopt``-s a bot looks for listed processes dead in that sense and takes their
unfinished updates of that bot over, body and claim, in one script: an update a dead
worker acknowledged is handled by a live one instead of being lost.

Done marks survive a store outage: a mark (or a release) that cannot be written is
kept in the process and sent again with every lease renewal until it is. The renewal
also answers with the fields of this process's hash; one that no claim of this process
holds any more at the next renewal is an update finished here whose done mark Redis
lost (a failover to a replica that had not received it): it is marked done then (and a
redelivery of it meanwhile is answered as done, not busy), and a
clean ``close`` marks every such leftover done before it gives up its lease, so a
stopped worker never leaves its own finished updates to be taken over.

The commands go through a ``RespClient`` (see ``tgfast.redis.resp_client`` for its
figures against redis-py): the one given, or one made ``like`` the redis-py client given.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from .._logging import get_logger
from ..server.seen import Claim
from ..tasks import cancel_and_wait
from .connect import AnyRedis, Script, client_for_url, close_client, ttl_ms, wire_for
from .errors import RedisUnavailable
from .resp_client import Arg

__all__ = ["RedisSeenUpdates"]

log = get_logger("tgfast.server")

_DONE = b"done"

# A worker is dead once its lease has been gone for a whole lease: the first script to
# find it gone starts the count (a "suspect" key living two leases, deleted by the
# worker's next renewal). A lease that merely expired while Redis was away (a restart
# or failover longer than the lease brings every lease back expired) is renewed within
# a third of a lease by its live worker, before anyone takes its updates over.
_DEAD = """
local function dead(prefix, token, lease)
  if redis.call('EXISTS', prefix .. ':lease:' .. token) == 1 then return false end
  local suspect = prefix .. ':suspect:' .. token
  local left = redis.call('PTTL', suspect)
  if left < 0 then
    redis.call('SET', suspect, '1', 'PX', 2 * lease)
    return false
  end
  return left <= lease
end
"""
# KEYS[1] the update's key; ARGV: our token, the claim's TTL (ms), the key prefix, the
# lease (ms), and with a body: our owned hash, the update's field in it, the body.
# Returns 0: new (now ours), 1: done, 2: busy (a live worker's), 3: ours already.
_CLAIM = """
local owner = redis.call('GET', KEYS[1])
if owner == 'done' then return 1 end
if owner == ARGV[1] then return 3 end
if owner and not dead(ARGV[3], owner, tonumber(ARGV[4])) then return 2 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if #ARGV > 4 then
  redis.call('HSET', ARGV[5], ARGV[6], ARGV[7])
  redis.call('PEXPIRE', ARGV[5], ARGV[2])
end
return 0
"""
# ARGV: the key prefix, our token, the claims' TTL (ms), the lease (ms), then the bot ids
# we adopt for. Takes over the unfinished updates of those bots from every listed
# process that is dead; returns them as field, body, field, body, ... (field: "<bot
# id>:<update id>").
_ADOPT = """
local prefix, mine, ttl, lease = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local bots = {}
for i = 5, #ARGV do bots[ARGV[i]] = true end
local workers = prefix .. ':workers'
local ours = prefix .. ':owned:' .. mine
local out = {}
for _, token in ipairs(redis.call('SMEMBERS', workers)) do
  if token ~= mine and dead(prefix, token, lease) then
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
    if redis.call('EXISTS', owned) == 0 then
      redis.call('SREM', workers, token)
      redis.call('DEL', prefix .. ':suspect:' .. token)
    end
  end
end
if #out > 0 then redis.call('PEXPIRE', ours, ttl) end
return out
"""
# ARGV: the key prefix, our token, the TTL (ms), the lease (ms; 0: retire), then how many
# fields of each list follow, then the lists: done, released, stale (finished here; their
# mark was lost), live (with a lease of 0: every other field of our hash is stale).
# Returns how many stale claims were ours still (marked done now), then, when renewing,
# our hash's fields; retiring gives up the lease (and our place in the workers' set once
# our hash is empty).
_SYNC = """
local prefix, mine, ttl, lease = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local owned = prefix .. ':owned:' .. mine
local at, marked = 9, 0
local function each(n, fn)
  for i = at, at + n - 1 do fn(ARGV[i], prefix .. ':' .. ARGV[i]) end
  at = at + n
end
local function stale(field, key)
  if redis.call('GET', key) == mine then
    redis.call('SET', key, 'done', 'PX', ttl)
    marked = marked + 1
  end
  redis.call('HDEL', owned, field)
end
each(tonumber(ARGV[5]), function(field, key)
  redis.call('SET', key, 'done', 'PX', ttl)
  redis.call('HDEL', owned, field)
end)
each(tonumber(ARGV[6]), function(field, key)
  if redis.call('GET', key) == mine then redis.call('DEL', key) end
  redis.call('HDEL', owned, field)
end)
each(tonumber(ARGV[7]), stale)
local lease_key = prefix .. ':lease:' .. mine
if lease > 0 then
  redis.call('SET', lease_key, mine, 'PX', lease)
  redis.call('DEL', prefix .. ':suspect:' .. mine)
  redis.call('SADD', prefix .. ':workers', mine)
  local out = {marked}
  for _, field in ipairs(redis.call('HKEYS', owned)) do out[#out + 1] = field end
  return out
end
local live = {}
each(tonumber(ARGV[8]), function(field) live[field] = true end)
for _, field in ipairs(redis.call('HKEYS', owned)) do
  if not live[field] then stale(field, prefix .. ':' .. field) end
end
redis.call('DEL', lease_key)
if redis.call('EXISTS', owned) == 0 then redis.call('SREM', prefix .. ':workers', mine) end
return {marked}
"""
_CLAIMS = (Claim.NEW, Claim.DONE, Claim.BUSY, Claim.BUSY)
_CLAIM_SCRIPT = Script(_DEAD + _CLAIM)
_ADOPT_SCRIPT = Script(_DEAD + _ADOPT)
_SYNC_SCRIPT = Script(_SYNC)
_RETIRE_RETRY = 0.25  # seconds between tries of a retirement while Redis is away


def _checked(replies: list[Any]) -> None:
    for reply in replies:
        if isinstance(reply, RedisUnavailable):
            raise reply


class RedisSeenUpdates:
    """``SeenUpdates`` in Redis: ``claim``, ``done`` and ``release`` as the protocol says.

    A key lives ``ttl`` (one hour by default). ``lease`` (10 s) bounds how long a dead
    worker's unfinished updates are refused as busy before another worker takes them
    (one to two leases after its last renewal); every worker must use the same.
    While Redis cannot be reached the methods raise ``RedisUnavailable``: the caller
    refuses the update (503) so that Telegram delivers it again later. ``redis`` is a
    ``RespClient`` to share (not closed here) or a redis-py client to copy settings from.
    """

    __slots__ = ("_adopters", "_candidates", "_lease", "_lease_key", "_lease_prefix", "_live",
                 "_owned_key", "_owns", "_owns_wire", "_prefix", "_redis", "_renewing",
                 "_starting", "_token", "_ttl", "_unmarked", "_unreleased", "_wire",
                 "_workers_key")  # fmt: skip

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
        # fields ("<bot id>:<update id>"): claimed here and not finished; finished, the
        # done mark not yet written; abandoned, the release not yet written; in our hash
        # at the last renewal while not claimed here (marked done at the next one)
        self._live: set[str] = set()
        self._unmarked: set[str] = set()
        self._unreleased: set[str] = set()
        self._candidates: set[str] = set()

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
        """On a new fail-fast client for ``url`` (``client_for_url``), closed by ``close()``."""
        ttl_ms("ttl", ttl)  # refuse a bad TTL before making a client
        ttl_ms("lease", lease)
        client = client_for_url(url, what="RedisSeenUpdates.from_url", **redis_kwargs)
        seen = cls(client, key_prefix=key_prefix, ttl=ttl, lease=lease)
        seen._owns = True
        return seen

    def _key(self, bot_id: int, update_id: int) -> str:
        return f"{self._prefix}:{bot_id}:{update_id}"

    async def claim(self, bot_id: int, update_id: int, body: bytes | None = None) -> Claim:
        field = f"{bot_id}:{update_id}"
        args: list[Arg] = [self._token, self._ttl, self._prefix, self._lease]
        if body is not None:
            args += (self._owned_key, field, body)
        live = self._live
        ours = field not in live  # else a redelivery of one we are handling: BUSY
        live.add(field)  # before the script runs: a renewal must not take it for stale
        self._candidates.discard(field)
        try:
            if self._renewing is None or self._renewing.done():
                await self._start_lease()
            found = await _CLAIM_SCRIPT(self._wire, (self._key(bot_id, update_id),), args)
        except BaseException as exc:
            if ours:  # the claim may have been made: undo it, for the redelivery
                live.discard(field)
                self._unreleased.add(field)
            if isinstance(exc, RedisUnavailable):
                raise RedisUnavailable(f"seen updates: claim failed: {exc}") from exc
            raise
        code = int(found)
        claim = _CLAIMS[code]
        if claim is not Claim.NEW and ours:
            live.discard(field)
            if code == 3 and field not in self._unreleased:
                # claimed here and finished (its done mark unwritten, or lost by Redis)
                self._unmarked.add(field)
                return Claim.DONE
        return claim

    async def done(self, bot_id: int, update_ids: Sequence[int]) -> None:
        """Mark the updates done; when Redis cannot take the marks now they are kept
        and sent again (with the next ``done``, at every lease renewal, on ``close``)."""
        if not update_ids:
            return
        fields = [f"{bot_id}:{update_id}" for update_id in update_ids]
        self._live.difference_update(fields)
        unmarked = self._unmarked
        unmarked.update(fields)
        fields = list(unmarked)
        commands: list[tuple[Arg, ...]] = [
            ("SET", f"{self._prefix}:{field}", _DONE, "PX", self._ttl) for field in fields
        ]
        commands.append(("HDEL", self._owned_key, *fields))
        try:
            _checked(await self._wire.pipeline(commands))
        except RedisUnavailable as exc:
            raise RedisUnavailable(
                f"seen updates: done failed ({len(unmarked)} marks kept to send again): {exc}"
            ) from exc
        unmarked.difference_update(fields)

    async def release(self, bot_id: int, update_id: int) -> None:
        """Forget the claim; kept and sent again like a done mark when Redis is away."""
        field = f"{bot_id}:{update_id}"
        self._live.discard(field)
        self._unreleased.add(field)
        try:
            _checked(await self._wire.pipeline((
                ("DEL", self._key(bot_id, update_id)),
                ("HDEL", self._owned_key, field),
            )))  # fmt: skip
        except RedisUnavailable as exc:
            raise RedisUnavailable(f"seen updates: release failed: {exc}") from exc
        self._unreleased.discard(field)

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
        """Renew the lease, and write what could not be written before: done marks,
        releases, and the done marks Redis lost (``_candidates`` no claim took since)."""
        await self._sync(self._lease)

    async def _sync(self, lease: int) -> None:
        """One ``_SYNC``: renew with ``lease`` ms, or retire with 0."""
        done, released = list(self._unmarked), list(self._unreleased)
        stale = [field for field in self._candidates if field not in self._live]
        live = list(self._live) if lease == 0 else []
        marked, *fields = await _SYNC_SCRIPT(self._wire, (), (
            self._prefix, self._token, self._ttl, lease,
            len(done), len(released), len(stale), len(live), *done, *released, *stale, *live,
        ))  # fmt: skip
        self._unmarked.difference_update(done)
        self._unreleased.difference_update(released)
        if marked:
            log.warning("seen updates: marked %d updates done that were handled here and "
                        "whose done marks Redis lost", marked)  # fmt: skip
        self._candidates = {
            field
            for field in (f.decode() if isinstance(f, bytes) else str(f) for f in fields)
            if field not in self._live and field not in self._unmarked
        }

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
            self._wire, (), (self._prefix, self._token, self._ttl, self._lease, *self._adopters)
        )
        taken: dict[int, list[bytes]] = {}
        for field, body in zip(found[::2], found[1::2], strict=True):
            taken.setdefault(int(field.partition(b":")[0]), []).append(body)
        for bot_id, bodies in taken.items():
            log.warning("seen updates: took over %d updates of bot %d that a dead worker "
                        "acknowledged and never finished", len(bodies), bot_id)  # fmt: skip
            self._adopters[bot_id](bodies)

    async def close(self) -> None:
        """Retire: write the done marks and releases still kept, mark done every update
        left in this process's hash that no claim here holds (finished: its mark was
        lost), and give the lease up, in one script; then close the connections this
        object made (a ``RespClient`` given stays open).

        An update still claimed here (closed mid-handler) stays for a live worker to take
        over. While Redis is away the retirement is tried again for up to one lease;
        after that the updates whose marks are still unwritten may be handled again by
        the worker that takes this one's claims over when its lease expires.
        """
        renewing, self._renewing = self._renewing, None
        if renewing is not None:
            await cancel_and_wait(renewing)
            await self._retire()
        if self._owns_wire:
            await self._wire.close()
        if self._owns:
            await close_client(self._redis)

    async def _retire(self) -> None:
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self._lease / 1000
        while True:
            try:
                await self._sync(0)
            except RedisUnavailable as exc:
                if loop.time() < give_up:
                    await asyncio.sleep(_RETIRE_RETRY)
                    continue
                log.error("seen updates: could not retire this worker's claims (%d done "
                          "marks unwritten: those updates may be handled again when its "
                          "lease expires): %r", len(self._unmarked), exc)  # fmt: skip
            return

    def __repr__(self) -> str:
        return f"RedisSeenUpdates({self._redis!r}, key_prefix={self._prefix!r})"
