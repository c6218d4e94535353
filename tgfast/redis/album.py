"""``RedisAlbumStore``: the parts of albums, shared by every worker of a bot.

Layout, for an album ``k`` (``tgfast.utils.album.album_key``) under ``key_prefix`` ``p``::

    p:k:parts   hash: message id -> the part's update (JSON); "@last" -> ms of the last new part
    p:k:handed  set: the message ids of the album handed over (only once it was)
    p:<bot>:pending  sorted set: albums not taken yet, scored by their last part's ms

``add`` is one script: a part of an album handed over already is answered ``HANDED``
(or ``LATE`` when its id is not in the set); else ``HSETNX`` stores it once whatever
the redeliveries, and only a new part moves ``@last``. ``take`` is one script too:
quiet for ``delay`` (by the Redis server's clock, the one clock all workers share)?
then it fills ``handed``, reads and deletes ``parts``, all in one atomic step, so one
caller gets the album and the others get nothing. Every key expires: ``parts`` (and
``pending``) ``ttl`` after the last part, ``handed`` ``ttl`` after the album was taken.
``overdue`` lists the albums quiet for long enough that the workers waiting on them
must be gone: a live worker takes them over (``AlbumMiddleware``'s sweep).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from ..decoding import decode_update
from ..utils.album import Added
from .connect import AnyRedis, Script, ttl_ms, wire_for
from .errors import RedisUnavailable

if TYPE_CHECKING:
    from datetime import timedelta

    from ..types import Update
    from .storage import RedisStorage

__all__ = ["RedisAlbumStore"]

_NOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

# KEYS: parts, handed, pending. ARGV: message id, update JSON, ttl ms, max parts, album.
_ADD = (
    _NOW
    + """
if redis.call('EXISTS', KEYS[2]) == 1 then
  if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return 'handed' end
  return 'late'
end
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 'stored' end
if redis.call('HLEN', KEYS[1]) > tonumber(ARGV[4]) then return 'full' end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2], '@last', now)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[3], now, ARGV[5])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return 'new'
"""
)

# KEYS: parts, handed, pending. ARGV: delay ms, ttl ms, album.
# {} nothing, {ms} wait, {0, field, value, ...} taken.
_TAKE = (
    _NOW
    + """
local last = redis.call('HGET', KEYS[1], '@last')
if not last then
  redis.call('ZREM', KEYS[3], ARGV[3])
  return {}
end
local wait = tonumber(last) + tonumber(ARGV[1]) - now
if wait > 0 then return {wait} end
local all = redis.call('HGETALL', KEYS[1])
local out = {0}
for i = 1, #all, 2 do
  if all[i] ~= '@last' then
    redis.call('SADD', KEYS[2], all[i])
    out[#out + 1] = all[i]
    out[#out + 1] = all[i + 1]
  end
end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[3], ARGV[3])
return out
"""
)

# KEYS: pending. ARGV: quiet ms, at most. The albums whose last part is older.
_OVERDUE = (
    _NOW
    + """
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[1]), 'LIMIT', 0, ARGV[2])
"""
)

_ADD_SCRIPT = Script(_ADD)
_OVERDUE_SCRIPT = Script(_OVERDUE)
_TAKE_SCRIPT = Script(_TAKE)
_ADDED = {b"new": Added.NEW, b"stored": Added.STORED, b"handed": Added.HANDED,
          b"late": Added.LATE, b"full": Added.FULL}  # fmt: skip
MAX_PARTS = 10
"""Telegram's bound on an album; a hash is not let grow past it (plus some slack)."""


class RedisAlbumStore:
    """An ``AlbumStore`` in Redis (see the module docstring), on ``redis``: a
    ``RespClient`` to share or a redis-py client (whose settings a new ``RespClient``
    copies). ``ttl`` (seconds or ``timedelta``) bounds how long any key lives."""

    def __init__(
        self,
        redis: AnyRedis,
        *,
        key_prefix: str = "tgfast:album",
        ttl: float | timedelta = 60.0,
    ) -> None:
        if not key_prefix:
            raise ValueError("key_prefix must not be empty")
        ms = ttl_ms("ttl", ttl)
        if not ms:
            raise ValueError("ttl must be positive: every album key expires")
        self._ttl = ms
        self._prefix = key_prefix
        self._wire, self._owns_wire = wire_for(redis)

    @classmethod
    def sharing(
        cls,
        storage: RedisStorage,
        *,
        key_prefix: str = "tgfast:album",
        ttl: float | timedelta = 60.0,
    ) -> RedisAlbumStore:
        """On the connection of an FSM ``storage`` (what ``--redis`` installs)."""
        return cls(storage._wire, key_prefix=key_prefix, ttl=ttl)

    async def add(self, key: str, message_id: int, update: Update) -> Added:
        body = orjson.dumps(update.to_dict())
        p = f"{self._prefix}:{key}"
        try:
            answer = await _ADD_SCRIPT(
                self._wire, (f"{p}:parts", f"{p}:handed", self._pending(key)),
                (message_id, body, self._ttl, MAX_PARTS + 2, key),
            )  # fmt: skip
        except RedisUnavailable as exc:
            raise RedisUnavailable(f"Redis album store: add failed: {exc}") from exc
        return _ADDED[answer]

    async def take(self, key: str, delay: float) -> list[Update] | float | None:
        p = f"{self._prefix}:{key}"
        try:
            answer = await _TAKE_SCRIPT(
                self._wire, (f"{p}:parts", f"{p}:handed", self._pending(key)),
                (round(delay * 1000), self._ttl, key),
            )  # fmt: skip
        except RedisUnavailable as exc:
            raise RedisUnavailable(f"Redis album store: take failed: {exc}") from exc
        if not answer:
            return None
        if len(answer) == 1:
            return int(answer[0]) / 1000
        parts = {int(answer[i]): answer[i + 1] for i in range(1, len(answer), 2)}
        return [decode_update(parts[i]) for i in sorted(parts)]

    def _pending(self, key: str) -> str:
        bot_id = key.partition(":")[0]  # album_key starts with the bot's id
        return f"{self._prefix}:{bot_id}:pending"

    async def overdue(self, bot_id: int, quiet: float, limit: int = 100) -> list[str]:
        """Albums of bot ``bot_id`` not taken although no part came for ``quiet`` seconds
        (the Redis server's clock): their workers died, or are about to take them."""
        try:
            keys = await _OVERDUE_SCRIPT(
                self._wire, (self._pending(f"{bot_id}:"),), (round(quiet * 1000), limit)
            )
        except RedisUnavailable as exc:
            raise RedisUnavailable(f"Redis album store: overdue failed: {exc}") from exc
        return [key.decode() for key in keys]

    async def close(self) -> None:
        """Close the client if this store made it."""
        if self._owns_wire:
            await self._wire.close()

    def __repr__(self) -> str:
        return f"RedisAlbumStore(key_prefix={self._prefix!r}, ttl={self._ttl / 1000}s)"
