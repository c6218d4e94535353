"""redis-py's client classes, imported on first use: aiogram's ``aiogram.fsm.storage.redis``
re-exports them (a course teaches ``from aiogram.fsm.storage.redis import Redis``), so
tgfast's path does too, through this module's ``__getattr__``. tgfast itself needs no
redis-py (its storages speak RESP): without it installed the name is an ImportError that
says so, when it is asked for, not when the module is imported.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["REDIS_PY_NAMES"]

REDIS_PY_NAMES = {
    "Redis": "redis.asyncio.client",
    "ConnectionPool": "redis.asyncio.connection",
    "Lock": "redis.asyncio.lock",
}
"""The redis-py names aiogram's module offers, and where redis-py keeps them."""


def __getattr__(name: str) -> Any:
    module = REDIS_PY_NAMES.get(name)
    if module is None:
        raise AttributeError(name)
    try:
        return getattr(importlib.import_module(module), name)
    except ImportError as exc:
        raise ImportError(
            f"{name} is redis-py's (pip install redis); tgfast's RedisStorage does not need it"
        ) from exc
