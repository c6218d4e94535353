"""``Dispatcher``: the root router, which feeds updates through the routing table."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from typing import TYPE_CHECKING, Any, TypeVar

from .._logging import get_logger
from ..decoding import convert
from ..fsm import FSMContextMiddleware, FSMStrategy, MemoryStorage
from ..fsm.storage import BaseEventIsolation, BaseStorage
from ..methods.base import TelegramMethod
from ..types import Update
from .event import UNHANDLED
from .router import Router
from .routing import RoutingModule, impl
from .start_polling import DEFAULT_BACKOFF_CONFIG, UNSET, UNSET_TYPE, PollingRun, to_backoff
from .table import build_table

if TYPE_CHECKING:
    from .._speedups._routing_py import Table
    from ..client import Bot

__all__ = [
    "DEFAULT_BACKOFF_CONFIG",
    "UNHANDLED",
    "UNSET",
    "UNSET_TYPE",
    "Dispatcher",
]

log = get_logger("tgfast.dispatcher")

D = TypeVar("D", bound="Dispatcher")


class Dispatcher(Router, impl.DispatchCore):
    """The root router: ``await dp.feed_update(bot, update)``.

    Keyword arguments (and ``dp["key"] = value``) are workflow data: every handler,
    filter and middleware may ask for them by name. On the first update the router
    tree is frozen into the routing table; registering anything afterwards is an error.

    ``feed_update(bot, update, **kwargs)`` and ``feed_raw_update(bot, body, **kwargs)``
    come from ``DispatchCore``, the compiled hot path: the handler's result,
    ``UNHANDLED`` when none matched, or ``FAILED`` when one raised and no ``errors``
    handler took it (logged with the update id). ``feed_raw_update`` raises
    ``tgfast.DecodeError`` for a body that does not decode.

    ``storage`` (a ``MemoryStorage`` by default) keeps conversation state, keyed as
    ``fsm_strategy`` says; handlers and filters get ``state``, ``raw_state`` and
    ``fsm_storage`` when they ask for them. The storage is read only for updates of
    kinds where something asks (or a middleware might).

    ``events_isolation`` (aiogram's: ``SimpleEventIsolation()``, a ``RedisStorage``'s
    ``create_isolation()``) handles the updates of one FSM record one at a time;
    ``disable_fsm=True`` gives handlers no ``state`` at all.

    ``routing`` picks the routing runtime, ``tgfast.dispatcher.routing.impl`` (what
    ``tgfast._speedups`` chose) by default; the tests pass the other twin to hold both
    to the same answers in one process. It is fixed for the dispatcher's life.
    """

    is_dispatcher = True

    def __new__(cls: type[D], *args: Any, routing: RoutingModule | None = None, **kw: Any) -> D:
        if routing is None or routing.DispatchCore in cls.__mro__:
            return super().__new__(cls)
        return super().__new__(_routed(cls, routing.DispatchCore))

    def __init__(
        self,
        *,
        storage: BaseStorage | None = None,
        fsm_strategy: FSMStrategy = FSMStrategy.USER_IN_CHAT,
        events_isolation: BaseEventIsolation | None = None,
        disable_fsm: bool = False,
        name: str | None = None,
        routing: RoutingModule | None = None,
        **workflow_data: Any,
    ) -> None:
        if storage is not None and not isinstance(storage, BaseStorage):
            raise TypeError(
                f"storage must be a BaseStorage (MemoryStorage, RedisStorage...), not "
                f"{type(storage).__name__}"
            )
        super().__init__(name=name or "dispatcher")
        self.routing: RoutingModule = routing or impl
        if storage is None:
            storage = MemoryStorage()
            self._default_storage: BaseStorage | None = storage
        else:
            self._default_storage = None
        self.fsm = FSMContextMiddleware(storage, fsm_strategy, events_isolation)
        self.disable_fsm = disable_fsm
        self.workflow_data: dict[str, Any] = workflow_data
        """What handlers get besides ``dispatcher`` and ``bot`` (``dp["key"]`` too), as in
        aiogram: it does not hold the dispatcher itself."""
        self._table: Table | None = None
        self._polling: PollingRun | None = None

    @property
    def storage(self) -> BaseStorage:
        """Where conversation state lives."""
        return self.fsm.storage

    @property
    def storage_is_default(self) -> bool:
        """Whether the storage is the ``MemoryStorage`` made for want of one (which
        ``--redis`` may replace), not one the application chose."""
        return self.fsm.storage is self._default_storage

    def __getitem__(self, key: str) -> Any:
        return self.workflow_data[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.workflow_data[key] = value

    def __delitem__(self, key: str) -> None:
        del self.workflow_data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.workflow_data.get(key, default)

    def freeze(self) -> Table:
        """Build the routing table now (the first update does it otherwise)."""
        if self._table is None:
            for router in self.chain_tail:
                router._frozen = True
            fsm = None if self.disable_fsm else self.fsm
            self._table = build_table(self, self.workflow_data, fsm, self.routing)
        return self._table

    async def feed_webhook_update(
        self, bot: Bot, update: Update | dict[str, Any], _timeout: float = 55, **kwargs: Any
    ) -> TelegramMethod[Any] | None:
        """Handle a webhook update (an ``Update`` or its JSON dict) and return the method
        object the handler returned, for the webhook answer; None otherwise.

        A handler still running after ``_timeout`` seconds goes on in the background
        (Telegram would deliver the update again at 60 s): None is returned then, and
        a method object it returns later is called instead.
        """
        if not isinstance(update, Update):
            update = convert(Update, update)
        handling = asyncio.ensure_future(self.feed_update(bot, update, **kwargs))
        try:
            done, _ = await asyncio.wait((handling,), timeout=_timeout)
        except asyncio.CancelledError:
            handling.cancel()
            raise
        if not done:
            log.warning("update %s: the handler is still running after %ss; answering the "
                        "webhook now, it goes on in the background", update.update_id, _timeout)  # fmt: skip
            handling.add_done_callback(lambda task: self._call_late(bot, update, task))
            return None
        result = handling.result()
        return result if isinstance(result, TelegramMethod) else None

    def _call_late(self, bot: Bot, update: Update, task: asyncio.Future[Any]) -> None:
        """A slow webhook handler finished after the answer: call the method it returned
        (or log what it raised: nobody awaits it)."""
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.error("update %s: handling it after the webhook answer failed: %r",
                      update.update_id, exc, exc_info=exc)  # fmt: skip
            return
        result = task.result()
        if isinstance(result, TelegramMethod):
            asyncio.ensure_future(self.silent_call_request(bot, result))

    @staticmethod
    async def silent_call_request(bot: Bot, result: TelegramMethod[Any]) -> None:
        """Call ``result`` (a method a handler returned, too late for a webhook answer)
        with ``bot``; a failure is logged, not raised: nobody awaits it (aiogram's name)."""
        try:
            await bot(result)
        except Exception as exc:  # noqa: BLE001 - nobody awaits it: say what went wrong
            log.error("Failed to make answer %s (returned by a handler): %s",
                      result.__api_method__, exc)  # fmt: skip

    # -- running from code -------------------------------------------------------------

    async def start_polling(
        self,
        *bots: Bot,
        polling_timeout: int = 10,
        handle_as_tasks: bool = True,
        backoff_config: Any = DEFAULT_BACKOFF_CONFIG,
        allowed_updates: list[str] | None = UNSET,
        handle_signals: bool = True,
        close_bot_session: bool = True,
        tasks_concurrency_limit: int | None = None,
        **kwargs: Any,
    ) -> None:
        """Poll for ``bots`` until ``stop_polling()`` or SIGINT/SIGTERM (aiogram's call).

        Runs on ``tgfast.server.Poller`` (``tgfast.dispatcher.start_polling``): per-chat
        order, bounded work, the offset confirmed on the way out. ``kwargs`` become
        workflow data for handlers and for the startup and shutdown callbacks, which
        also get ``bot`` (the last of ``bots``), ``bots`` and ``dispatcher``.
        """
        if not bots:
            raise ValueError("start_polling needs at least one Bot")
        if "bot" in kwargs:
            raise ValueError("pass the bot positionally: start_polling(bot, ...)")
        if self._polling is not None:
            raise RuntimeError("this dispatcher is polling already")
        if allowed_updates is UNSET:
            allowed_updates = self.resolve_used_update_types()
        run = self._polling = PollingRun(
            self, bots, polling_timeout=polling_timeout, handle_as_tasks=handle_as_tasks,
            backoff=to_backoff(backoff_config), allowed_updates=allowed_updates,
            tasks_concurrency_limit=tasks_concurrency_limit,
        )  # fmt: skip
        added = {"bots": bots, **kwargs}
        saved = {k: self.workflow_data[k] for k in added if k in self.workflow_data}
        self.workflow_data.update(added)  # handlers see them (the table reads this dict)
        hooks = {"dispatcher": self, **self.workflow_data}
        hooks.pop("bot", None)
        installed = _install_signals(run) if handle_signals else []
        try:
            await self.emit_startup(bot=bots[-1], **hooks)
            log.info("polling: started for %d bot(s), allowed_updates=%s", len(bots),
                     allowed_updates)  # fmt: skip
            try:
                await run.run()
            finally:
                log.info("polling: stopped")
                try:
                    await self.emit_shutdown(bot=bots[-1], **hooks)
                finally:
                    if close_bot_session:
                        await asyncio.gather(*(bot.session.close() for bot in bots))
        finally:
            _remove_signals(installed)
            for key in added:
                self.workflow_data.pop(key, None)
            self.workflow_data.update(saved)
            self._polling = None
            run.stopped.set()

    def run_polling(self, *bots: Bot, **kwargs: Any) -> None:
        """``start_polling`` in a new event loop (uvloop's when it is installed), until
        it stops; Ctrl+C ends it quietly. Takes ``start_polling``'s arguments."""
        from ..server.runner import run

        with contextlib.suppress(KeyboardInterrupt):
            run(self.start_polling(*bots, **kwargs))

    async def stop_polling(self) -> None:
        """Stop ``start_polling`` and wait until it has drained and confirmed the offsets
        (a ``RuntimeError`` when it is not running)."""
        run = self._polling
        if run is None:
            raise RuntimeError("polling is not started")
        run.request_stop()
        await run.stopped.wait()

    async def emit_startup(self, **kwargs: Any) -> None:
        """Run every router's startup callbacks, root first (each gets its ``router``)."""
        await self._emit("startup", kwargs)

    async def emit_shutdown(self, **kwargs: Any) -> None:
        """Run every router's shutdown callbacks, root first, then close the storage."""
        try:
            await self._emit("shutdown", kwargs)
        finally:
            try:
                await self.fsm.storage.close()
            finally:
                if self.fsm.isolation is not None:
                    await self.fsm.isolation.close()

    async def _emit(self, which: str, kwargs: dict[str, Any]) -> None:
        await super()._emit(which, {"dispatcher": self, **self.workflow_data, **kwargs})


def _install_signals(run: PollingRun) -> list[signal.Signals]:
    """SIGINT/SIGTERM stop ``run`` (where the loop can take signal handlers)."""
    loop = asyncio.get_running_loop()
    installed = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, run.request_stop)
        except (NotImplementedError, RuntimeError):  # not the main thread, Windows
            continue
        installed.append(sig)
    return installed


def _remove_signals(installed: list[signal.Signals]) -> None:
    loop = asyncio.get_running_loop()
    for sig in installed:
        loop.remove_signal_handler(sig)


_ROUTED: dict[tuple[type, type], type] = {}


def _routed(cls: type[D], core: type) -> type[D]:
    """``cls`` routing with ``core`` instead of the ``DispatchCore`` it inherits.

    ``core`` comes first in the subclass's MRO, so ``feed_update`` is looked up on the
    type as for any dispatcher: choosing the runtime costs nothing per update. One
    subclass per (class, core), made on first use.
    """
    routed = _ROUTED.get((cls, core))
    if routed is None:
        namespace = {"__module__": cls.__module__, "__qualname__": cls.__qualname__}
        routed = _ROUTED[cls, core] = type(cls.__name__, (core, cls), namespace)
    return routed
