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
    BaseStorage,
    MemoryStorage,
    StorageDataError,
    StorageError,
    StorageKey,
)
from .strategy import FSMStrategy

__all__ = [
    "BaseStorage",
    "FSMContext",
    "FSMContextMiddleware",
    "FSMStrategy",
    "MemoryStorage",
    "State",
    "StateFilter",
    "StatesGroup",
    "StorageDataError",
    "StorageError",
    "StorageKey",
    "any_state",
    "default_state",
]
