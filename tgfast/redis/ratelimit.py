"""``RedisRateLimiter``: the client's flood control with its buckets in Redis, so that
every worker process of one bot draws on one budget.

The limits and the algorithm are ``LocalRateLimiter``'s (see ``tgfast.client.ratelimit``):
a GCRA bucket per chat and one overall, a send taking its chat's slot and then an
overall slot. Here one Lua script reads and books both atomically, on the Redis
server's clock (``TIME``), so processes on different machines agree on "now":

- the chat's next send is not due yet (its TAT minus the burst tolerance is ahead, or
  a penalty holds it): nothing is booked, the caller sleeps that long and asks again
  (so an overall slot is never booked ahead for a chat that cannot use it);
- otherwise the script books the earliest overall slot and charges the chat, and the
  caller sleeps until that slot.

Times are integer microseconds. Chat TATs are stored minus the sum of global
penalties, as the local limiter does, so a global penalty shifts every chat in O(1);
a chat's key expires once its TAT has passed (an absent key is a full bucket).
Within one process the sends to a chat ask in FIFO order; across processes the
order is whoever asks first after a wait.

Approximations, as the local limiter's: a send that already booked its slot when a
penalty comes still leaves at that slot. While Redis cannot be reached, sends fall
back to an in-process ``LocalRateLimiter`` with the same limits (logged once per
outage) rather than failing: the bot keeps answering, each process within its limits.

The scripts run through a ``RespClient`` (a send is a hot path: see
``tgfast.redis.resp_client`` for the CPU per ``EVALSHA`` against redis-py).
"""

from __future__ import annotations

import asyncio
from typing import Any

from .._logging import get_logger
from ..client.ratelimit import (
    DEFAULT_GROUP,
    DEFAULT_METHODS,
    DEFAULT_OVERALL,
    DEFAULT_PRIVATE,
    Limit,
    LocalRateLimiter,
    _chat_key,
    _schedule,
)
from .connect import AnyRedis, Script, wire_for
from .errors import RedisUnavailable

__all__ = ["RedisRateLimiter"]

log = get_logger("tgfast.client")

# KEYS[1]: the bot's global hash {tat, shift, until}; KEYS[2]: the chat's TAT (optional).
# ARGV: overall interval, overall tolerance, chat interval, chat tolerance (µs).
# Returns {1, wait}: booked, leave in `wait` µs; {0, wait}: not booked, ask again then.
_ACQUIRE = """
if redis.replicate_commands then pcall(redis.replicate_commands) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local o_int, o_tol = tonumber(ARGV[1]), tonumber(ARGV[2])
local c_int, c_tol = tonumber(ARGV[3]), tonumber(ARGV[4])
local g = redis.call('HMGET', KEYS[1], 'tat', 'shift', 'until')
local otat = tonumber(g[1]) or 0
local shift = tonumber(g[2]) or 0
local hold = tonumber(g[3]) or 0
if hold > now then return {0, math.ceil(hold - now)} end
local ctat = nil
if #KEYS == 2 then
  local stored = redis.call('GET', KEYS[2])
  if stored then
    ctat = tonumber(stored) + shift
    if ctat - c_tol > now then return {0, math.ceil(ctat - c_tol - now)} end
  end
end
local slot = now
if o_int > 0 then
  if otat - o_tol > slot then slot = otat - o_tol end
  redis.call('HSET', KEYS[1], 'tat', string.format('%.0f', math.max(slot, otat) + o_int))
end
if #KEYS == 2 and c_int > 0 then
  local new = math.max(slot, ctat or 0) + c_int
  redis.call('SET', KEYS[2], string.format('%.0f', new - shift),
             'PX', math.ceil((new - now) / 1000) + 1000)
end
return {1, math.ceil(slot - now)}
"""

# KEYS[1]: the global hash; KEYS[2]: the chat's TAT (a chat penalty only).
# ARGV: penalty, overall tolerance, chat tolerance (µs).
_PENALIZE = """
if redis.replicate_commands then pcall(redis.replicate_commands) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local seconds, o_tol, c_tol = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local g = redis.call('HMGET', KEYS[1], 'tat', 'shift', 'until')
local otat = tonumber(g[1]) or 0
local shift = tonumber(g[2]) or 0
local hold = tonumber(g[3]) or 0
local till = now + seconds
if #KEYS == 1 then
  redis.call('HSET', KEYS[1],
    'tat', string.format('%.0f', math.max(otat + seconds, till + o_tol)),
    'shift', string.format('%.0f', shift + seconds),
    'until', string.format('%.0f', math.max(hold, till)))
  return 1
end
local stored = redis.call('GET', KEYS[2])
local tat = till + c_tol
if stored then tat = math.max(tat, tonumber(stored) + shift + seconds) end
redis.call('SET', KEYS[2], string.format('%.0f', tat - shift),
           'PX', math.ceil((tat - now) / 1000) + 1000)
return 1
"""

_ACQUIRE_SCRIPT = Script(_ACQUIRE)
_PENALIZE_SCRIPT = Script(_PENALIZE)

# A penalty longer than this (an infinite one) is held for this long: a day.
_LONGEST_PENALTY = 86400.0


class RedisRateLimiter:
    """A ``RateLimiter`` (``Bot(token, rate_limiter=RedisRateLimiter(redis, bot_id=...))``)
    whose buckets live in Redis, shared by every process of the bot.

    ``bot_id`` keeps bots apart (Telegram limits each bot on its own); ``overall``,
    ``private``, ``group`` and ``methods`` are ``LocalRateLimiter``'s. ``penalize``
    is synchronous, as the protocol says: it writes to Redis in a background task
    (``flush()`` awaits the ones in flight) and never raises. ``redis`` is a
    ``RespClient`` to share or a redis-py client to copy settings from; ``close()``
    flushes and closes what this object made.
    """

    __slots__ = (
        "_chat_locks",
        "_down",
        "_fallback",
        "_global",
        "_group",
        "_methods",
        "_overall",
        "_owns_wire",
        "_prefix",
        "_private",
        "_redis",
        "_tasks",
        "_wire",
    )

    def __init__(
        self,
        redis: AnyRedis,
        *,
        bot_id: int,
        key_prefix: str = "tgfast:ratelimit",
        overall: Limit | None = DEFAULT_OVERALL,
        private: Limit | None = DEFAULT_PRIVATE,
        group: Limit | None = DEFAULT_GROUP,
        methods: frozenset[str] | None = None,
    ) -> None:
        self._redis = redis
        self._wire, self._owns_wire = wire_for(redis)
        self._prefix = f"{key_prefix}:{int(bot_id)}"
        self._global = f"{self._prefix}:global"
        self._overall = _micros(_schedule("overall", overall))
        self._private = _micros(_schedule("private", private))
        self._group = _micros(_schedule("group", group))
        self._methods = DEFAULT_METHODS if methods is None else frozenset(methods)
        self._fallback = LocalRateLimiter(
            overall=overall, private=private, group=group, methods=self._methods
        )
        self._chat_locks: dict[Any, _ChatQueue] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._down = False

    @property
    def methods(self) -> frozenset[str]:
        """The methods counted as sends."""
        return self._methods

    async def acquire(self, method: str, chat_id: int | str | None) -> None:
        """Return once a request of ``method`` to ``chat_id`` may be sent."""
        if method not in self._methods:
            return
        if chat_id is None:
            wait = await self._book(method, None, None, (0, 0))
        else:
            chat = _chat_key(chat_id)
            schedule = self._private if isinstance(chat, int) and chat > 0 else self._group
            queue = self._chat_locks.get(chat)
            if queue is None:
                queue = self._chat_locks[chat] = _ChatQueue()
            queue.users += 1
            try:
                async with queue.lock:  # this process's sends to a chat ask in FIFO order
                    wait = await self._book(
                        method, chat_id, f"{self._prefix}:chat:{chat}", schedule
                    )
            finally:
                queue.users -= 1
                if not queue.users:
                    del self._chat_locks[chat]
        if wait > 0:
            await asyncio.sleep(wait)

    async def _book(
        self,
        method: str,
        chat_id: int | str | None,
        chat_key: str | None,
        schedule: tuple[int, int],
    ) -> float:
        """Ask Redis until the send is booked; the seconds left until its slot."""
        keys = (self._global,) if chat_key is None else (self._global, chat_key)
        args = (*self._overall, *schedule)
        while True:
            try:
                booked, wait = await _ACQUIRE_SCRIPT(self._wire, keys, args)
            except RedisUnavailable as exc:
                self._outage(exc)
                await self._fallback.acquire(method, chat_id)
                return 0.0
            if self._down:
                self._down = False
                log.warning("rate limiter: Redis is back, sharing the budget again")
            if booked:
                return int(wait) / 1e6
            await asyncio.sleep(int(wait) / 1e6)

    def penalize(self, chat_id: int | str | None, seconds: float) -> None:
        """After a 429: no counted send to ``chat_id`` (any chat when None) for ``seconds``.

        Schedules the Redis write and returns; the local fallback is held back too.
        """
        if not seconds > 0:
            return
        try:
            self._fallback.penalize(chat_id, seconds)
            task = asyncio.get_running_loop().create_task(self._write_penalty(chat_id, seconds))
        except Exception as exc:  # noqa: BLE001 - never raise from penalize (no loop, ...)
            log.warning("rate limiter: could not record a %.1f s penalty: %r", seconds, exc)
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _write_penalty(self, chat_id: int | str | None, seconds: float) -> None:
        try:
            if chat_id is None:
                keys: tuple[str, ...] = (self._global,)
                tolerance = 0
            else:
                chat = _chat_key(chat_id)
                keys = (self._global, f"{self._prefix}:chat:{chat}")
                private = isinstance(chat, int) and chat > 0
                tolerance = (self._private if private else self._group)[1]
            args = (round(min(seconds, _LONGEST_PENALTY) * 1e6), self._overall[1], tolerance)
            await _PENALIZE_SCRIPT(self._wire, keys, args)
        except RedisUnavailable as exc:
            self._outage(exc)
        except Exception:  # a background task: log, never lose it silently
            log.exception("rate limiter: recording a penalty failed")

    async def flush(self) -> None:
        """Wait for the penalty writes in flight (before closing the client, in tests)."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def close(self) -> None:
        """``flush``, then close the ``RespClient`` if this object made it."""
        await self.flush()
        if self._owns_wire:
            await self._wire.close()

    def _outage(self, exc: BaseException) -> None:
        if not self._down:
            self._down = True
            log.warning(
                "rate limiter: Redis unreachable (%s: %s); limiting this process alone "
                "until it is back", type(exc).__name__, exc,
            )  # fmt: skip

    def __repr__(self) -> str:
        return f"RedisRateLimiter({self._redis!r}, key_prefix={self._prefix!r})"


class _ChatQueue:
    """One chat's FIFO in this process, dropped when no send uses it."""

    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


def _micros(schedule: tuple[float, float]) -> tuple[int, int]:
    interval, tolerance = schedule
    return round(interval * 1e6), round(tolerance * 1e6)
