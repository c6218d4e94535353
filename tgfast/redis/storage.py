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

The commands go through a ``RespClient``: ``get_state`` runs for every update of a
bot with a conversation, and ``tgfast.redis.resp_client`` shows it costs a third of
redis-py's CPU (with or without hiredis). Every Redis failure is raised as
``RedisUnavailable`` (a ``StorageError``) naming the operation; the client's timeouts
decide how long a failure takes (``from_url``: 1 s to connect, 2 s for a reply), and
the next command after a lost connection connects again (after a Redis restart, say).

aiogram's path, ``tgfast.fsm.storage.redis.RedisStorage``, re-exports this class.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any, NoReturn

import orjson

from ..fsm.storage.base import BaseStorage, StateType, StorageDataError, StorageKey
from .connect import AnyRedis, Script, connect_redis, ttl_ms, wire_for
from .errors import RedisUnavailable
from .resp_client import Arg, RespClient

__all__ = ["RedisStorage"]

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


_UPDATE_SCRIPT = Script(_UPDATE)
_REPLACE_SCRIPT = Script(_REPLACE)


def _escape(part: str) -> str:
    return part.replace("%", "%25").replace(":", "%3A") if ("%" in part or ":" in part) else part


def _unavailable(what: str, exc: RedisUnavailable) -> NoReturn:
    raise RedisUnavailable(f"Redis FSM storage: {what} failed: {exc}") from exc


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _decoded(flat: list[bytes]) -> dict[str, Any]:
    """A hash as Redis sends it (field, value, field, value...) with values in orjson."""
    loads = orjson.loads
    return {flat[i].decode(): loads(flat[i + 1]) for i in range(0, len(flat), 2)}


class RedisStorage(BaseStorage):
    """FSM storage in Redis (see the module docstring).

    ``RedisStorage(redis)`` uses a client you made (and close): a redis-py asyncio
    client, whose settings a ``RespClient`` of this storage copies, or a ``RespClient``
    to share. ``from_url`` makes one with fail-fast timeouts and closes it in
    ``close()``. ``state_ttl`` and ``data_ttl`` (seconds or ``timedelta``) expire a
    state, or data, that has not been written for that long; None keeps it until it
    is cleared.
    """

    __slots__ = ("_data_ttl", "_owns", "_owns_wire", "_prefix", "_redis", "_state_ttl", "_wire")

    def __init__(
        self,
        redis: AnyRedis,
        *,
        key_prefix: str = "fsm",
        state_ttl: float | timedelta | None = None,
        data_ttl: float | timedelta | None = None,
    ) -> None:
        if not key_prefix:
            raise ValueError("key_prefix must not be empty")
        self._prefix = key_prefix
        self._state_ttl = ttl_ms("state_ttl", state_ttl)
        self._data_ttl = ttl_ms("data_ttl", data_ttl)
        self._redis = redis
        self._wire, self._owns_wire = wire_for(redis)
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

        While Redis is down an operation raises ``RedisUnavailable`` within about
        ``connect_timeout`` (``timeout`` when it stops answering mid-way); see
        ``connect_redis``, which gets ``redis_kwargs``.
        """
        ttl_ms("state_ttl", state_ttl)  # refuse a bad TTL before making a client
        ttl_ms("data_ttl", data_ttl)
        client = connect_redis(
            url, connect_timeout=connect_timeout, timeout=timeout, **redis_kwargs
        )
        storage = cls(client, key_prefix=key_prefix, state_ttl=state_ttl, data_ttl=data_ttl)
        storage._owns = True
        return storage

    @property
    def redis(self) -> AnyRedis:
        """The client given (``from_url``: a redis-py client), for the bot's own use."""
        return self._redis

    @property
    def wire(self) -> RespClient:
        """The ``RespClient`` the commands go through, to share with ``RedisRateLimiter``
        or ``RedisSeenUpdates``."""
        return self._wire

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
                await self._wire.execute("DEL", name)
            elif self._state_ttl:
                await self._wire.execute("SET", name, state, "PX", self._state_ttl)
            else:
                await self._wire.execute("SET", name, state)
        except RedisUnavailable as exc:
            _unavailable("set_state", exc)

    async def get_state(self, key: StorageKey) -> StateType:
        try:
            value = await self._wire.execute("GET", self.key_name(key, "state"))
        except RedisUnavailable as exc:
            _unavailable("get_state", exc)
        return None if value is None else _text(value)

    async def set_data(self, key: StorageKey, data: Mapping[str, Any]) -> None:
        args = self._encode(data)
        try:
            await _REPLACE_SCRIPT(self._wire, (self.key_name(key, "data"),), args)
        except RedisUnavailable as exc:
            _unavailable("set_data", exc)

    async def get_data(self, key: StorageKey) -> dict[str, Any]:
        try:
            flat = await self._wire.execute("HGETALL", self.key_name(key, "data"))
        except RedisUnavailable as exc:
            _unavailable("get_data", exc)
        return _decoded(flat)

    async def update_data(self, key: StorageKey, data: Mapping[str, Any]) -> dict[str, Any]:
        if not data:
            return await self.get_data(key)
        args = self._encode(data)
        try:
            flat = await _UPDATE_SCRIPT(self._wire, (self.key_name(key, "data"),), args)
        except RedisUnavailable as exc:
            _unavailable("update_data", exc)
        return _decoded(flat)

    async def clear(self, key: StorageKey) -> None:
        try:
            await self._wire.execute("DEL", self.key_name(key, "state"), self.key_name(key, "data"))
        except RedisUnavailable as exc:
            _unavailable("clear", exc)

    async def close(self) -> None:
        """Close the clients this storage made (a client given stays open)."""
        if self._owns_wire:
            await self._wire.close()
        if self._owns and not isinstance(self._redis, RespClient):
            await self._redis.aclose()  # redis-py >= 5.0.1

    def _encode(self, data: Mapping[str, Any]) -> list[Arg]:
        """``[data_ttl, field, value, ...]``: the script's arguments, values in orjson."""
        args: list[Arg] = [self._data_ttl]
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
