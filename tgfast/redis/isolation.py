"""``RedisEventIsolation``: one FSM record's updates handled one at a time across every
worker process, with a lock in Redis.

The lock is a key (``<record>:lock``, named as the storage names the record's other
parts) set with ``SET NX PX``: a worker that dies while holding it blocks the record
for ``timeout`` seconds at most. Release deletes the key only while it still holds
this holder's token (a small script), so a lock that expired and was taken by
another worker is not released by the late one. Waiting polls every ``sleep``
seconds.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from ..fsm.storage.base import BaseEventIsolation, KeyBuilder, StorageKey
from .connect import AnyRedis, Script, client_for_url, close_client, wire_for
from .errors import RedisUnavailable
from .storage import RedisStorage, record_key

__all__ = ["DEFAULT_REDIS_LOCK_KWARGS", "RedisEventIsolation"]

DEFAULT_REDIS_LOCK_KWARGS: Mapping[str, Any] = {"timeout": 60}
"""aiogram's: a lock lapses 60 s after it was taken, even if never released."""

_RELEASE = Script(
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"
)


class RedisEventIsolation(BaseEventIsolation):
    """``Dispatcher(storage=storage, events_isolation=storage.create_isolation())``.

    ``lock_kwargs`` as aiogram's: ``timeout`` (seconds the lock lives, default 60),
    ``sleep`` (seconds between tries, default 0.1), ``blocking_timeout`` (seconds to
    wait before giving up with ``RedisUnavailable``; None waits for as long as it
    takes).
    """

    __slots__ = ("_owns", "_owns_client", "_redis", "_storage", "_wire", "blocking_timeout",
                 "key_builder", "sleep", "timeout")  # fmt: skip

    def __init__(
        self,
        redis: AnyRedis,
        key_builder: KeyBuilder | None = None,
        lock_kwargs: Mapping[str, Any] | None = None,
        *,
        storage: RedisStorage | None = None,
    ) -> None:
        options = {**DEFAULT_REDIS_LOCK_KWARGS, **(lock_kwargs or {})}
        self.timeout = float(options.pop("timeout") or 60)
        self.sleep = float(options.pop("sleep", 0.1))
        blocking = options.pop("blocking_timeout", None)
        self.blocking_timeout = None if blocking is None else float(blocking)
        options.pop("blocking", None)
        if options:
            raise TypeError(f"unsupported lock_kwargs: {sorted(options)}")
        self.key_builder = key_builder
        self._storage = storage
        self._redis = redis
        self._owns_client = False
        self._wire, self._owns = wire_for(redis)

    @classmethod
    def from_url(
        cls, url: str, connection_kwargs: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> RedisEventIsolation:
        """An isolation on a new client for ``url`` (closed by ``close()``)."""
        client = client_for_url(
            url, what="RedisEventIsolation.from_url", **(connection_kwargs or {})
        )
        isolation = cls(client, **kwargs)
        isolation._owns_client = True
        return isolation

    def key_name(self, key: StorageKey) -> str:
        if self.key_builder is not None:
            return self.key_builder.build(key, "lock")
        if self._storage is not None:
            return self._storage.key_name(key, "lock")
        return record_key("fsm", key, "lock")

    @asynccontextmanager
    async def lock(self, key: StorageKey) -> AsyncIterator[None]:
        name = self.key_name(key)
        token = secrets.token_hex(8)
        ttl = max(1, round(self.timeout * 1000))
        loop = asyncio.get_running_loop()
        deadline = None if self.blocking_timeout is None else loop.time() + self.blocking_timeout
        while not await self._wire.execute("SET", name, token, "NX", "PX", ttl):
            if deadline is not None and loop.time() >= deadline:
                raise RedisUnavailable(f"could not take the FSM lock {name!r} in time")
            await asyncio.sleep(self.sleep)
        try:
            yield None
        finally:
            await _RELEASE(self._wire, (name,), (token,))

    async def close(self) -> None:
        """Close the clients this isolation made (a client given stays open)."""
        if self._owns:
            await self._wire.close()
        if self._owns_client:
            await close_client(self._redis)
