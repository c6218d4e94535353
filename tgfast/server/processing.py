"""The processing model: per-chat order, bounded in-flight work, dedup, drain.

``UpdateProcessor.submit`` takes an update or refuses it before the webhook answers,
so that nothing is acknowledged that could not be kept. A taken update is handled:
the only way out of the processor is through the dispatcher.

Ordering: updates are queued per key (``keys.update_key``: the chat, else the user).
A chat with work gets one worker task that drains its deque, so a chat's updates are
handled one at a time in arrival order while other chats run concurrently, and the
per-update cost is a deque append, not a task. ``concurrency="full"`` runs every
update in its own task; ``"sequential"`` puts all updates in one queue.

Bounds: ``in_flight`` counts updates taken and not finished (queued or running). At
``max_in_flight`` ``submit`` answers ``FULL``: the webhook turns that into 503 with
``Retry-After`` (Telegram delivers again), the poller stops fetching. Memory is
therefore bounded by ``max_in_flight`` updates, whatever the load.

Saturation: while the webhook server runs, the processor looks at the event loop every
``_LAG_TICK``. When the loop's thread ran all the time (its CPU time kept up with the
clock) two ticks in a row, the CPU is the bottleneck, and more updates taken would only
queue: ``in_flight_limit``, the bound in force, comes down to the updates in flight and
follows them down (not below ``_HELD_AT_LEAST``), so that an update is taken only as
another finishes. A tick with idle time raises it by half, up to ``max_in_flight``. At
overload the queue stays short, instead of ``max_in_flight`` handlers started whose work
holds back the updates taken before them (the updates handled per second would dip while
they pile up). A loop waiting on I/O is not saturated, however many updates it holds.

Lateness: when two ticks in a row run late by more than ``max_lag`` (a handler holding
the loop, a core taken by others), ``lagging`` makes the webhook refuse new updates from
their head (503, as at the bound) until a tick is on time again. A single late tick (a
pause of the process, a neighbour) refuses nothing.

Dedup: ``submit`` claims the update id from ``SeenUpdates`` after the bound check,
holding a slot while the claim is out, so a claimed update is always taken: a refusal
never has a claim to undo, and a refused update costs no round trip to a shared
store. A redelivery of an update handled already is ``DUPLICATE`` (acknowledge it, do
nothing); one of an update still being handled, here or by another live worker, is
``BUSY`` (503: if that worker dies before it is done, the next delivery handles it); a
store that cannot answer gives ``UNAVAILABLE`` (503: Telegram tries again later). Each
handled update is marked done, in batches, off the handler's path. Claims of updates
that were taken and then abandoned (``abort``, a cancelled ``submit``) are released,
so that a redelivery or a refetch is handled.

Crashes: with a ``Journal`` (Redis) the webhook's raw body is kept with the claim, and
``start`` has this processor take over the updates that dead workers acknowledged and
never finished; they are handled like any other (over the bound if need be: they were
acknowledged already).
"""

from __future__ import annotations

import asyncio
import enum
import time
from collections import deque
from collections.abc import Awaitable, Callable, Hashable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from .. import tracing
from .._logging import get_logger
from ..client.encoding import prepare
from ..decoding import decode_update
from ..dispatcher import FAILED, UNHANDLED
from ..logs import current_update
from ..methods.base import TelegramMethod
from ..tasks import cancel_and_wait
from ..types.binding import current_bot
from .keys import update_key
from .metrics import Metrics, Rejected
from .seen import Claim, Journal, MemorySeenUpdates, SeenUpdates

if TYPE_CHECKING:
    from ..client import Bot
    from ..dispatcher import Dispatcher
    from ..types import Update

__all__ = [
    "CONCURRENCY_MODES",
    "DEFAULT_MAX_IN_FLIGHT",
    "DEFAULT_MAX_LAG",
    "Admission",
    "Concurrency",
    "UpdateProcessor",
]

log = get_logger("tgfast.server")
_DEBUG = 10  # logging.DEBUG

Concurrency: TypeAlias = Literal["chat", "full", "sequential"]
CONCURRENCY_MODES: tuple[Concurrency, ...] = ("chat", "full", "sequential")

DEFAULT_MAX_IN_FLIGHT = 1000
"""Updates taken and not finished, at most. A few seconds of a busy bot's traffic."""

DEFAULT_MAX_LAG = 0.05
"""Seconds the event loop may run late, two ticks in a row, before the webhook refuses
new updates (``UpdateProcessor.lagging``). The p99 latency a clean rate allows."""

_LAG_TICK = 0.025  # seconds between two looks at the loop
_LATE_TICKS = 2  # late (or busy) ticks in a row that make the processor lagging (saturated)
_SATURATED = 0.95  # the share of a tick's time the loop's thread ran that makes it busy
_HELD_AT_LEAST = 64  # the bound in force never comes down below this

_SEQUENTIAL_KEY = "all"
_perf = time.perf_counter

# A queued job: the update, its kind (for metrics) and the reply-mode waiter, if any.
_Job: TypeAlias = "tuple[Update, str, asyncio.Future[TelegramMethod[Any] | None] | None]"


class Admission(enum.Enum):
    """What ``submit`` (or ``put``) did with an update."""

    ACCEPTED = "accepted"  # taken: it will be handled (acknowledge it)
    DUPLICATE = "duplicate"  # a redelivery of an update already handled (acknowledge it)
    BUSY = "busy"  # refused: a redelivery of an update still being handled (answer 503)
    FULL = "full"  # refused: in-flight work is at its bound (answer 503)
    CLOSED = "closed"  # refused: shutting down (answer 503)
    UNAVAILABLE = "unavailable"  # refused: SeenUpdates failed (answer 503)

    @property
    def taken(self) -> bool:
        """True when the update needs no redelivery: acknowledge it with a 200."""
        return self is Admission.ACCEPTED or self is Admission.DUPLICATE


class UpdateProcessor:
    """Runs updates through ``dispatcher.feed_update(bot, update)`` under the model above.

    ``seen`` defaults to a ``MemorySeenUpdates``; pass a shared one (Redis) for several
    workers, or ``None`` to handle redeliveries again. ``metrics`` is where counts go.
    ``data``: keyword arguments added to every ``feed_update`` (workflow data).
    ``max_lag``: see "Lateness" above (seconds; None: no watch on the loop at all,
    neither lateness nor saturation).
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
        data: Mapping[str, Any] | None = None,
        max_lag: float | None = DEFAULT_MAX_LAG,
    ) -> None:
        if concurrency not in CONCURRENCY_MODES:
            raise ValueError(f"concurrency must be one of {CONCURRENCY_MODES}, got {concurrency!r}")
        if max_in_flight < 1:
            raise ValueError(f"max_in_flight must be at least 1, got {max_in_flight}")
        self.dispatcher = dispatcher
        self.bot = bot
        self.concurrency: Concurrency = concurrency
        self.max_in_flight = max_in_flight
        self.seen: SeenUpdates | None = MemorySeenUpdates() if seen == "memory" else seen
        # an in-process store is marked at once; a shared one in batches, by a task
        seen_store = self.seen
        in_memory = seen_store if type(seen_store) is MemorySeenUpdates else None
        self._mark_now = None if in_memory is None else in_memory.mark_done
        self._claim_now = None if in_memory is None else in_memory.claim_now
        self._journal = seen_store if isinstance(seen_store, Journal) else None
        self.metrics = metrics if metrics is not None else Metrics()
        if (
            not bot._count_calls(self.metrics.api_calls)  # counted in place, else a hook
            and self.metrics.on_api_call not in bot.api_call_hooks
        ):
            bot.api_call_hooks.append(self.metrics.on_api_call)
        if tracing.tracer is not None:  # OpenTelemetry: spans around handlers and calls
            tracing.attach(dispatcher, bot)
        self.in_flight = 0
        """Updates taken and not yet finished: queued, running, or sending their reply."""
        if max_lag is not None and max_lag <= 0:
            raise ValueError(f"max_lag must be positive (or None), got {max_lag}")
        self.max_lag = max_lag
        self.lagging = False
        """The event loop ran late by over ``max_lag`` at the last ticks: refuse new work."""
        self._late_ticks = 0
        self.in_flight_limit = max_in_flight
        """The bound in force: ``max_in_flight``, lower while the loop is saturated."""
        self._busy_ticks = 0
        self._tick_at = self._tick_cpu = 0.0
        self._lag_timer: asyncio.TimerHandle | None = None
        # extra workflow data for every update (aiogram's request handlers take some);
        # none: the dispatcher's own method, nothing added per update
        self._feed: Callable[[Bot, Update], Awaitable[Any]] = (
            partial(dispatcher.feed_update, **data) if data else dispatcher.feed_update
        )
        self._queues: dict[Hashable, deque[_Job]] = {}
        self._workers: dict[Hashable, asyncio.Task[None]] = {}
        self._loose: set[asyncio.Task[None]] = set()  # one-update tasks (full / keyless)
        self._closed = False
        self._idle: asyncio.Future[None] | None = None
        self._room: asyncio.Future[None] | None = None
        self._abandoned: list[int] = []
        self._done: list[int] = []  # handled, to be marked done in SeenUpdates
        self._marking: asyncio.Task[None] | None = None
        self._bot_id = bot.id
        metrics = self.metrics
        metrics.gauge("updates_in_flight", "Updates taken and not finished (the queue depth).",
                      lambda: self.in_flight)  # fmt: skip
        metrics.gauge("updates_in_flight_limit", "The bound on in-flight updates.",
                      lambda: self.in_flight_limit)  # fmt: skip
        metrics.gauge("active_chats", "Chats with updates queued or running.",
                      lambda: len(self._queues))  # fmt: skip

    # -- taking updates --------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """True once ``close`` was called: nothing more is taken."""
        return self._closed

    @property
    def full(self) -> bool:
        return self.in_flight >= self.in_flight_limit

    @property
    def room(self) -> int:
        """How many more updates ``submit`` would take now (none while ``lagging``)."""
        if self._closed or self.lagging:
            return 0
        return max(0, self.in_flight_limit - self.in_flight)

    _cpu_clock = staticmethod(time.thread_time)  # the loop thread's CPU seconds

    async def start(self) -> None:
        """Watch the loop, its lateness and saturation (unless ``max_lag`` is None; the
        webhook server calls this), and take over what dead workers sharing the
        ``Journal`` left unfinished."""
        if self.max_lag is not None and self._lag_timer is None and not self._closed:
            loop = asyncio.get_running_loop()
            self._tick_at, self._tick_cpu = loop.time(), self._cpu_clock()
            due = self._tick_at + _LAG_TICK
            self._lag_timer = loop.call_at(due, self._lag_tick, loop, due)
        if self._journal is not None:
            await self._journal.adopt(self._bot_id, self._take_over)

    def _lag_tick(self, loop: asyncio.AbstractEventLoop, due: float) -> None:
        now = loop.time()
        cpu = self._cpu_clock()
        busy = (cpu - self._tick_cpu) / max(now - self._tick_at, 1e-9)
        self._tick_at, self._tick_cpu = now, cpu
        limit = self.in_flight_limit
        if busy >= _SATURATED:
            self._busy_ticks += 1
            if self._busy_ticks >= _LATE_TICKS:  # saturated: take only as others finish
                floor = min(_HELD_AT_LEAST, self.max_in_flight)
                self.in_flight_limit = max(floor, min(limit, self.in_flight))
        else:
            self._busy_ticks = 0
            if limit < self.max_in_flight:
                self.in_flight_limit = min(self.max_in_flight, limit + max(limit // 2, 16))
                self._wake_room()
        max_lag = self.max_lag
        if max_lag is not None and now - due > max_lag:
            self._late_ticks += 1
            if self._late_ticks >= _LATE_TICKS:
                self.lagging = True
        else:
            self._late_ticks = 0
            if self.lagging:
                self.lagging = False
                self._wake_room()
        due = now + _LAG_TICK
        self._lag_timer = loop.call_at(due, self._lag_tick, loop, due)

    def _wake_room(self) -> None:
        room = self._room
        if room is not None and not room.done():
            room.set_result(None)

    def _take_over(self, bodies: list[bytes]) -> None:
        for body in bodies:
            try:
                update = decode_update(body)
            except Exception as exc:  # noqa: BLE001 - it decoded when it came in
                log.error("a dead worker's update does not decode: %s", exc)
                continue
            self.in_flight += 1
            self._enqueue(update, None)

    async def submit(
        self,
        update: Update,
        waiter: asyncio.Future[TelegramMethod[Any] | None] | None = None,
        body: bytes | None = None,
    ) -> Admission:
        """Take ``update`` for handling, or say why not; see ``Admission``.

        ``waiter`` (reply mode) gets the method object the handler returned, when it
        can go out as a webhook reply, else ``None``; cancel it to have the method
        sent by a normal call instead. ``body``, the update as received, is kept in a
        ``Journal`` until the update is done, for a live worker to handle if this one
        dies.
        """
        seen = self.seen
        if seen is None:
            return self.put(update, waiter)
        refused = self._refusal()
        if refused is not None:
            return refused
        self.in_flight += 1  # the slot is held while the claim is out
        update_id = update.update_id
        try:
            journal = self._journal
            if journal is not None and body is not None:
                claim = await journal.claim(self._bot_id, update_id, body)
            else:
                claim = await seen.claim(self._bot_id, update_id)
        except Exception as exc:  # noqa: BLE001 - refuse: Telegram delivers it again later
            self._finish()
            self.metrics.rejected[Rejected.UNAVAILABLE] += 1
            log.error("update %s refused: SeenUpdates.claim failed: %r", update_id, exc)
            return Admission.UNAVAILABLE
        except BaseException:  # cancelled: the claim may have been made, undo it
            self._finish()
            self._release_soon([update_id])
            raise
        if claim is not Claim.NEW:
            self._finish()
            if claim is Claim.DONE:
                self.metrics.rejected[Rejected.DUPLICATE] += 1
                return Admission.DUPLICATE
            self.metrics.rejected[Rejected.BUSY] += 1
            return Admission.BUSY
        self._enqueue(update, waiter)
        return Admission.ACCEPTED

    def offer(self, update: Update) -> Admission | None:
        """``submit`` without a coroutine when nothing has to be waited for (no store, or
        one in memory): the webhook's hot path. None: call ``submit``."""
        seen = self.seen
        if seen is None:
            return self.put(update)
        claim_now = self._claim_now
        if claim_now is None:
            return None
        refused = self._refusal()
        if refused is not None:
            return refused
        claim = claim_now(self._bot_id, update.update_id)
        if claim is not Claim.NEW:
            if claim is Claim.DONE:
                self.metrics.rejected[Rejected.DUPLICATE] += 1
                return Admission.DUPLICATE
            self.metrics.rejected[Rejected.BUSY] += 1
            return Admission.BUSY
        self.in_flight += 1
        self._enqueue(update, None)
        return Admission.ACCEPTED

    def put(
        self,
        update: Update,
        waiter: asyncio.Future[TelegramMethod[Any] | None] | None = None,
    ) -> Admission:
        """``submit`` without dedup, synchronously: ``ACCEPTED``, ``FULL`` or ``CLOSED``."""
        refused = self._refusal()
        if refused is not None:
            return refused
        self.in_flight += 1
        self._enqueue(update, waiter)
        return Admission.ACCEPTED

    def _refusal(self) -> Admission | None:
        """``CLOSED`` while draining, ``FULL`` at the bound (counted), else None."""
        if self._closed:
            self.metrics.rejected[Rejected.DRAINING] += 1
            return Admission.CLOSED
        if self.in_flight >= self.in_flight_limit:
            self.metrics.rejected[Rejected.OVERLOADED] += 1
            return Admission.FULL
        return None

    def _enqueue(
        self, update: Update, waiter: asyncio.Future[TelegramMethod[Any] | None] | None
    ) -> None:
        """Queue an update whose slot in ``in_flight`` is already counted."""
        kind, chat = update_key(update)
        self.metrics.received[kind] += 1
        job = (update, kind, waiter)
        concurrency = self.concurrency
        key: Hashable = chat
        if concurrency == "sequential":
            key = _SEQUENTIAL_KEY
        elif concurrency == "full" or key is None:
            task = asyncio.get_running_loop().create_task(self._run(job, None))
            self._loose.add(task)
            task.add_done_callback(self._loose.discard)
            return
        queue = self._queues.get(key)
        if queue is None:
            self._queues[key] = deque()
            self._workers[key] = asyncio.get_running_loop().create_task(self._run(job, key))
        else:
            queue.append(job)

    async def wait_for_room(self) -> int:
        """Wait until ``submit`` would take an update (or the processor is closed); the room."""
        while (self.in_flight >= self.in_flight_limit or self.lagging) and not self._closed:
            if self._room is None or self._room.done():
                self._room = asyncio.get_running_loop().create_future()
            await asyncio.shield(self._room)
        return self.room

    # -- handling ----------------------------------------------------------------------

    async def _run(self, job: _Job, key: Hashable | None) -> None:
        """Handle ``job``, then the jobs queued behind it under ``key`` (None: it alone).

        One coroutine for the lot, with the handling written out in it: every step of
        every handler (each await that resumes it) passes through this frame, so a
        coroutine more here would be a frame more on each of them."""
        queue = None if key is None else self._queues[key]
        if current_bot.get() is not self.bot:
            # always in a task of ours (own context): set once, feed_update then skips it
            current_bot.set(self.bot)
        feed = self._feed
        try:
            while True:
                update, kind, waiter = job
                current_update.set(update)  # the update's fields on what its handler logs
                try:
                    started = _perf()
                    try:
                        if tracing.tracer is None:
                            result = await feed(self.bot, update)
                        else:
                            result = await tracing.traced_feed(feed, self.bot, update, kind)
                    except Exception as exc:  # feed_update logs handler errors: a bug here
                        log.error("update %s: dispatcher raised %r", update.update_id, exc,
                                  exc_info=exc)  # fmt: skip
                        result = FAILED
                    metrics = self.metrics
                    elapsed = _perf() - started
                    metrics.latency.observe(elapsed)
                    if log.isEnabledFor(_DEBUG):
                        log.debug("update %s (%s): %s in %.1f ms", update.update_id, kind,
                                  _outcome(result), elapsed * 1000)  # fmt: skip
                    if result is UNHANDLED:
                        metrics.unhandled[kind] += 1
                    elif result is FAILED:
                        metrics.failed[kind] += 1
                    elif result is not None and isinstance(result, TelegramMethod):
                        await self._reply(update, kind, waiter, result)
                    else:
                        metrics.handled[kind] += 1
                except asyncio.CancelledError:
                    self._abandoned.append(update.update_id)
                    raise
                else:
                    if self._mark_now is not None:
                        self._mark_now(self._bot_id, update.update_id)
                    elif self.seen is not None:
                        self._mark_done(update.update_id)
                finally:
                    if waiter is not None and not waiter.done():
                        waiter.set_result(None)
                    self._finish()
                if not queue:
                    return
                job = queue.popleft()
        finally:
            if key is not None:
                del self._queues[key]
                del self._workers[key]

    async def _reply(
        self,
        update: Update,
        kind: str,
        waiter: asyncio.Future[TelegramMethod[Any] | None] | None,
        method: TelegramMethod[Any],
    ) -> None:
        """A handler returned a method: the webhook response carries it when it can,
        else it is called; counted handled or failed."""
        metrics = self.metrics
        if waiter is not None and not waiter.done() and self._replyable(method):
            waiter.set_result(method)
            metrics.handled[kind] += 1
            return
        if waiter is not None and not waiter.done():
            waiter.set_result(None)  # acknowledge now, call below
        if await self._send(update, method):
            metrics.handled[kind] += 1
        else:
            metrics.failed[kind] += 1

    def _finish(self) -> None:
        n = self.in_flight = self.in_flight - 1
        room = self._room
        if room is not None and n < self.in_flight_limit and not room.done():
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
        self.lagging = False
        self.in_flight_limit = self.max_in_flight
        if self._lag_timer is not None:
            self._lag_timer.cancel()
            self._lag_timer = None
        self._wake_room()

    async def drain(self) -> None:
        """Close, then wait until every update taken has been handled and marked done."""
        self.close()
        await self.join()

    async def join(self) -> None:
        """Wait until nothing is in flight and what was handled is marked done (updates
        may still be taken meanwhile)."""
        while self.in_flight or self._marking is not None:
            if self._marking is not None:
                await asyncio.shield(self._marking)
                continue
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
            for update, _kind, waiter in queue:
                self._abandoned.append(update.update_id)
                if waiter is not None and not waiter.done():
                    waiter.set_result(None)
        tasks = [*self._workers.values(), *self._loose]
        await cancel_and_wait(*tasks)
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

    def _mark_done(self, update_id: int) -> None:
        """Queue the done mark; one task sends what has gathered meanwhile, in one go."""
        self._done.append(update_id)
        if self._marking is None:
            self._marking = asyncio.ensure_future(self._send_done())

    async def _send_done(self) -> None:
        try:
            while self._done and self.seen is not None:
                update_ids, self._done = self._done, []
                try:
                    await self.seen.done(self._bot_id, update_ids)
                except Exception as exc:  # noqa: BLE001 - the store keeps the marks to retry
                    log.warning("could not mark %d handled updates done yet: %r",
                                len(update_ids), exc)  # fmt: skip
        finally:
            self._marking = None

    async def _release(self, seen: SeenUpdates, update_ids: list[int]) -> None:
        for update_id in update_ids:
            await seen.release(self._bot_id, update_id)

    def _release_soon(self, update_ids: list[int]) -> None:
        if self.seen is not None:
            task = asyncio.ensure_future(self._release(self.seen, update_ids))
            self._loose.add(task)
            task.add_done_callback(self._loose.discard)

    def __repr__(self) -> str:
        return (
            f"UpdateProcessor(concurrency={self.concurrency!r}, in_flight={self.in_flight}, "
            f"max_in_flight={self.max_in_flight}, closed={self._closed})"
        )


def _outcome(result: object) -> str:
    """What became of an update, for the per-update debug line."""
    if result is UNHANDLED:
        return "unhandled"
    if result is FAILED:
        return "failed"
    if isinstance(result, TelegramMethod):
        return f"handled, returned {result.__api_method__}"
    return "handled"
