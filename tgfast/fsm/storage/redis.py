"""aiogram's path to the Redis FSM storage: ``tgfast.redis.storage.RedisStorage``,
re-exported so that ``from aiogram.fsm.storage.redis import RedisStorage`` ports as is.
Nothing here talks to Redis (``tests/test_redis_boundary.py`` checks)."""

from __future__ import annotations

from ...redis.storage import RedisStorage

__all__ = ["RedisStorage"]
