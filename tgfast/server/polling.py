"""``Poller``: the getUpdates loop, feeding the same ``UpdateProcessor`` as the webhook.

Telegram forgets an update once a getUpdates asks for an offset past it. The poller
asks for no more than the processor has room for (``limit``), hands every update it
fetched to the processor before asking again, and so never confirms an update it could
not keep: while the processor is full it stops fetching. Stopping cancels the pending
long poll (whatever it would have returned stays unconfirmed), drains the processor,
then confirms the last offset with one getUpdates of ``timeout=0``, so that the next
start neither fetches a handled update again nor misses one.

Errors: a 429 waits its ``retry_after``; anything else that escapes the Bot's own
retries (network, 5xx, 409 from another poller or a webhook) waits a back-off that
doubles up to ``Backoff.max_delay``, with jitter, and resets after a success. A 401
or 404 (wrong token or API URL) stops the poller: retrying cannot fix it.

Several workers: with a ``leader`` (``RedisLeaderLock``) a poller fetches only while
it holds the lock. When the lock is lost it stops fetching at once (the pending long
poll is cancelled, unconfirmed), finishes the updates it took, confirms nothing (that
is the new holder's getUpdates to make) and waits for the lock again. The new holder
may be handed updates the old one took but never confirmed: shared seen-update ids
(``RedisSeenUpdates``) make those duplicates, or busy until the old holder is done.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Literal

import aiohttp
import orjson

from .._logging import get_logger
from ..backoff import Backoff
from ..client.session.aiohttp import AiohttpSession
from ..decoding import convert
from ..errors import (
    DecodeError,
    TelegramAPIError,
    TelegramNetworkError,
    TelegramNotFound,
    TelegramRetryAfter,
    TelegramServerError,
    TelegramUnauthorized,
)
from ..tasks import cancel_and_wait, wait_unless
from ..types import Update
from .metrics import Metrics, Rejected
from .processing import DEFAULT_MAX_IN_FLIGHT, Admission, Concurrency, UpdateProcessor
from .seen import SeenUpdates

if TYPE_CHECKING:
    from ..client import Bot
    from ..dispatcher import Dispatcher
    from ..redis.leader import RedisLeaderLock

__all__ = ["DEFAULT_POLL_TIMEOUT", "POLL_BACKOFF", "Poller"]

_JSON = {"Content-Type": "application/json"}
log = get_logger("tgfast.server")

DEFAULT_POLL_TIMEOUT = 30
"""Seconds Telegram holds a getUpdates open when there is nothing to return."""

POLL_BACKOFF = Backoff(min_delay=0.5, max_delay=30.0, factor=2.0, jitter=0.25)
"""Between failed getUpdates: 0.5 s doubling up to 30 s, less up to a quarter at random
so that restarted pollers spread out; a success resets it."""


class Poller:
    """Long polling for ``bot``, handled by ``dispatcher``; see the module docstring.

    ``run()`` polls until ``stop()`` (then drains and confirms); the pieces are also
    callable one by one (``poll``, ``processor.drain``, ``confirm``) for a runner
    that must react to a second signal in between. ``allowed_updates`` defaults to
    the kinds the dispatcher has handlers for.
    """

    def __init__(
        self,
        dispatcher: Dispatcher,
        bot: Bot,
        *,
        timeout: int = DEFAULT_POLL_TIMEOUT,
        limit: int = 100,
        allowed_updates: list[str] | None | Literal["auto"] = "auto",
        drop_pending_updates: bool = False,
        backoff: Backoff = POLL_BACKOFF,
        processor: UpdateProcessor | None = None,
        concurrency: Concurrency = "chat",
        max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
        seen: SeenUpdates | None | Literal["memory"] = None,
        metrics: Metrics | None = None,
        leader: RedisLeaderLock | None = None,
    ) -> None:
        if not 1 <= limit <= 100:
            raise ValueError(f"limit must be 1 to 100, got {limit}")
        self.dispatcher = dispatcher
        self.bot = bot
        self.timeout = timeout
        self.limit = limit
        self.allowed_updates = (
            dispatcher.resolve_used_update_types() if allowed_updates == "auto" else allowed_updates
        )
        self.drop_pending_updates = drop_pending_updates
        self.backoff = backoff
        self.leader = leader
        """Poll only while this lock is held (one poller among several workers)."""
        self.processor = processor or UpdateProcessor(
            dispatcher, bot, concurrency=concurrency, max_in_flight=max_in_flight,
            seen=seen, metrics=metrics,
        )  # fmt: skip
        self.metrics = self.processor.metrics
        self.offset: int | None = None
        """The next update id to ask for: every update before it was handed over."""
        self._stopping = asyncio.Event()
        self._request: asyncio.Task[list[Update]] | None = None
        self._skip_to: int | None = None

    # -- the loop ----------------------------------------------------------------------

    async def run(self) -> None:
        """Poll until ``stop()``, then drain and confirm the offset."""
        try:
            await self.poll()
        finally:
            await self.processor.drain()
            await self.confirm()
            if self.leader is not None:
                await self.leader.release()

    def stop(self) -> None:
        """End ``poll``: no new getUpdates; the pending one is cancelled (unconfirmed)."""
        self._stopping.set()
        request = self._request
        if request is not None and not request.done():
            request.cancel()

    async def poll(self) -> None:
        """Fetch and hand over updates until ``stop()``; with a ``leader``, only while
        this process holds it. On ``stop()`` a lock held is kept: whoever drains then
        confirms as its holder, and releases it."""
        if self.leader is not None:
            await self._lead(self.leader)
        else:
            await self._fetch(self.drop_pending_updates)

    async def _lead(self, leader: RedisLeaderLock) -> None:
        """One term of polling per time the lock is acquired, until ``stop()``."""
        drop_pending = self.drop_pending_updates  # once, by the first holder
        while not self._stopping.is_set():
            if not await self._until_stopped(leader.acquire()):
                return
            log.info("polling: this worker holds %s and polls", leader.key)
            fetching = asyncio.ensure_future(self._fetch(drop_pending))
            drop_pending = False
            try:
                await wait_unless(leader.lost, fetching)
            finally:
                await cancel_and_wait(fetching)  # a pending getUpdates stays unconfirmed
            if not fetching.cancelled():
                fetching.result()  # a fatal error (401/404) is raised
                return  # stop()
            log.warning("polling: lost %s; finishing the updates taken, then waiting for it "
                        "again", leader.key)  # fmt: skip
            await self._until_stopped(self.processor.join())

    async def _until_stopped(self, awaitable: Awaitable[object]) -> bool:
        """Await ``awaitable`` unless ``stop()`` comes first: True when it finished."""
        task = asyncio.ensure_future(awaitable)
        try:
            await wait_unless(self._stopping, task)
        finally:
            await cancel_and_wait(task)
        if task.cancelled():
            return False
        task.result()
        return True

    async def _fetch(self, drop_pending: bool) -> None:
        if drop_pending:
            await self._call_until_stopped(self._drop_pending)
        failures = 0
        processor = self.processor
        while not self._stopping.is_set():
            room = await processor.wait_for_room()
            if self._stopping.is_set() or room == 0:
                break
            try:
                updates = await self._get_updates(min(self.limit, room))
            except asyncio.CancelledError:
                if self._stopping.is_set():
                    break  # our own stop(): what that call returns stays unconfirmed
                raise
            except (TelegramUnauthorized, TelegramNotFound):
                raise  # a wrong token or API URL: waiting will not fix it
            except TelegramRetryAfter as exc:
                log.warning("getUpdates: flood control, waiting %ss", exc.retry_after)
                await self._sleep(exc.retry_after)
                continue
            except (TelegramAPIError, TelegramNetworkError) as exc:
                delay = self.backoff.delay(failures)
                failures += 1
                log.warning("getUpdates failed (%s); retrying in %.2fs", exc, delay)
                await self._sleep(delay)
                continue
            failures = 0
            for update in updates:
                await self._hand_over(update)
            if self._skip_to is not None:  # past an update that did not decode
                self.offset = max(self.offset or 0, self._skip_to)
                self._skip_to = None

    async def _get_updates(self, limit: int) -> list[Update]:
        params: dict[str, Any] = {"limit": limit, "timeout": self.timeout}
        if self.offset is not None:
            params["offset"] = self.offset
        if self.allowed_updates is not None:
            params["allowed_updates"] = self.allowed_updates
        request = self._request = asyncio.ensure_future(self.bot.get_updates(**params))
        try:
            return await request
        except DecodeError as exc:
            log.error("getUpdates: the batch does not decode (%s); taking it one by one", exc)
            return await self._get_updates_one_by_one(params)
        finally:
            self._request = None

    async def _get_updates_one_by_one(self, params: dict[str, Any]) -> list[Update]:
        """The slow path for a batch holding an update that does not decode: read the raw
        items, skip the bad one (logged, counted) and keep the others."""
        bot = self.bot
        session = bot.session
        if not isinstance(session, AiohttpSession):  # a session of its own: its error stands
            raise TelegramNetworkError("getUpdates", "the batch does not decode")
        url = bot.server.api_url(bot.token, "getUpdates")
        try:
            body = orjson.dumps({**params, "timeout": 0})
            async with session.client.post(url, data=body, headers=_JSON) as r:
                raw = await r.read()
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as exc:
            # the library's text may quote the URL, which holds the token
            raise TelegramNetworkError(
                "getUpdates", bot.redact(f"{type(exc).__name__}: {exc}")
            ) from None
        try:
            answer = orjson.loads(raw)
        except orjson.JSONDecodeError:
            answer = None
        if type(answer) is not dict:
            raise TelegramServerError("getUpdates", 502, "not a Bot API answer")
        updates: list[Update] = []
        for item in answer.get("result") or ():
            try:
                updates.append(convert(Update, item))
            except DecodeError as exc:
                update_id = item.get("update_id") if isinstance(item, dict) else None
                log.error("getUpdates: skipped update %s, it does not decode: %s", update_id, exc)
                self.metrics.rejected[Rejected.BAD_BODY] += 1
                if type(update_id) is int:
                    self._skip_to = max(self._skip_to or 0, update_id + 1)
        return updates

    async def _hand_over(self, update: Update) -> None:
        if self.offset is not None and update.update_id < self.offset:
            return  # already handed over: a server that ignored the offset
        processor = self.processor
        failures = 0
        while True:
            admission = await processor.submit(update)
            if admission.taken:
                self.offset = update.update_id + 1
                return
            if admission is Admission.CLOSED:
                return  # not taken, offset not moved: it is fetched again next time
            if admission is Admission.UNAVAILABLE or admission is Admission.BUSY:
                # the shared SeenUpdates is down, or another worker (a poller that lost
                # the lead) is still on it: wait until it is done or its lease lapses
                await self._sleep(self.backoff.delay(failures))
                failures += 1
                if self._stopping.is_set():
                    return
            await processor.wait_for_room()

    async def _drop_pending(self) -> None:
        await self.bot.delete_webhook(drop_pending_updates=True)

    async def _call_until_stopped(self, call: Any) -> None:
        failures = 0
        while not self._stopping.is_set():
            try:
                await call()
                return
            except (TelegramUnauthorized, TelegramNotFound):
                raise
            except TelegramRetryAfter as exc:
                await self._sleep(exc.retry_after)
            except (TelegramAPIError, TelegramNetworkError) as exc:
                delay = self.backoff.delay(failures)
                failures += 1
                log.warning("dropping pending updates failed (%s); retrying in %.2fs", exc, delay)
                await self._sleep(delay)

    async def _sleep(self, seconds: float) -> None:
        """Sleep, but wake at once on ``stop()``."""
        try:
            await asyncio.wait_for(self._stopping.wait(), seconds)
        except asyncio.TimeoutError:
            pass

    # -- the end -----------------------------------------------------------------------

    async def confirm(self) -> bool:
        """Tell Telegram every update handed over is done: getUpdates with the next
        offset and ``timeout=0``. False (logged) when that call failed."""
        if self.offset is None:
            return True
        if self.leader is not None and not self.leader.held:
            log.info("not confirming offset %s: this worker no longer holds %s, its holder "
                     "confirms", self.offset, self.leader.key)  # fmt: skip
            return False
        try:
            await self.bot.get_updates(offset=self.offset, limit=1, timeout=0)
        except Exception as exc:  # noqa: BLE001 - at exit: say so, the next start refetches
            log.warning("could not confirm offset %s (%s): the next start may fetch updates "
                        "already handled", self.offset, exc)  # fmt: skip
            return False
        return True

    def __repr__(self) -> str:
        return f"Poller(offset={self.offset}, timeout={self.timeout}, {self.processor!r})"
