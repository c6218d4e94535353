"""FSM storages: ``MemoryStorage`` here; ``RedisStorage`` in ``tgfast.fsm.storage.redis``
(aiogram's path; it lives in ``tgfast.redis``, with every other Redis part)."""

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
