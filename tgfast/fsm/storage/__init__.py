"""FSM storages: ``MemoryStorage`` here; ``RedisStorage`` in ``tgfast.fsm.storage.redis``
(aiogram's path; it lives in ``tgfast.redis``, with every other Redis part)."""

from __future__ import annotations

from .base import (
    DEFAULT_DESTINY,
    BaseEventIsolation,
    BaseStorage,
    DefaultKeyBuilder,
    KeyBuilder,
    StateType,
    StorageDataError,
    StorageError,
    StorageKey,
)
from .memory import DisabledEventIsolation, MemoryStorage, SimpleEventIsolation

__all__ = [
    "DEFAULT_DESTINY",
    "BaseEventIsolation",
    "BaseStorage",
    "DefaultKeyBuilder",
    "DisabledEventIsolation",
    "KeyBuilder",
    "MemoryStorage",
    "SimpleEventIsolation",
    "StateType",
    "StorageDataError",
    "StorageError",
    "StorageKey",
]
