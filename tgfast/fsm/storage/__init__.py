"""FSM storages: ``MemoryStorage`` here; ``RedisStorage`` in ``tgfast.fsm.storage.redis``
(it needs redis-py: ``pip install 'tgfast[redis]'``)."""

from __future__ import annotations

from .base import (
    DEFAULT_DESTINY,
    BaseStorage,
    StateType,
    StorageDataError,
    StorageError,
    StorageKey,
)
from .memory import MemoryStorage

__all__ = [
    "DEFAULT_DESTINY",
    "BaseStorage",
    "MemoryStorage",
    "StateType",
    "StorageDataError",
    "StorageError",
    "StorageKey",
]
