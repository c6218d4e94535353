"""``FSMContext``: one conversation's state and data, as a handler sees them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .state import ANY_STATE, State
from .storage.base import BaseStorage, StateType, StorageKey, data_mapping

__all__ = ["FSMContext"]


class FSMContext:
    """The FSM record of one key (by default: this user in this chat) in ``storage``.

    Handlers get it as ``state``. It holds nothing itself: every call goes to the
    storage, so several processes sharing a storage see one conversation.
    """

    __slots__ = ("key", "storage")

    def __init__(self, storage: BaseStorage, key: StorageKey) -> None:
        self.storage = storage
        self.key = key

    async def get_state(self) -> StateType:
        """The current state string (``"Form:name"``), None when there is none."""
        return await self.storage.get_state(self.key)

    async def set_state(self, state: State | str | None = None) -> None:
        """Move to ``state`` (a ``State`` or its string); None leaves every state."""
        if isinstance(state, State):
            value = state.state
        elif state is None or isinstance(state, str):
            value = state
        else:
            raise TypeError(f"a state is a State, a str or None, not {type(state).__name__}")
        if value == ANY_STATE:
            raise ValueError("State('*') matches any state in filters; it cannot be set")
        await self.storage.set_state(self.key, value)

    async def get_data(self) -> dict[str, Any]:
        """A copy of the data (``{}`` when there is none)."""
        return await self.storage.get_data(self.key)

    async def get_value(self, key: str, default: Any = None) -> Any:
        """One value of the data, ``default`` when it is not there."""
        return await self.storage.get_value(self.key, key, default)

    async def set_data(self, data: Mapping[str, Any]) -> None:
        """Replace the data (``StorageDataError``, aiogram's ``DataNotDictLikeError``,
        when it is not a mapping, whatever the storage)."""
        await self.storage.set_data(self.key, data_mapping(data))

    async def update_data(
        self, data: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Merge ``data`` and ``kwargs`` into the data (atomically) and return all of it.

        ``data`` is a keyword too, as in aiogram: ``update_data(data={...})`` merges the
        mapping (so no value can be stored under the name ``data`` through ``kwargs``)."""
        if data is None:
            update: Mapping[str, Any] = kwargs
        elif kwargs:
            update = {**data_mapping(data), **kwargs}
        else:
            update = data_mapping(data)
        return await self.storage.update_data(self.key, update)

    async def clear(self) -> None:
        """End the conversation: no state, no data."""
        await self.storage.clear(self.key)

    def __repr__(self) -> str:
        return f"FSMContext({type(self.storage).__name__}, {self.key!r})"
