"""What every FSM storage provides, the key of one record, and the storage errors."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, NamedTuple

from ...errors import TgfastError

__all__ = [
    "DEFAULT_DESTINY",
    "BaseStorage",
    "StateType",
    "StorageDataError",
    "StorageError",
    "StorageKey",
]

DEFAULT_DESTINY = "default"

StateType = str | None
"""A state as stored: its string (``"Form:name"``) or None for no state."""


class StorageError(TgfastError):
    """The FSM storage could not do what was asked (the Redis server is down, say)."""


class StorageDataError(StorageError, TypeError):
    """FSM data the storage cannot keep (a value orjson does not serialize, a key
    that is not a str); also a ``TypeError``, as a bad value is."""


class StorageKey(NamedTuple):
    """Which FSM record an update uses.

    ``bot_id`` is part of the key, so several bots can share one storage;
    ``destiny`` lets one chat and user hold several independent records.
    """

    bot_id: int
    chat_id: int
    user_id: int
    thread_id: int | None = None
    business_connection_id: str | None = None
    destiny: str = DEFAULT_DESTINY


class BaseStorage(ABC):
    """A place to keep FSM states and data, by ``StorageKey``.

    ``update_data`` must be atomic: two concurrent updates of different keys of one
    record both survive. Data is a ``dict`` with str keys; ``get_data`` returns a
    copy the caller may change freely.
    """

    __slots__ = ()

    @abstractmethod
    async def set_state(self, key: StorageKey, state: StateType) -> None:
        """Set the state (None removes it)."""

    @abstractmethod
    async def get_state(self, key: StorageKey) -> StateType:
        """The current state, None when there is none."""

    @abstractmethod
    async def set_data(self, key: StorageKey, data: Mapping[str, Any]) -> None:
        """Replace the data (an empty mapping removes it)."""

    @abstractmethod
    async def get_data(self, key: StorageKey) -> dict[str, Any]:
        """The data, ``{}`` when there is none."""

    @abstractmethod
    async def update_data(self, key: StorageKey, data: Mapping[str, Any]) -> dict[str, Any]:
        """Merge ``data`` into the record's data at its top level, atomically; the result."""

    async def clear(self, key: StorageKey) -> None:
        """Remove the state and the data (storages may do it in one step)."""
        await self.set_state(key, None)
        await self.set_data(key, {})

    @abstractmethod
    async def close(self) -> None:
        """Release what the storage holds (connections)."""
