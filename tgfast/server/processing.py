"""The processing model: per-chat order, bounded in-flight work, dedup, drain.

``UpdateProcessor.put`` takes an update or refuses it, synchronously, so a webhook can
answer 503 before acknowledging anything it could not keep. A taken update is handled:
the only way out of the processor is through the dispatcher.

Ordering: updates are queued per key (``keys.update_key``: the chat, else the user).
A chat with work gets one worker task that drains its deque, so a chat's updates are
handled one at a time in arrival order while other chats run concurrently, and the
per-update cost is a deque append, not a task. ``concurrency="full"`` runs every
update in its own task; ``"sequential"`` puts all updates in one queue.

Bounds: ``in_flight`` counts updates taken and not finished (queued or running). At
``max_in_flight`` ``put`` answers ``FULL``: the webhook turns that into 503 with
``Retry-After`` (Telegram delivers again), the poller stops fetching. Memory is
therefore bounded by ``max_in_flight`` updates, whatever the load.

Dedup: the update id is claimed from ``SeenUpdates`` by the worker, right before the
handler runs (in queue order, so a slow shared store cannot reorder a chat). A claim
that fails is a redelivery: dropped, counted as ``duplicate``. A claim is only made for
an update already taken, so nothing is refused after a claim; claims of updates whose
handling was abandoned by ``abort`` are released so that they can come back.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import time
from collections import deque
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from ..client.encoding import prepare
from ..dispatcher import FAILED, UNHANDLED
from ..methods.base import TelegramMethod
from .keys import update_key
from .metrics import Metrics, Rejected
from .seen import MemorySeenUpdates, SeenUpdates

if TYPE_CHECKING:
    from ..client import Bot
    from ..dispatcher import Dispatcher
    from ..types import Update

__all__ = [
    "CONCURRENCY_MODES",
    "DEFAULT_MAX_IN_FLIGHT",
    "Admission",
    "Concurrency",
    "UpdateProcessor",
]

log = logging.getLogger("tgfast.server")

Concurrency: TypeAlias = Literal["chat", "full", "sequential"]
CONCURRENCY_MODES: tuple[Concurrency, ...] = ("chat", "full", "sequential")

DEFAULT_MAX_IN_FLIGHT = 1000
"""Updates taken and not finished, at most. A few seconds of a busy bot's traffic."""

_SEQUENTIAL_KEY = "all"
_perf = time.perf_counter

# A queued job: the update, its kind (for metrics) and the reply-mode waiter, if any.
_Job: TypeAlias = "tuple[Update, str, asyncio.Future[TelegramMethod[Any] | None] | None]"


class Admission(enum.Enum):
    """What ``put`` did with an update."""

    ACCEPTED = "accepted"  # taken: it will be handled (acknowledge it)
    FULL = "full"  # refused: in-flight work is at its bound (answer 503)
    CLOSED = "closed"  # refused: shutting down (answer 503)


class UpdateProcessor:
    """Runs updates through ``dispatcher.feed_update(bot, update)`` under the model above.

    ``seen`` defaults to a ``MemorySeenUpdates``; pass a shared one (Redis) for several
    workers, or ``None`` to handle redeliveries again. ``metrics`` is where counts go.
    """

    def __init__(
        self,
        dispatcher: Dispatcher,
        bot: Bot,
        *,
        concurrency: Concurrency = "chat",
        max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
        seen: SeenUpdates | None | Literal["memory"] = "memory",
        metrics: Metrics | None = None,
    ) -> None:
        if concurrency not in CONCURRENCY_MODES:
            raise ValueError(f"concurrency must be one of {CONCURRENCY_MODES}, got {concurrency!r}")
        if max_in_flight < 1:
            raise ValueError(f"max_in_flight must be at least 1, got {max_in_flight}")
        self.dispatcher = dispatcher
        self.bot = bot
        self.concurrency: Concurrency = concurrency
        self.max_in_flight = max_in_flight
        self.seen: SeenUpdates | None = MemorySeenUpdates() if seen == "memory" else seen  # type: ignore[assignment]
        self.metrics = metrics if metrics is not None else Metrics()
        self.in_flight = 0
        """Updates taken and not yet finished: queued, running, or sending their reply."""
        self._feed = dispatcher.feed_update
        self._queues: dict[Hashable, deque[_Job]] = {}
        self._workers: dict[Hashable, asyncio.Task[None]] = {}
        self._loose: set[asyncio.Task[None]] = set()  # one-update tasks (full / keyless)
        self._closed = False
        self._idle: asyncio.Future[None] | None = None
        self._room: asyncio.Future[None] | None = None
        self._abandoned: list[int] = []
        metrics = self.metrics
        metrics.gauge("updates_in_flight", "Updates taken and not finished (the queue depth).",
                      lambda: self.in_flight)  # fmt: skip
        metrics.gauge("updates_in_flight_limit", "The bound on in-flight updates.",
                      lambda: self.max_in_flight)  # fmt: skip
        metrics.gauge("active_chats", "Chats with updates queued or running.",
                      lambda: len(self._queues))  # fmt: skip

    # -- taking updates --------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """True once ``close`` was called: nothing more is taken."""
        return self._closed

    @property
    def full(self) -> bool:
        return self.in_flight >= self.max_in_flight

    @property
    def room(self) -> int:
        """How many more updates ``put`` would take now."""
        return 0 if self._closed else max(0, self.max_in_flight - self.in_flight)

    def put(
        self,
        update: Update,
        waiter: asyncio.Future[TelegramMethod[Any] | None] | None = None,
    ) -> Admission:
        """Take ``update`` for handling, or refuse it (``FULL``, ``CLOSED``) untouched.

        ``waiter`` (reply mode) gets the method object the handler returned, when it
        can go out as a webhook reply, else ``None``; cancel it to have the method
        sent by a normal call instead.
        """
        if self._closed:
            self.metrics.rejected[Rejected.DRAINING] += 1
            return Admission.CLOSED
        if self.in_flight >= self.max_in_flight:
            self.metrics.rejected[Rejected.OVERLOADED] += 1
            return Admission.FULL
        self.in_flight += 1
        kind, key = update_key(update)
        self.metrics.received[kind] += 1
        job = (update, kind, waiter)
        concurrency = self.concurrency
        if concurrency == "sequential":
            key = _SEQUENTIAL_KEY
        elif concurrency == "full" or key is None:
            task = asyncio.get_running_loop().create_task(self._process(job))
            self._loose.add(task)
            task.add_done_callback(self._loose.discard)
            return Admission.ACCEPTED
        queue = self._queues.get(key)
        if queue is None:
            queue = self._queues[key] = deque((job,))
            self._workers[key] = asyncio.get_running_loop().create_task(self._drain(key, queue))
        else:
            queue.append(job)
        return Admission.ACCEPTED

    async def wait_for_room(self) -> int:
        """Wait until ``put`` would take an update (or the processor is closed); the room."""
        while self.in_flight >= self.max_in_flight and not self._closed:
            if self._room is None or self._room.done():
                self._room = asyncio.get_running_loop().create_future()
            await asyncio.shield(self._room)
        return self.room

    # -- handling ----------------------------------------------------------------------

    async def _drain(self, key: Hashable, queue: deque[_Job]) -> None:
        try:
            while queue:
                await self._process(queue.popleft())
        finally:
            del self._queues[key]
            del self._workers[key]

    async def _process(self, job: _Job) -> None:
        update, kind, waiter = job
        claimed = False
        try:
            seen = self.seen
            if seen is not None:
                try:
                    claimed = await seen.claim(self.bot.id, update.update_id)
                except Exception as exc:  # noqa: BLE001 - acknowledged: handle it regardless
                    log.warning("update %s: SeenUpdates.claim failed (%r); handling it anyway",
                                update.update_id, exc)  # fmt: skip
                else:
                    if not claimed:
                        self.metrics.rejected[Rejected.DUPLICATE] += 1
                        return
            started = _perf()
            try:
                result = await self._feed(self.bot, update)
            except Exception as exc:  # noqa: BLE001 - feed_update logs handler errors itself
                log.error("update %s: dispatcher raised %r", update.update_id, exc, exc_info=exc)
                result = FAILED
            metrics = self.metrics
            metrics.latency.observe(_perf() - started)
            if result is UNHANDLED:
                metrics.unhandled[kind] += 1
            elif result is FAILED:
                metrics.failed[kind] += 1
            elif isinstance(result, TelegramMethod):
                if waiter is not None and not waiter.done() and self._replyable(result):
                    waiter.set_result(result)  # the webhook response carries it
                    metrics.handled[kind] += 1
                    return
                if waiter is not None and not waiter.done():
                    waiter.set_result(None)  # acknowledge now, call below
                if await self._send(update, result):
                    metrics.handled[kind] += 1
                else:
                    metrics.failed[kind] += 1
            else:
                metrics.handled[kind] += 1
        except asyncio.CancelledError:
            if claimed:
                self._abandoned.append(update.update_id)
            raise
        finally:
            if waiter is not None and not waiter.done():
                waiter.set_result(None)
            self._finish()

    def _finish(self) -> None:
        n = self.in_flight = self.in_flight - 1
        room = self._room
        if room is not None and n < self.max_in_flight and not room.done():
            room.set_result(None)
        if n == 0 and self._idle is not None and not self._idle.done():
            self._idle.set_result(None)

    def _replyable(self, method: TelegramMethod[Any]) -> bool:
        """A webhook reply is JSON: a method carrying a file to upload must be called."""
        return not method.__uploads__ or not prepare(method.build(self.bot.defaults))[1]

    async def _send(self, update: Update, method: TelegramMethod[Any]) -> bool:
        try:
            await self.bot(method)
        except Exception as exc:  # noqa: BLE001 - the update is done; say why it went wrong
            log.error("update %s: sending the handler's %s failed: %s",
                      update.update_id, method.__api_method__, exc)  # fmt: skip
            return False
        return True

    # -- stopping ----------------------------------------------------------------------

    def close(self) -> None:
        """Take nothing more (``put`` answers ``CLOSED``); what was taken still runs."""
        self._closed = True
        room = self._room
        if room is not None and not room.done():
            room.set_result(None)

    async def drain(self) -> None:
        """Close, then wait until every update taken has been handled."""
        self.close()
        while self.in_flight:
            if self._idle is None or self._idle.done():
                self._idle = asyncio.get_running_loop().create_future()
            await asyncio.shield(self._idle)

    async def abort(self) -> int:
        """Close and cancel everything in flight (a second signal); how many were dropped.

        Claims of updates cancelled mid-way are released, so a redelivery (or the next
        getUpdates after a restart) is handled instead of dropped as a duplicate.
        """
        self.close()
        dropped = self.in_flight
        for queue in self._queues.values():
            for _update, _kind, waiter in queue:
                if waiter is not None and not waiter.done():
                    waiter.set_result(None)
        tasks = [*self._workers.values(), *self._loose]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        abandoned, self._abandoned = self._abandoned, []
        if self.seen is not None and abandoned:
            try:
                await asyncio.wait_for(self._release(self.seen, abandoned), 1.0)
            except Exception as exc:  # noqa: BLE001 - best effort on the way out
                log.warning("could not release %d abandoned claims: %r", len(abandoned), exc)
        self.in_flight = 0
        if self._idle is not None and not self._idle.done():
            self._idle.set_result(None)
        return dropped

    async def _release(self, seen: SeenUpdates, update_ids: list[int]) -> None:
        for update_id in update_ids:
            await seen.release(self.bot.id, update_id)

    def __repr__(self) -> str:
        return (
            f"UpdateProcessor(concurrency={self.concurrency!r}, in_flight={self.in_flight}, "
            f"max_in_flight={self.max_in_flight}, closed={self._closed})"
        )
