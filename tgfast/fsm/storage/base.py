"""What every FSM storage provides, the key of one record, and the storage errors."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any, Literal, NamedTuple

from ...errors import TgfastError

__all__ = [
    "DEFAULT_DESTINY",
    "BaseEventIsolation",
    "BaseStorage",
    "DefaultKeyBuilder",
    "KeyBuilder",
    "StateType",
    "StorageDataError",
    "StorageError",
    "StorageKey",
    "data_mapping",
    "state_string",
]

DEFAULT_DESTINY = "default"

StateType = str | None
"""A state as stored: its string (``"Form:name"``) or None for no state."""


class StorageError(TgfastError):
    """The FSM storage could not do what was asked (the Redis server is down, say)."""


class StorageDataError(StorageError, TypeError):
    """FSM data the storage cannot keep (a value orjson does not serialize, a key
    that is not a str); also a ``TypeError``, as a bad value is."""


def data_mapping(data: object) -> Mapping[str, Any]:
    """``data`` when it is FSM data (a mapping); else ``StorageDataError`` (aiogram's
    ``DataNotDictLikeError``), the same on every storage."""
    if not isinstance(data, Mapping):
        raise StorageDataError(f"FSM data must be a dict or dict-like, not {type(data).__name__}")
    return data


def state_string(state: object) -> StateType:
    """What a storage keeps for ``state``: a ``State``'s string, a str, or None."""
    if state is None or isinstance(state, str):
        return state
    value = getattr(state, "state", state)  # a State (imported lazily: fsm.state imports us)
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"a state is a State, a str or None, not {type(state).__name__}")


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

    tgfast's storages make ``update_data`` atomic: two concurrent updates of different
    keys of one record both survive. Data is a ``dict`` with str keys; ``get_data`` returns a
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

    async def update_data(self, key: StorageKey, data: Mapping[str, Any]) -> dict[str, Any]:
        """Merge ``data`` into the record's data at its top level; the result.

        tgfast's storages override it to be atomic. This default (for a storage written
        for aiogram, which implements only the other methods) reads, merges and writes,
        as aiogram's does: concurrent updates of one record may lose one another's keys.
        """
        merged = {**await self.get_data(key), **data}
        await self.set_data(key, merged)
        return merged

    async def get_value(self, storage_key: StorageKey, dict_key: str, default: Any = None) -> Any:
        """One value of the data, ``default`` when it is not there."""
        return (await self.get_data(storage_key)).get(dict_key, default)

    async def clear(self, key: StorageKey) -> None:
        """Remove the state and the data (storages may do it in one step)."""
        await self.set_state(key, None)
        await self.set_data(key, {})

    @abstractmethod
    async def close(self) -> None:
        """Release what the storage holds (connections)."""


class KeyBuilder(ABC):
    """Names a record's parts as strings, for storages keyed by string (Redis)."""

    __slots__ = ()

    @abstractmethod
    def build(self, key: StorageKey, part: Literal["data", "state", "lock"] | None = None) -> str:
        """The string name of ``part`` of the record ``key``."""


class DefaultKeyBuilder(KeyBuilder):
    """aiogram's key names: ``<prefix>[:<bot>][:<business>]:<chat>[:<thread>]:<user>
    [:<destiny>][:<part>]``, joined by ``separator``.

    ``RedisStorage(redis, key_builder=DefaultKeyBuilder(...))`` with the arguments an
    aiogram bot gave its own ``DefaultKeyBuilder`` reads and writes the records that
    bot left in Redis. The bot id, the business connection and the destiny are left
    out unless asked for; a destiny other than the default then raises ``ValueError``
    instead of sharing a name with the default record.
    """

    __slots__ = (
        "prefix", "separator", "with_bot_id", "with_business_connection_id", "with_destiny"
    )  # fmt: skip

    def __init__(
        self,
        *,
        prefix: str = "fsm",
        separator: str = ":",
        with_bot_id: bool = False,
        with_business_connection_id: bool = False,
        with_destiny: bool = False,
    ) -> None:
        self.prefix = prefix
        self.separator = separator
        self.with_bot_id = with_bot_id
        self.with_business_connection_id = with_business_connection_id
        self.with_destiny = with_destiny

    def build(self, key: StorageKey, part: Literal["data", "state", "lock"] | None = None) -> str:
        parts = [self.prefix]
        if self.with_bot_id:
            parts.append(str(key.bot_id))
        if self.with_business_connection_id and key.business_connection_id:
            parts.append(key.business_connection_id)
        parts.append(str(key.chat_id))
        if key.thread_id:
            parts.append(str(key.thread_id))
        parts.append(str(key.user_id))
        if self.with_destiny:
            parts.append(key.destiny)
        elif key.destiny != DEFAULT_DESTINY:
            raise ValueError(
                f"destiny {key.destiny!r} needs DefaultKeyBuilder(with_destiny=True): without "
                "it every destiny would share the default record's name"
            )
        if part:
            parts.append(part)
        return self.separator.join(parts)

    def __repr__(self) -> str:
        return (
            f"DefaultKeyBuilder(prefix={self.prefix!r}, separator={self.separator!r}, "
            f"with_bot_id={self.with_bot_id}, with_business_connection_id="
            f"{self.with_business_connection_id}, with_destiny={self.with_destiny})"
        )


class BaseEventIsolation(ABC):
    """Handles the updates of one FSM record one at a time: ``Dispatcher(
    events_isolation=...)`` holds ``lock(key)`` around each update's handling."""

    __slots__ = ()

    @abstractmethod
    def lock(self, key: StorageKey) -> AbstractAsyncContextManager[None]:
        """Held while an update of record ``key`` is handled."""

    @abstractmethod
    async def close(self) -> None:
        """Release what the isolation holds."""
