"""Recently seen update ids: a redelivered update is dropped instead of handled twice.

Telegram delivers an update again when it got no 200 in time (a timeout, a dropped
connection, a 503 from a full server). The serving layer claims every update id before
handling it; a claim that fails means the update is already being (or was) handled.
Several workers share one ``SeenUpdates`` (``tgfast.server.seen_redis``) so that a
redelivery reaching another worker is dropped as well.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Protocol, runtime_checkable

__all__ = ["DEFAULT_SEEN_SIZE", "MemorySeenUpdates", "SeenUpdates"]

DEFAULT_SEEN_SIZE = 10_000
"""Ids remembered per bot: far more than Telegram redelivers out of order."""


@runtime_checkable
class SeenUpdates(Protocol):
    """Where the serving layer records the update ids it took."""

    async def claim(self, bot_id: int, update_id: int) -> bool:
        """True the first time (the id is now marked); False for a redelivery: drop it."""
        ...

    async def release(self, bot_id: int, update_id: int) -> None:
        """Forget a claim: the update was refused (503) and Telegram will send it again."""
        ...


class MemorySeenUpdates:
    """The last ``size`` update ids of each bot, in this process.

    An ``OrderedDict`` per bot gives O(1) claim, release and eviction of the oldest id.
    """

    __slots__ = ("_bots", "size")

    def __init__(self, size: int = DEFAULT_SEEN_SIZE) -> None:
        if size < 1:
            raise ValueError(f"size must be at least 1, got {size}")
        self.size = size
        self._bots: dict[int, OrderedDict[int, None]] = {}

    async def claim(self, bot_id: int, update_id: int) -> bool:
        ids = self._bots.get(bot_id)
        if ids is None:
            ids = self._bots[bot_id] = OrderedDict()
        elif update_id in ids:
            return False
        ids[update_id] = None
        if len(ids) > self.size:
            ids.popitem(last=False)
        return True

    async def release(self, bot_id: int, update_id: int) -> None:
        ids = self._bots.get(bot_id)
        if ids is not None:
            ids.pop(update_id, None)

    def __len__(self) -> int:
        return sum(len(ids) for ids in self._bots.values())

    def __repr__(self) -> str:
        return f"MemorySeenUpdates(size={self.size}, remembered={len(self)})"
