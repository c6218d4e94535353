"""``RedisLeaderLock``: one long-poller among several workers.

Telegram serves getUpdates to one caller at a time (a second one ends the first with
409), and an update counts as confirmed only when a later getUpdates asks for an offset
past it. Several workers that all polled would keep cutting each other off, so exactly
one polls: the holder of a Redis key that expires.

- Acquire: ``SET key token NX PX ttl`` (or, when the key already holds our own token,
  after a renewal that failed only on our side, extend it): one Lua script. Until then
  ``acquire()`` tries again every ``ttl / 3``.
- Hold: the holder extends the key every ``ttl / 3`` with a compare-and-extend script
  (only while the value is still its token). A renewal that finds another token, fails,
  or does not complete before the key would have expired sets ``lost``: from then on
  this process cannot prove it is the only poller and must stop fetching.
- Release: compare-and-delete, so a process never deletes a successor's key.

A holder that dies stops renewing; its key expires after at most ``ttl`` and another
worker takes over. A holder whose event loop stalls for longer than ``ttl`` may overlap
with its successor for a moment (until its next renewal finds the other token): the
two getUpdates calls then end each other with 409, and the shared seen-update ids
(``RedisSeenUpdates``) keep any update they both fetched from being handled twice.

While Redis is down nobody can acquire or renew: the holder loses the lock at its next
renewal and polling stops everywhere (no worker can prove it is alone), and
``acquire()`` retries with a back-off (``ttl / 3`` doubling up to ``ttl``) until Redis
answers again.

The scripts run through a ``RespClient``, as every tgfast Redis part's commands do.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
import time
from datetime import timedelta
from types import TracebackType
from typing import Any

from .._logging import get_logger
from ..backoff import Backoff
from ..tasks import cancel_and_wait
from .connect import AnyRedis, Script, client_for_url, close_client, ttl_ms, wire_for
from .errors import RedisUnavailable

__all__ = ["DEFAULT_LEADER_TTL", "POLLER_KEY_PREFIX", "RedisLeaderLock", "poller_key"]

log = get_logger("tgfast.server")

DEFAULT_LEADER_TTL = 10.0
"""Seconds a dead poller's lock outlives it: the longest pause before another takes over."""
POLLER_KEY_PREFIX = "tgfast:poller"

# KEYS[1] the lock; ARGV[1] our token, ARGV[2] the TTL in ms. 1: ours (now or still).
_ACQUIRE = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
"""
# The same arguments; extends only a lock that still holds our token.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
# KEYS[1] the lock; ARGV[1] our token. Deletes only our own lock.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

_ACQUIRE_SCRIPT = Script(_ACQUIRE)
_RENEW_SCRIPT = Script(_RENEW)
_RELEASE_SCRIPT = Script(_RELEASE)

_now = time.monotonic


def poller_key(bot_id: int, prefix: str = POLLER_KEY_PREFIX) -> str:
    """The lock of bot ``bot_id``'s poller: one per bot, whatever the workers."""
    return f"{prefix}:{bot_id}"


class RedisLeaderLock:
    """A lock with expiry in Redis, held by one process at a time; see the module docstring.

    ``await acquire()`` returns once this process holds it; ``lost`` is set whenever it
    does not (before the first ``acquire``, after a loss, after ``release``); ``held``
    says whether it does now. ``async with lock:`` is one term: acquire, then release.
    ``close()`` releases and closes the clients this object made. ``redis`` is a
    ``RespClient`` to share or a redis-py client to copy settings from.
    """

    def __init__(
        self,
        redis: AnyRedis,
        key: str,
        *,
        ttl: float | timedelta = DEFAULT_LEADER_TTL,
        backoff: Backoff | None = None,
    ) -> None:
        self._redis = redis
        self._wire, self._owns_wire = wire_for(redis)
        self.key = key
        self._ttl_ms = ttl_ms("ttl", ttl)
        self.ttl = self._ttl_ms / 1000
        self.interval = self.ttl / 3
        """Seconds between renewals, and between tries while another process holds it."""
        self.backoff = backoff or Backoff(min_delay=self.interval, max_delay=self.ttl)
        """Delays between tries while Redis cannot be reached."""
        self.token = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(8)}"
        """This holder's value in the key: who holds it, for a human running GET."""
        self.lost = asyncio.Event()
        self.lost.set()
        self._valid_until = 0.0
        self._renewing: asyncio.Task[None] | None = None
        self._unsure = False  # an acquire was cancelled mid-call: the key may be ours
        self._owns = False

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        key: str,
        ttl: float | timedelta = DEFAULT_LEADER_TTL,
        backoff: Backoff | None = None,
        **redis_kwargs: Any,
    ) -> RedisLeaderLock:
        """On a new fail-fast client for ``url`` (``client_for_url``), closed by ``close()``."""
        ttl_ms("ttl", ttl)  # refuse a bad TTL before making a client
        client = client_for_url(url, what="RedisLeaderLock.from_url", **redis_kwargs)
        lock = cls(client, key, ttl=ttl, backoff=backoff)
        lock._owns = True
        return lock

    @property
    def redis(self) -> AnyRedis:
        """The client given, for other users of the same Redis (``RedisSeenUpdates``)."""
        return self._redis

    @property
    def held(self) -> bool:
        """True while this process holds the lock and its last renewal is still valid."""
        return not self.lost.is_set() and _now() < self._valid_until

    # -- acquiring -----------------------------------------------------------------------

    async def acquire(self) -> None:
        """Wait until this process holds the lock (cancel the wait to give up)."""
        failures = 0
        while not self.held:
            try:
                if await self.try_acquire():
                    log.info("leader lock %s: acquired", self.key)
                    return
                failures = 0
                delay = self.interval
            except RedisUnavailable as exc:
                delay = self.backoff.delay(failures)
                failures += 1
                (log.warning if failures == 1 else log.debug)(
                    "leader lock %s: %s; trying again in %.2fs", self.key, exc, delay
                )
            await asyncio.sleep(delay)

    async def try_acquire(self) -> bool:
        """One attempt: True when this process holds the lock now. ``RedisUnavailable``
        when Redis cannot be reached."""
        started = _now()
        try:
            ours = await _ACQUIRE_SCRIPT(self._wire, (self.key,), (self.token, self._ttl_ms))
        except RedisUnavailable as exc:
            raise RedisUnavailable(f"acquire failed: {exc}") from exc
        except BaseException:
            self._unsure = True  # cancelled: the SET may have happened; release() checks
            raise
        if not ours:
            return False
        self._valid_until = started + self.ttl
        self.lost.clear()
        if self._renewing is None or self._renewing.done():
            self._renewing = asyncio.ensure_future(self._keep())
        return True

    # -- holding -------------------------------------------------------------------------

    async def _keep(self) -> None:
        """Renew every ``interval`` until a renewal fails: then ``lost``."""
        while True:
            await asyncio.sleep(self.interval)
            started = _now()
            try:
                renewed = await asyncio.wait_for(
                    _RENEW_SCRIPT(self._wire, (self.key,), (self.token, self._ttl_ms)),
                    max(0.0, self._valid_until - started),
                )
            except (RedisUnavailable, asyncio.TimeoutError) as exc:
                self._lose(f"could not renew it ({type(exc).__name__}: {exc})")
                return
            if not renewed:
                self._lose("another process holds it now")
                return
            self._valid_until = started + self.ttl

    def _lose(self, why: str | None) -> None:
        if why is not None and not self.lost.is_set():
            log.warning("leader lock %s: lost, %s", self.key, why)
        self._valid_until = 0.0
        self.lost.set()

    # -- releasing -----------------------------------------------------------------------

    async def release(self) -> None:
        """Stop renewing and delete the key if it is still ours (best effort: otherwise
        it expires within ``ttl``)."""
        renewing, self._renewing = self._renewing, None
        if renewing is not None:
            await cancel_and_wait(renewing)
        mine = not self.lost.is_set() or self._unsure
        self._lose(None)
        self._unsure = False
        if mine:
            await self._delete()
        if self._owns_wire:  # its socket goes; a new acquire connects anew
            await self._wire.close()
            self._wire = wire_for(self._redis)[0]

    async def _delete(self) -> None:
        try:
            deleted = await asyncio.wait_for(
                _RELEASE_SCRIPT(self._wire, (self.key,), (self.token,)), self.ttl
            )
        except (RedisUnavailable, asyncio.TimeoutError) as exc:
            log.warning("leader lock %s: could not release it (%s: %s); it expires within "
                        "%ss", self.key, type(exc).__name__, exc, self.ttl)  # fmt: skip
        else:
            if deleted:
                log.info("leader lock %s: released", self.key)

    async def close(self) -> None:
        """``release``, then close the clients this object made."""
        await self.release()
        if self._owns_wire:
            await self._wire.close()
        if self._owns:
            await close_client(self._redis)

    async def __aenter__(self) -> RedisLeaderLock:
        await self.acquire()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.release()

    def __repr__(self) -> str:
        return f"RedisLeaderLock(key={self.key!r}, ttl={self.ttl}, held={self.held})"
