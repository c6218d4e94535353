"""Album aggregation: one handler call for a whole media group, ``album: list[Message]``.

Telegram sends an album as separate messages sharing a ``media_group_id``, with nothing
that marks the last one. ``AlbumMiddleware`` keeps each part in an ``AlbumStore`` and
returns at once (the chat's queue is never held up: a middleware that waited inside
the update would see the next part only after it gave up, whenever a chat's updates
are handled one at a time, as tgfast's processor and aiogram's sequential polling do).
A check scheduled after the quiet period ``delay`` takes the album when no part came
for ``delay`` seconds, and feeds the first part's update through the dispatcher again
with ``album=[...]`` (ordered by ``message_id``): filters, ``errors`` handlers and
returned method objects work as for any update.

With a Redis store (``RedisAlbumStore``, chosen by itself when the dispatcher's FSM
storage is a ``RedisStorage``, whose ``album_store()`` makes one, as ``tgfast webhook
--workers N --redis URL`` does)
the parts of one album that reached different workers meet in one Redis hash, and the
album is taken once, by one worker, atomically. A redelivered part is stored once (the
message id is the field), and a part of an album handed over already is dropped.
What is guaranteed, and what is not: ``docs/media.md``, "What is guaranteed".
"""

from __future__ import annotations

import asyncio
import enum
import os
import time
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .._logging import get_logger
from ..dispatcher.middleware import BaseMiddleware, Handler
from ..methods.base import TelegramMethod

if TYPE_CHECKING:
    from ..client import Bot
    from ..dispatcher import Dispatcher, Router
    from ..types import Message, Update

__all__ = [
    "ALBUM_KINDS",
    "DEFAULT_ALBUM_DELAY",
    "Added",
    "AlbumMiddleware",
    "AlbumStore",
    "MemoryAlbumStore",
    "album_key",
]

log = get_logger("tgfast.album")

DEFAULT_ALBUM_DELAY = 0.4
"""Seconds without a new part after which an album counts as complete. Telegram sends
an album's parts within a few milliseconds of each other; a webhook retry or a slow
balancer may spread them further."""

_WORKER_ID_ENV = "TGFAST_WORKER_ID"  # set in the workers of ``--workers N`` (server.supervisor)

ALBUM_KINDS = ("message", "channel_post", "business_message")
"""Update kinds whose media groups are collected. An edit of one part is about that
part: edits pass through as they are."""


class Added(enum.Enum):
    """What ``AlbumStore.add`` did with a part."""

    NEW = "new"  # stored: a check is due after the quiet period
    STORED = "stored"  # stored already (a redelivery): the album is still being collected
    HANDED = "handed"  # a redelivery of a part of an album handed over already: drop it
    LATE = "late"  # a new part of an album handed over already without it
    FULL = "full"  # the store is at its bound: nothing was stored


@runtime_checkable
class AlbumStore(Protocol):
    """Where the parts of albums wait; shared by the workers when it is Redis.

    ``key`` names one album (``album_key``). ``take`` is atomic: it answers the parts,
    in ``message_id`` order, to one caller only, once the album had no new part for
    ``delay`` seconds; else the seconds left to wait, or None when there is nothing to
    take (taken by someone else, or expired).
    """

    async def add(self, key: str, message_id: int, update: Update) -> Added: ...

    async def take(self, key: str, delay: float) -> list[Update] | float | None: ...

    async def close(self) -> None: ...


def album_key(bot_id: int, chat_id: int, media_group_id: str) -> str:
    """The name of one album in a store: media group ids are only promised unique
    within a chat, and a store may serve several bots."""
    return f"{bot_id}:{chat_id}:{media_group_id}"


@dataclass
class _Parts:
    last: float
    expires: float
    updates: dict[int, Update] = field(default_factory=dict)


class MemoryAlbumStore:
    """The store of one process (the default without Redis).

    Bounded: an album not taken within ``ttl`` seconds is forgotten, and so is the
    record of an album handed over (which drops later redeliveries of its parts);
    at most ``max_albums`` albums wait at once (past that a part is handed over
    alone, with a warning, rather than held without bound).
    """

    def __init__(self, *, ttl: float = 60.0, max_albums: int = 10_000) -> None:
        if ttl <= 0 or max_albums < 1:
            raise ValueError("ttl must be positive and max_albums at least 1")
        self.ttl = ttl
        self.max_albums = max_albums
        self._albums: dict[str, _Parts] = {}
        self._handed: dict[str, tuple[float, frozenset[int]]] = {}
        self._next_sweep = 0.0

    def __len__(self) -> int:
        """Albums waiting, and records of albums handed over, not yet expired."""
        self._sweep(time.monotonic(), force=True)
        return len(self._albums) + len(self._handed)

    def _sweep(self, now: float, *, force: bool = False) -> None:
        if now < self._next_sweep and not force:
            return
        self._next_sweep = now + self.ttl / 4
        for key in [k for k, parts in self._albums.items() if parts.expires <= now]:
            del self._albums[key]
        for key in [k for k, (expires, _) in self._handed.items() if expires <= now]:
            del self._handed[key]

    async def add(self, key: str, message_id: int, update: Update) -> Added:
        now = time.monotonic()
        self._sweep(now)
        handed = self._handed.get(key)
        if handed is not None and handed[0] > now:
            return Added.HANDED if message_id in handed[1] else Added.LATE
        parts = self._albums.get(key)
        if parts is None or parts.expires <= now:
            if len(self._albums) >= self.max_albums:
                return Added.FULL
            parts = self._albums[key] = _Parts(now, now + self.ttl)
        if message_id in parts.updates:
            return Added.STORED
        parts.updates[message_id] = update
        parts.last = now
        parts.expires = now + self.ttl
        return Added.NEW

    async def take(self, key: str, delay: float) -> list[Update] | float | None:
        now = time.monotonic()
        parts = self._albums.get(key)
        if parts is None or parts.expires <= now:
            return None
        wait = parts.last + delay - now
        if wait > 0:
            return wait
        del self._albums[key]
        self._handed[key] = (now + self.ttl, frozenset(parts.updates))
        return [parts.updates[i] for i in sorted(parts.updates)]

    async def close(self) -> None:
        self._albums.clear()
        self._handed.clear()


class AlbumMiddleware(BaseMiddleware):
    """Hands a whole media group to one handler call, as ``album`` (a list of messages
    ordered by ``message_id``; the event is the first of them).

    ``dp.message.outer_middleware(AlbumMiddleware())``, or ``albums.setup(dp)`` which
    also covers channel posts and business messages and waits for pending albums at
    shutdown. A message without ``media_group_id`` goes on at once, untouched.

    ``delay``: the quiet period, in seconds. ``store``: a ``MemoryAlbumStore``, a
    ``tgfast.redis.RedisAlbumStore``, or None to pick one at the first album (Redis
    when the dispatcher's FSM storage is a ``RedisStorage``, else memory).

    ``sweep_every`` (a store with ``overdue``, Redis): every so many seconds, take over
    the albums nobody took although they have been quiet for ``delay + sweep_every``
    seconds: those whose parts all went to workers that died meanwhile. None: never.
    """

    def __init__(
        self,
        delay: float = DEFAULT_ALBUM_DELAY,
        *,
        store: AlbumStore | None = None,
        sweep_every: float | None = 2.0,
    ) -> None:
        if delay < 0:
            raise ValueError(f"delay must not be negative, got {delay}")
        if sweep_every is not None and sweep_every <= 0:
            raise ValueError(f"sweep_every must be positive or None, got {sweep_every}")
        self.delay = delay
        self.store = store
        self.sweep_every = sweep_every
        self._waiting: dict[str, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()  # waiting, then feeding
        self._sweeper: asyncio.Task[None] | None = None

    def setup(self, router: Router, kinds: Iterable[str] = ALBUM_KINDS) -> AlbumMiddleware:
        """Install as an outer middleware of ``router``'s ``kinds``; at its startup, start
        the sweep (a Redis store), and at its shutdown ``close`` (so an album collected
        while the server drains is still handled)."""
        for kind in kinds:
            getattr(router, kind).outer_middleware(self)
        router.startup.register(self.start)
        router.shutdown.register(self.close)
        return self

    async def start(self, bot: Bot, dispatcher: Dispatcher) -> None:
        """Choose the store (when none was given) and start the sweep: a startup callback."""
        if self.store is None:
            self.store = _default_store(dispatcher)
        self._start_sweep(self.store, dispatcher, bot)

    def _start_sweep(self, store: AlbumStore, dispatcher: Dispatcher, bot: Bot) -> None:
        if self._sweeper is None and self.sweep_every is not None and hasattr(store, "overdue"):
            self._sweeper = asyncio.ensure_future(self._sweep(store, dispatcher, bot))

    async def __call__(self, handler: Handler, event: Any, data: dict[str, Any]) -> Any:
        group = getattr(event, "media_group_id", None)
        if group is None or "album" in data:
            return await handler(event, data)
        update = data.get("event_update")
        if update is None or not any(getattr(update, kind) is event for kind in ALBUM_KINDS):
            return await handler(event, data)  # an edit of one part, or not from an update
        bot: Bot = data["bot"]
        dispatcher: Dispatcher = data["dispatcher"]
        store = self.store
        if store is None:
            store = self.store = _default_store(dispatcher)
        key = album_key(bot.id, event.chat.id, group)
        try:
            added = await store.add(key, event.message_id, update)
        except Exception as exc:  # noqa: BLE001 - the store is down: handle it now, not lose it
            log.warning("album %s: part %s could not be stored (%r): handled as an album of "
                        "one", key, event.message_id, exc)  # fmt: skip
            return await handler(event, {**data, "album": [event]})
        if added is Added.NEW or added is Added.STORED:
            if key not in self._waiting:
                self._waiting[key] = self._spawn(self._wait(store, key, dispatcher, bot))
                if self._sweeper is None:
                    self._start_sweep(store, dispatcher, bot)
        elif added is Added.HANDED:
            log.debug("album %s: part %s again, handed over already", key, event.message_id)
        else:  # LATE, FULL: handled alone rather than lost
            log.warning("album %s: part %s %s: handled as an album of one", key,
                        event.message_id, "came after the album was handed over"
                        if added is Added.LATE else "found the album store full")  # fmt: skip
            return await handler(event, {**data, "album": [event]})
        return None

    async def _wait(self, store: AlbumStore, key: str, dispatcher: Dispatcher, bot: Bot) -> None:
        """Wait for the quiet period, take the album (unless another worker does) and
        feed it; the parts are gone from the store once taken, whatever the handler does."""
        try:
            taken = await self._take(store, key)
        except Exception as exc:  # noqa: BLE001 - nobody awaits this task: say it
            log.error("album %s: could not take it from the store: %r", key, exc)
            return
        finally:
            self._waiting.pop(key, None)
        if taken is not None:
            await self._feed(dispatcher, bot, key, taken)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _sweep(self, store: AlbumStore, dispatcher: Dispatcher, bot: Bot) -> None:
        """Take over the albums whose workers died before their quiet period ended."""
        every = self.sweep_every
        assert every is not None
        overdue = store.overdue  # type: ignore[attr-defined]
        while True:
            await asyncio.sleep(every)
            try:
                for key in await overdue(bot.id, self.delay + every):
                    if key in self._waiting:
                        continue
                    taken = await store.take(key, self.delay)
                    if isinstance(taken, list):
                        log.warning("album %s: nobody took it: taken over", key)
                        self._spawn(self._feed(dispatcher, bot, key, taken))
            except Exception as exc:  # noqa: BLE001 - try again at the next sweep
                log.error("albums: the sweep failed: %r", exc)

    async def _take(self, store: AlbumStore, key: str) -> list[Update] | None:
        wait = self.delay
        while True:
            await asyncio.sleep(wait)
            taken = await store.take(key, self.delay)
            if taken is None or isinstance(taken, list):
                return taken
            wait = taken

    async def _feed(
        self, dispatcher: Dispatcher, bot: Bot, key: str, updates: list[Update]
    ) -> None:
        kind = next(k for k in ALBUM_KINDS if getattr(updates[0], k) is not None)
        album: list[Message] = [getattr(u, kind).as_(bot) for u in updates]
        try:
            result = await dispatcher.feed_update(bot, updates[0], album=album)
        except Exception as exc:  # nobody awaits this task: say it
            log.error("album %s: the handler raised %r", key, exc, exc_info=exc)
            return
        if isinstance(result, TelegramMethod):
            try:
                await bot(result)
            except Exception as exc:  # noqa: BLE001 - nobody awaits this task: say it
                log.error("album %s: sending the handler's %s failed: %s",
                          key, result.__api_method__, exc)  # fmt: skip

    @property
    def waiting(self) -> int:
        """Albums this process waits on (its quiet-period checks under way)."""
        return len(self._waiting)

    async def close(self) -> None:
        """Stop the sweep and let the albums under way be taken and handled (a shutdown
        callback); the store is the application's to close."""
        sweeper, self._sweeper = self._sweeper, None
        if sweeper is not None:
            sweeper.cancel()
            await asyncio.gather(sweeper, return_exceptions=True)
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)


def _default_store(dispatcher: Dispatcher) -> AlbumStore:
    """The FSM storage's own album store when it has one (``RedisStorage.album_store``:
    the workers share it), else this process's memory."""
    album_store: Callable[[], AlbumStore] | None = getattr(dispatcher.storage, "album_store", None)
    if album_store is not None:
        return album_store()
    if os.environ.get(_WORKER_ID_ENV) is not None:
        log.warning("albums are collected in each worker's memory: the parts of an album "
                    "that reach different workers make several albums; run with --redis, or "
                    "pass AlbumMiddleware(store=RedisAlbumStore(...))")  # fmt: skip
    return MemoryAlbumStore()
