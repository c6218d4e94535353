"""``MemoryStorage``: FSM records in the process's memory, the default storage.

The records are kept as two dicts, states and data, which is what makes ``get_state``
(every update of a bot with conversations) a single dict lookup. aiogram keeps one
dict of ``MemoryStorageRecord``s instead, and tests written for it read and fill that
dict directly (``storage.storage[key].state = ...``): ``MemoryStorage.storage`` is
that mapping, a view over the two dicts whose records read and write them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Hashable, Iterator, Mapping, MutableMapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from .base import (
    BaseEventIsolation,
    BaseStorage,
    StateType,
    StorageKey,
    data_mapping,
    state_string,
)

__all__ = [
    "DisabledEventIsolation",
    "MemoryStorage",
    "MemoryStorageRecord",
    "SimpleEventIsolation",
]


@dataclass(slots=True)
class MemoryStorageRecord:
    """One conversation's data and state (aiogram's type, with its field order); scene
    history snapshots are records too."""

    data: dict[str, Any] = field(default_factory=dict)
    state: str | None = None


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

    @property
    def storage(self) -> MutableMapping[StorageKey, MemoryStorageRecord]:
        """Every record by key, as aiogram's ``MemoryStorage.storage``: ``storage[key]``
        is the record of ``key`` (an empty one when there is none), and setting its
        ``state`` or ``data`` sets them in this storage."""
        return _Records(self)

    def __len__(self) -> int:
        """How many records hold a state or data."""
        return len(self._states.keys() | {key for key, data in self._data.items() if data})


class _StoredRecord(MemoryStorageRecord):
    """The record of one key, read from and written to its storage's dicts."""

    __slots__ = ("_key", "_storage")

    def __init__(self, storage: MemoryStorage, key: StorageKey) -> None:
        self._storage = storage
        self._key = key

    @property
    def state(self) -> str | None:
        return self._storage._states.get(self._key)

    @state.setter
    def state(self, state: StateType) -> None:
        state = state_string(state)
        if state is None:
            self._storage._states.pop(self._key, None)
        else:
            self._storage._states[self._key] = state

    @property
    def data(self) -> dict[str, Any]:
        """The stored dict itself, as in aiogram: changing it changes the record."""
        return self._storage._data.setdefault(self._key, {})

    @data.setter
    def data(self, data: dict[str, Any]) -> None:
        """A dict is kept as given (as aiogram keeps it), another mapping as a dict."""
        self._storage._data[self._key] = data if type(data) is dict else dict(data_mapping(data))

    def _fields(self) -> tuple[dict[str, Any], str | None]:
        return self._storage._data.get(self._key, {}), self._storage._states.get(self._key)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MemoryStorageRecord):
            return NotImplemented
        return self._fields() == (other.data, other.state)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        data, state = self._fields()
        return f"MemoryStorageRecord(data={data!r}, state={state!r})"


class _Records(MutableMapping[StorageKey, MemoryStorageRecord]):
    """``MemoryStorage.storage``: the records of a storage by key. Reading a key gives
    its record, an empty one when it has none, as aiogram's ``defaultdict`` does; a
    record without a state and data is not listed (``in``, ``get``, iteration)."""

    __slots__ = ("_storage",)

    def __init__(self, storage: MemoryStorage) -> None:
        self._storage = storage

    def __getitem__(self, key: StorageKey) -> MemoryStorageRecord:
        return _StoredRecord(self._storage, key)

    def __setitem__(self, key: StorageKey, record: MemoryStorageRecord) -> None:
        stored = _StoredRecord(self._storage, key)
        stored.state, stored.data = record.state, record.data

    def __delitem__(self, key: StorageKey) -> None:
        if key not in self:
            raise KeyError(key)
        self._storage._states.pop(key, None)
        self._storage._data.pop(key, None)

    def __contains__(self, key: object) -> bool:
        return key in self._storage._states or bool(self._storage._data.get(key))  # type: ignore[call-overload]

    def get(self, key: StorageKey, default: Any = None) -> Any:
        return self[key] if key in self else default

    def __iter__(self) -> Iterator[StorageKey]:
        """The keys of the records that hold a state or data."""
        held = dict.fromkeys(self._storage._states)
        held.update((key, None) for key, data in self._storage._data.items() if data)
        return iter(held)

    def __len__(self) -> int:
        return len(self._storage)


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
