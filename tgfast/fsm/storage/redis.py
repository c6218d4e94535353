"""aiogram's path to the Redis FSM parts: ``RedisStorage`` and ``RedisEventIsolation``
(they live in ``tgfast.redis``), re-exported so that ``from aiogram.fsm.storage.redis
import RedisStorage`` ports as is, with the key builders aiogram users pass them, and
redis-py's ``Redis``, ``ConnectionPool`` and ``Lock`` as aiogram's module has them
(imported when asked for). Nothing here talks to Redis (``tests/test_layers.py``
checks)."""

from __future__ import annotations

from ...redis.isolation import DEFAULT_REDIS_LOCK_KWARGS, RedisEventIsolation
from ...redis.redis_py import __getattr__  # noqa: F401 - redis-py's Redis, on first use
from ...redis.storage import RedisStorage
from .base import DefaultKeyBuilder, KeyBuilder

__all__ = [
    "DEFAULT_REDIS_LOCK_KWARGS",
    "DefaultKeyBuilder",
    "KeyBuilder",
    "RedisEventIsolation",
    "RedisStorage",
]
