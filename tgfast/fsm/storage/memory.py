"""``MemoryStorage``: FSM records in the process's memory, the default storage."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Hashable, Mapping
from contextlib import asynccontextmanager
from typing import Any

from ..._aiogram import absent
from .base import (
    BaseEventIsolation,
    BaseStorage,
    StateType,
    StorageKey,
    data_mapping,
    state_string,
)

__all__ = ["DisabledEventIsolation", "MemoryStorage", "SimpleEventIsolation"]


class MemoryStorage(BaseStorage):
    """States and data in two dicts; gone when the process ends, not shared.

    For one process (development, tests, a single polling worker). Values are kept
    as they are, not serialized: data that works here may still be refused by
    ``RedisStorage`` (orjson). Every operation completes without suspending, so
    ``update_data`` is atomic on one event loop. A record without a state and data
    takes no memory.
    """

    __slots__ = ("_data", "_states")

    def __init__(self) -> None:
        self._states: dict[StorageKey, str] = {}
        self._data: dict[StorageKey, dict[str, Any]] = {}

    async def set_state(self, key: StorageKey, state: StateType) -> None:
        state = state_string(state)
        if state is None:
            self._states.pop(key, None)
        else:
            self._states[key] = state

    async def get_state(self, key: StorageKey) -> StateType:
        return self._states.get(key)

    async def set_data(self, key: StorageKey, data: Mapping[str, Any]) -> None:
        if data_mapping(data):
            self._data[key] = dict(data)
        else:
            self._data.pop(key, None)

    async def get_data(self, key: StorageKey) -> dict[str, Any]:
        data = self._data.get(key)
        return {} if data is None else data.copy()

    async def update_data(self, key: StorageKey, data: Mapping[str, Any]) -> dict[str, Any]:
        data_mapping(data)
        current = self._data.get(key)
        if current is None:
            if not data:
                return {}
            current = self._data[key] = {}
        current.update(data)
        return current.copy()

    async def clear(self, key: StorageKey) -> None:
        self._states.pop(key, None)
        self._data.pop(key, None)

    async def close(self) -> None:
        """Nothing to release; the records stay (a restarted polling loop finds them)."""

    def __len__(self) -> int:
        """How many records hold a state or data."""
        return len(self._states.keys() | self._data.keys())


class SimpleEventIsolation(BaseEventIsolation):
    """One ``asyncio.Lock`` per record, in this process: updates of one record wait for
    each other. A lock nobody holds or waits for is dropped."""

    __slots__ = ("_locks",)

    def __init__(self) -> None:
        self._locks: dict[Hashable, tuple[asyncio.Lock, list[int]]] = {}

    @asynccontextmanager
    async def lock(self, key: StorageKey) -> AsyncIterator[None]:
        entry = self._locks.get(key)
        if entry is None:
            entry = self._locks[key] = (asyncio.Lock(), [0])
        lock, users = entry
        users[0] += 1
        try:
            async with lock:
                yield None
        finally:
            users[0] -= 1
            if not users[0]:
                del self._locks[key]

    async def close(self) -> None:
        self._locks.clear()


class DisabledEventIsolation(BaseEventIsolation):
    """No isolation (the default): updates of one record may be handled at once (in
    tgfast a chat's updates are still handled in order: ``UpdateProcessor``)."""

    __slots__ = ()

    @asynccontextmanager
    async def lock(self, key: StorageKey) -> AsyncIterator[None]:
        yield None

    async def close(self) -> None:
        pass


__getattr__ = absent(
    __name__,
    {
        "MemoryStorageRecord": "tgfast's MemoryStorage keeps states and data in two dicts, "
        "without a record type; read them with get_state() and get_data()",
    },
)
