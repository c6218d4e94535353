"""Finite-state machines for conversations: states, their storage and the context
handlers get as ``state``.

``RedisStorage`` is in ``tgfast.fsm.storage.redis`` (aiogram's path; it lives in
``tgfast.redis``).
"""

from __future__ import annotations

from .context import FSMContext
from .filter import StateFilter
from .middleware import FSMContextMiddleware
from .state import State, StatesGroup, any_state, default_state
from .storage import (
    BaseEventIsolation,
    BaseStorage,
    DefaultKeyBuilder,
    DisabledEventIsolation,
    KeyBuilder,
    MemoryStorage,
    SimpleEventIsolation,
    StorageDataError,
    StorageError,
    StorageKey,
)
from .strategy import FSMStrategy

__all__ = [
    "BaseEventIsolation",
    "BaseStorage",
    "DefaultKeyBuilder",
    "DisabledEventIsolation",
    "FSMContext",
    "FSMContextMiddleware",
    "FSMStrategy",
    "KeyBuilder",
    "MemoryStorage",
    "SimpleEventIsolation",
    "State",
    "StateFilter",
    "StatesGroup",
    "StorageDataError",
    "StorageError",
    "StorageKey",
    "any_state",
    "default_state",
]
