"""``Dispatcher.start_polling``: aiogram's way of running a bot from code, on tgfast's
``Poller``.

Each bot gets a ``tgfast.server.Poller`` (its own ``UpdateProcessor``): a chat's
updates are handled in order, the work in flight is bounded, and stopping drains
what was fetched and confirms the offset, so Telegram does not deliver a handled
update again. aiogram's options map onto it: ``handle_as_tasks=False`` handles one
update at a time (``concurrency="sequential"``), ``tasks_concurrency_limit`` bounds
the updates in flight, ``backoff_config`` (anything with ``min_delay``,
``max_delay``, ``factor``, ``jitter``) spaces out failed getUpdates calls.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._logging import get_logger
from ..backoff import Backoff
from ..tasks import cancel_and_wait, wait_unless

if TYPE_CHECKING:
    from ..client import Bot
    from ..server.polling import Poller
    from .dispatcher import Dispatcher

__all__ = ["DEFAULT_BACKOFF_CONFIG", "UNSET", "UNSET_TYPE", "PollingRun", "to_backoff"]

log = get_logger("tgfast.dispatcher")


class _Unset:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()
"""``allowed_updates`` not given: ask for the kinds the dispatcher handles."""

UNSET_TYPE = _Unset

DEFAULT_BACKOFF_CONFIG = Backoff(min_delay=1.0, max_delay=5.0, factor=1.3, jitter=0.1)
"""Between failed getUpdates of ``start_polling``: aiogram's figures."""


def to_backoff(config: Any) -> Backoff:
    """A ``tgfast.Backoff`` from aiogram's ``BackoffConfig`` (or a ``Backoff``)."""
    if config is None:
        return DEFAULT_BACKOFF_CONFIG
    if isinstance(config, Backoff):
        return config
    return Backoff(
        min_delay=float(config.min_delay),
        max_delay=float(config.max_delay),
        factor=float(config.factor),
        jitter=min(1.0, max(0.0, float(config.jitter))),
    )


class PollingRun:
    """One ``start_polling`` call: its pollers and the event that stops them."""

    def __init__(
        self,
        dispatcher: Dispatcher,
        bots: Sequence[Bot],
        *,
        polling_timeout: int,
        handle_as_tasks: bool,
        backoff: Backoff,
        allowed_updates: list[str] | None,
        tasks_concurrency_limit: int | None,
    ) -> None:
        from ..server.polling import Poller
        from ..server.processing import DEFAULT_MAX_IN_FLIGHT

        self.bots = tuple(bots)
        self.stop_requested = asyncio.Event()
        self.stopped = asyncio.Event()
        self.pollers: list[Poller] = [
            Poller(
                dispatcher,
                bot,
                timeout=polling_timeout,
                allowed_updates=allowed_updates,
                backoff=backoff,
                concurrency="chat" if handle_as_tasks else "sequential",
                max_in_flight=tasks_concurrency_limit or DEFAULT_MAX_IN_FLIGHT,
            )
            for bot in bots
        ]

    def request_stop(self) -> None:
        self.stop_requested.set()

    async def run(self) -> None:
        """Poll with every bot until a stop is requested or a poller fails for good
        (a wrong token: its error is raised after the others have stopped); then
        drain each processor and confirm each offset.

        Each bot is asked ``getMe`` first, as aiogram does: a wrong token fails here,
        before any update is taken, and handlers find ``bot.me()`` answered."""
        for bot, me in zip(
            self.bots, await asyncio.gather(*(b.me() for b in self.bots)), strict=True
        ):
            log.info("polling: bot @%s id=%d - %r", me.username, bot.id, me.full_name)

        polls = [asyncio.ensure_future(poller.poll()) for poller in self.pollers]
        try:
            await wait_unless(self.stop_requested, *polls)
        finally:
            for poller in self.pollers:
                poller.stop()
            errors: list[BaseException] = []
            try:
                for task in polls:
                    with contextlib.suppress(asyncio.CancelledError):
                        try:
                            await task
                        except Exception as exc:  # noqa: BLE001 - raised once all have stopped
                            errors.append(exc)
                await asyncio.gather(*(p.processor.drain() for p in self.pollers))
                await asyncio.gather(*(p.confirm() for p in self.pollers))
            except BaseException:
                await cancel_and_wait(*polls)
                await asyncio.gather(*(p.processor.abort() for p in self.pollers))
                raise
        if errors:
            raise errors[0]
