"""``HistoryManager``: the scenes a conversation went through, for ``wizard.back()``.

The history is FSM data of its own: the conversation's record under another destiny
(``scenes_history``), so it lives in whatever storage the dispatcher has (memory or
Redis) and is shared by every process that shares the storage. It holds the last
``size`` snapshots of (state, data), each read back as a ``MemoryStorageRecord``
(aiogram's record type, whatever the storage).
"""

from __future__ import annotations

from typing import Any

from .._logging import get_logger
from .context import FSMContext
from .storage.memory import MemoryStorageRecord

__all__ = ["HISTORY_DESTINY", "HistoryManager", "HistoryRecord"]

log = get_logger("tgfast.scene")

HISTORY_DESTINY = "scenes_history"
"""The destiny of the record that holds a conversation's scene history."""

HistoryRecord = MemoryStorageRecord
"""One snapshot, ``state`` and ``data``: tgfast's earlier name of aiogram's record type."""


class HistoryManager:
    """Push, pop and roll back snapshots of ``state``'s conversation (aiogram's API).

    With ``RedisStorage`` the key builder must keep destinies apart
    (``DefaultKeyBuilder(with_destiny=True)``), as in aiogram.
    """

    __slots__ = ("_history_state", "_size", "_state")

    def __init__(self, state: FSMContext, destiny: str = HISTORY_DESTINY, size: int = 10) -> None:
        self._size = size
        self._state = state
        self._history_state = FSMContext(state.storage, state.key._replace(destiny=destiny))

    async def _records(self) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = (await self._history_state.get_data()).get("history", [])
        return records

    async def push(self, state: str | None, data: dict[str, Any]) -> None:
        """Add a snapshot; the oldest ones go beyond ``size``."""
        records = await self._records()
        records.append({"state": state, "data": data})
        log.debug("scene history: push state=%s", state)
        await self._history_state.update_data({"history": records[-self._size :]})

    async def pop(self) -> MemoryStorageRecord | None:
        """Take the latest snapshot off the history (None when it is empty)."""
        records = await self._records()
        if not records:
            return None
        record = records.pop()
        if records:
            await self._history_state.update_data({"history": records})
        else:
            await self._history_state.set_data({})
        log.debug("scene history: pop state=%s", record["state"])
        return MemoryStorageRecord(state=record["state"], data=record["data"])

    async def get(self) -> MemoryStorageRecord | None:
        """The latest snapshot, left in place (None when the history is empty)."""
        records = await self._records()
        return MemoryStorageRecord(**records[-1]) if records else None

    async def all(self) -> list[MemoryStorageRecord]:
        """Every snapshot, oldest first."""
        return [MemoryStorageRecord(**record) for record in await self._records()]

    async def clear(self) -> None:
        """Forget the history."""
        log.debug("scene history: clear")
        await self._history_state.set_data({})

    async def snapshot(self) -> None:
        """Push the conversation's current state and data."""
        await self.push(await self._state.get_state(), await self._state.get_data())

    async def rollback(self) -> str | None:
        """Restore the latest snapshot's state and data and return that state; with an
        empty history the conversation has no state and no data (None)."""
        record = await self.pop()
        state, data = (None, {}) if record is None else (record.state, record.data)
        await self._set_state(state, data)
        return state

    async def _set_state(self, state: str | None, data: dict[str, Any]) -> None:
        await self._state.set_state(state)
        await self._state.set_data(data)
