"""``RedisStorage``: FSM records in Redis, shared by every worker process of a bot.

Layout, for a key ``k`` under ``key_prefix`` ``p``::

    p:<bot>:<chat>:<user>:<thread>:<business connection>:<destiny>:state   string
    p:<bot>:<chat>:<user>:<thread>:<business connection>:<destiny>:data    hash

(an absent thread or business connection is an empty part; ``:`` and ``%`` inside
the string parts are percent-escaped, so two keys never share a name). The data is
a hash with one field per top-level key, each value serialized with orjson.
``update_data`` is then a plain ``HSET`` of the changed fields: concurrent updates
of different keys from several processes cannot overwrite one another, and no JSON
is decoded and re-encoded inside Redis (Lua's cjson would turn ``[]`` into ``{}``
and round large integers). A small Lua script does ``HSET`` + ``PEXPIRE`` +
``HGETALL`` as one atomic step, in one round trip.

Every Redis failure is raised as ``StorageError`` naming the operation. The client
decides how long a failure takes: ``RedisStorage.from_url`` sets short connect and
read timeouts and a short retry, which also reconnects after Redis restarts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import timedelta
from typing import Any, NoReturn

import orjson
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import RedisError

from .base import BaseStorage, StateType, StorageDataError, StorageError, StorageKey

__all__ = ["RedisStorage", "connect_redis", "ttl_ms"]

# KEYS[1]: the data hash; ARGV[1]: TTL in ms (0: none); ARGV[2..]: field, value, ...
_UPDATE = """
for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
local ttl = tonumber(ARGV[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
return redis.call('HGETALL', KEYS[1])
"""

# The same arguments; the hash is replaced instead of merged into.
_REPLACE = """
redis.call('DEL', KEYS[1])
for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
local ttl = tonumber(ARGV[1])
if ttl > 0 and #ARGV > 1 then redis.call('PEXPIRE', KEYS[1], ttl) end
return 0
"""


def ttl_ms(name: str, ttl: float | timedelta | None) -> int:
    """A TTL in whole milliseconds (0 for none); a TTL that is not positive is an error."""
    if ttl is None:
        return 0
    seconds = ttl.total_seconds() if isinstance(ttl, timedelta) else float(ttl)
    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"{name} must be a positive number of seconds or None, got {ttl!r}")
    return max(1, round(seconds * 1000))


def connect_redis(
    url: str,
    *,
    connect_timeout: float = 1.0,
    timeout: float = 2.0,
    retries: int = 2,
    **kwargs: Any,
) -> Redis:
    """A redis-py asyncio client for ``url`` that fails fast while Redis is down.

    ``connect_timeout`` and ``timeout`` bound one connect and one reply;
    ``retries`` retry a command that met a dropped connection (after a restart,
    the pool's old connections are dead: the retry takes a new one), waiting 50 ms,
    then 100 ms... at most 250 ms. Other keyword arguments go to ``Redis.from_url``.
    """
    kwargs.setdefault("socket_connect_timeout", connect_timeout)
    kwargs.setdefault("socket_timeout", timeout)
    kwargs.setdefault("retry", Retry(ExponentialBackoff(cap=0.25, base=0.05), retries))
    return Redis.from_url(url, **kwargs)


def _escape(part: str) -> str:
    return part.replace("%", "%25").replace(":", "%3A") if ("%" in part or ":" in part) else part


def _unavailable(what: str, exc: BaseException) -> NoReturn:
    raise StorageError(f"Redis FSM storage: {what} failed: {type(exc).__name__}: {exc}") from exc


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisStorage(BaseStorage):
    """FSM storage in Redis through redis-py's asyncio client.

    ``RedisStorage(redis)`` uses a client you made (and close); ``from_url`` makes
    one with fail-fast timeouts and closes it in ``close()``. ``state_ttl`` and
    ``data_ttl`` (seconds or ``timedelta``) expire a state, or data, that has not
    been written for that long; None keeps it until it is cleared.
    """

    __slots__ = ("_data_ttl", "_owns", "_prefix", "_redis", "_replace", "_state_ttl", "_update")

    def __init__(
        self,
        redis: Redis,
        *,
        key_prefix: str = "fsm",
        state_ttl: float | timedelta | None = None,
        data_ttl: float | timedelta | None = None,
    ) -> None:
        if not key_prefix:
            raise ValueError("key_prefix must not be empty")
        self._redis = redis
        self._prefix = key_prefix
        self._state_ttl = ttl_ms("state_ttl", state_ttl)
        self._data_ttl = ttl_ms("data_ttl", data_ttl)
        self._update = redis.register_script(_UPDATE)
        self._replace = redis.register_script(_REPLACE)
        self._owns = False

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        key_prefix: str = "fsm",
        state_ttl: float | timedelta | None = None,
        data_ttl: float | timedelta | None = None,
        connect_timeout: float = 1.0,
        timeout: float = 2.0,
        **redis_kwargs: Any,
    ) -> RedisStorage:
        """A storage on a new client for ``url`` (``redis://host:6379/0``).

        While Redis is down an operation raises ``StorageError`` within about
        ``connect_timeout`` (``timeout`` when it stops answering mid-way), times the
        retries; see ``connect_redis``. ``redis_kwargs`` go to ``Redis.from_url``.
        """
        client = connect_redis(
            url, connect_timeout=connect_timeout, timeout=timeout, **redis_kwargs
        )
        storage = cls(client, key_prefix=key_prefix, state_ttl=state_ttl, data_ttl=data_ttl)
        storage._owns = True
        return storage

    @property
    def redis(self) -> Redis:
        """The client, to share with ``RedisRateLimiter`` or ``RedisSeenUpdates``."""
        return self._redis

    def key_name(self, key: StorageKey, part: str) -> str:
        """The Redis key of one part (``"state"`` or ``"data"``) of a record."""
        bot_id, chat_id, user_id, thread_id, business, destiny = key
        thread = "" if thread_id is None else thread_id
        business = "" if business is None else _escape(business)
        return (
            f"{self._prefix}:{bot_id}:{chat_id}:{user_id}:{thread}:{business}:"
            f"{_escape(destiny)}:{part}"
        )

    async def set_state(self, key: StorageKey, state: StateType) -> None:
        name = self.key_name(key, "state")
        try:
            if state is None:
                await self._redis.delete(name)
            else:
                await self._redis.set(name, state, px=self._state_ttl or None)
        except (RedisError, OSError) as exc:
            _unavailable("set_state", exc)

    async def get_state(self, key: StorageKey) -> StateType:
        try:
            value = await self._redis.get(self.key_name(key, "state"))
        except (RedisError, OSError) as exc:
            _unavailable("get_state", exc)
        return None if value is None else _text(value)

    async def set_data(self, key: StorageKey, data: Mapping[str, Any]) -> None:
        args = self._encode(data)
        try:
            await self._replace(keys=(self.key_name(key, "data"),), args=args)
        except (RedisError, OSError) as exc:
            _unavailable("set_data", exc)

    async def get_data(self, key: StorageKey) -> dict[str, Any]:
        try:
            fields = await self._redis.hgetall(self.key_name(key, "data"))
        except (RedisError, OSError) as exc:
            _unavailable("get_data", exc)
        return {_text(k): orjson.loads(v) for k, v in fields.items()}

    async def update_data(self, key: StorageKey, data: Mapping[str, Any]) -> dict[str, Any]:
        if not data:
            return await self.get_data(key)
        args = self._encode(data)
        try:
            flat = await self._update(keys=(self.key_name(key, "data"),), args=args)
        except (RedisError, OSError) as exc:
            _unavailable("update_data", exc)
        return {_text(flat[i]): orjson.loads(flat[i + 1]) for i in range(0, len(flat), 2)}

    async def clear(self, key: StorageKey) -> None:
        try:
            await self._redis.delete(self.key_name(key, "state"), self.key_name(key, "data"))
        except (RedisError, OSError) as exc:
            _unavailable("clear", exc)

    async def close(self) -> None:
        """Close the client when this storage made it (``from_url``)."""
        if self._owns:
            await self._redis.aclose()  # redis-py >= 5.0.1

    def _encode(self, data: Mapping[str, Any]) -> list[Any]:
        """``[data_ttl, field, value, ...]``: the script's arguments, values in orjson."""
        args: list[Any] = [self._data_ttl]
        dumps = orjson.dumps
        for field, value in data.items():
            if not isinstance(field, str):
                raise StorageDataError(
                    f"FSM data keys must be str, got {field!r} ({type(field).__name__})"
                )
            try:
                encoded = dumps(value)
            except TypeError as exc:
                raise StorageDataError(
                    f"FSM data {field!r} cannot be stored in Redis: {exc} "
                    "(orjson serializes str, int, float, bool, None, dict, list, tuple, "
                    "dataclasses, datetime, enum, UUID)"
                ) from exc
            args.append(field)
            args.append(encoded)
        return args

    def __repr__(self) -> str:
        return f"RedisStorage({self._redis!r}, key_prefix={self._prefix!r})"
