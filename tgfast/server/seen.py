"""Recently seen update ids: a redelivered update is dropped instead of handled twice.

Telegram delivers an update again when it got no 200 in time (a timeout, a dropped
connection, a 503 from a full server). The serving layer claims every update id before
handling it and marks it done afterwards. A redelivery of an update already handled is
acknowledged and dropped (``Claim.DONE``); one of an update still being handled is
refused with 503 (``Claim.BUSY``), because the worker handling it may yet die: Telegram
then tries again, and finds it done, or free again if its worker died. Several workers
share one ``SeenUpdates`` (``tgfast.redis.RedisSeenUpdates``) so that a redelivery reaching
another worker is recognised as well.

A store that is also a ``Journal`` (Redis) keeps the body of every update claimed and
not yet done. When a worker dies (SIGKILL, out of memory) after acknowledging updates
it had not finished, Telegram never sends them again; a live worker takes them over
from the journal and handles them, so that nothing acknowledged is lost.
"""

from __future__ import annotations

import enum
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

__all__ = ["DEFAULT_SEEN_SIZE", "Claim", "Journal", "MemorySeenUpdates", "SeenUpdates"]

DEFAULT_SEEN_SIZE = 10_000
"""Ids remembered per bot: far more than Telegram redelivers out of order."""


class Claim(enum.Enum):
    """What ``SeenUpdates.claim`` found."""

    NEW = "new"  # now ours: handle it, then call done()
    DONE = "done"  # handled already: acknowledge it and drop it
    BUSY = "busy"  # being handled (here or by a live worker): refuse, Telegram retries


@runtime_checkable
class SeenUpdates(Protocol):
    """Where the serving layer records the update ids it took and handled."""

    async def claim(self, bot_id: int, update_id: int) -> Claim:
        """Take the update if nobody has (``NEW``), else say who has (``DONE``/``BUSY``)."""
        ...

    async def done(self, bot_id: int, update_ids: Sequence[int]) -> None:
        """The updates claimed here were handled: a redelivery is now dropped."""
        ...

    async def release(self, bot_id: int, update_id: int) -> None:
        """Forget a claim: the update was abandoned and Telegram will send it again."""
        ...


@runtime_checkable
class Journal(Protocol):
    """A ``SeenUpdates`` that keeps each claimed update's body until it is done."""

    async def claim(self, bot_id: int, update_id: int, body: bytes | None = None) -> Claim:
        """``SeenUpdates.claim``; with ``body``, kept until ``done`` or ``release``."""
        ...

    async def adopt(self, bot_id: int, take: Callable[[list[bytes]], None]) -> None:
        """From now on, hand ``take`` the bodies of ``bot_id``'s updates that dead workers
        claimed and never finished: they are this worker's claims from then on."""
        ...


class MemorySeenUpdates:
    """The last ``size`` update ids of each bot, in this process, each done or not.

    An ``OrderedDict`` per bot gives O(1) claim, done, release and eviction of the
    oldest id.
    """

    __slots__ = ("_bots", "size")

    def __init__(self, size: int = DEFAULT_SEEN_SIZE) -> None:
        if size < 1:
            raise ValueError(f"size must be at least 1, got {size}")
        self.size = size
        self._bots: dict[int, OrderedDict[int, bool]] = {}

    async def claim(self, bot_id: int, update_id: int) -> Claim:
        return self.claim_now(bot_id, update_id)

    def claim_now(self, bot_id: int, update_id: int) -> Claim:
        """``claim``, synchronously: the processor's shortcut (no coroutine)."""
        ids = self._bots.get(bot_id)
        if ids is None:
            ids = self._bots[bot_id] = OrderedDict()
        else:
            done = ids.get(update_id)
            if done is not None:
                return Claim.DONE if done else Claim.BUSY
        ids[update_id] = False
        if len(ids) > self.size:
            ids.popitem(last=False)
        return Claim.NEW

    async def done(self, bot_id: int, update_ids: Sequence[int]) -> None:
        for update_id in update_ids:
            self.mark_done(bot_id, update_id)

    def mark_done(self, bot_id: int, update_id: int) -> None:
        """``done`` for one update, synchronously: the processor's shortcut (no task)."""
        ids = self._bots.get(bot_id)
        if ids is not None and update_id in ids:
            ids[update_id] = True

    async def release(self, bot_id: int, update_id: int) -> None:
        ids = self._bots.get(bot_id)
        if ids is not None:
            ids.pop(update_id, None)

    def __len__(self) -> int:
        return sum(len(ids) for ids in self._bots.values())

    def __repr__(self) -> str:
        return f"MemorySeenUpdates(size={self.size}, remembered={len(self)})"
