"""aiogram's path to the Redis FSM parts: ``RedisStorage`` and ``RedisEventIsolation``
(they live in ``tgfast.redis``), re-exported so that ``from aiogram.fsm.storage.redis
import RedisStorage`` ports as is, with the key builders aiogram users pass them.
Nothing here talks to Redis (``tests/test_layers.py`` checks)."""

from __future__ import annotations

from ...redis.isolation import DEFAULT_REDIS_LOCK_KWARGS, RedisEventIsolation
from ...redis.storage import RedisStorage
from .base import DefaultKeyBuilder, KeyBuilder

__all__ = [
    "DEFAULT_REDIS_LOCK_KWARGS",
    "DefaultKeyBuilder",
    "KeyBuilder",
    "RedisEventIsolation",
    "RedisStorage",
]
