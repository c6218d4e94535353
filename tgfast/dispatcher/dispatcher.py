"""``Dispatcher``: the root router, which feeds updates through the routing table."""

from __future__ import annotations

import logging
from functools import partial
from typing import TYPE_CHECKING, Any

from ..decoding import decode_update
from ..types import Update
from ..types.binding import current_bot
from .event import FAILED, UNHANDLED, ErrorEvent
from .router import Router
from .routing import impl
from .table import Kind, Table, build_table

if TYPE_CHECKING:
    from ..client import Bot

__all__ = ["Dispatcher"]

log = logging.getLogger("tgfast.dispatcher")


class Dispatcher(Router):
    """The root router: ``await dp.feed_update(bot, update)``.

    Keyword arguments (and ``dp["key"] = value``) are workflow data: every handler,
    filter and middleware may ask for them by name. On the first update the router
    tree is frozen into the routing table; registering anything afterwards is an error.
    """

    is_dispatcher = True

    def __init__(self, *, name: str | None = None, **workflow_data: Any) -> None:
        super().__init__(name=name or "dispatcher")
        self.workflow_data: dict[str, Any] = {"dispatcher": self, **workflow_data}
        self._table: Table | None = None

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
            for router in self.chain_tail():
                router._frozen = True
            self._table = build_table(self)
        return self._table

    def resolve_used_update_types(self) -> list[str]:
        """The update kinds that have handlers: what to ask Telegram for (allowed_updates)."""
        return [kind.name for kind in self.freeze().kinds]

    async def feed_raw_update(self, bot: Bot, data: bytes | str, **kwargs: Any) -> Any:
        """Decode a webhook body or one ``getUpdates`` item and handle it.

        A body that does not decode raises ``tgfast.DecodeError`` (nothing was handled).
        """
        return await self.feed_update(bot, decode_update(data), **kwargs)

    async def feed_update(self, bot: Bot, update: Update, **kwargs: Any) -> Any:
        """Handle one update: the first matching handler's result, or ``UNHANDLED``.

        An exception is offered to the ``errors`` handlers; one nobody handles is logged
        with the update id and ``FAILED`` is returned: a failing handler never stops
        the caller's loop.
        """
        table = self._table or self.freeze()
        for kind in table.kinds:
            event = getattr(update, kind.name)
            if event is not None:
                break
        else:
            return UNHANDLED
        data = self.workflow_data.copy()
        data["bot"] = bot
        data["update"] = update
        data["event_from_user"] = kind.user(event) if kind.user is not None else None
        data["event_chat"] = kind.chat(event) if kind.chat is not None else None
        if kwargs:
            data.update(kwargs)
        if kind.bindable:
            event._bot = bot
        token = current_bot.set(bot)
        try:
            if table.update_outer:
                return await self._outer(table, kind, 0, update, data)
            return await impl.propagate(kind.node, event, data)
        except Exception as exc:  # noqa: BLE001 - offered to error handlers, else logged
            return await self._on_error(table, update, exc, data)
        finally:
            current_bot.reset(token)

    async def _outer(
        self, table: Table, kind: Kind, index: int, update: Update, data: dict[str, Any]
    ) -> Any:
        if index == len(table.update_outer):
            return await impl.propagate(kind.node, getattr(update, kind.name), data)
        middleware = table.update_outer[index]
        return await middleware(partial(self._outer, table, kind, index + 1), update, data)

    async def _on_error(
        self, table: Table, update: Update, exc: Exception, data: dict[str, Any]
    ) -> Any:
        if table.errors is not None:
            try:
                result = await impl.propagate(
                    table.errors, ErrorEvent(update, exc), {**data, "exception": exc}
                )
            except Exception as again:  # noqa: BLE001
                log.error(
                    "update %s: an errors handler raised %r while handling %r",
                    update.update_id, again, exc, exc_info=again,
                )  # fmt: skip
                return FAILED
            if result is not UNHANDLED:
                return result
        log.error(
            "update %s: unhandled %s: %s", update.update_id, type(exc).__name__, exc, exc_info=exc
        )
        return FAILED

    async def emit_startup(self, **kwargs: Any) -> None:
        """Run every router's startup callbacks, root first."""
        await self._emit("startup", kwargs)

    async def emit_shutdown(self, **kwargs: Any) -> None:
        """Run every router's shutdown callbacks, root first."""
        await self._emit("shutdown", kwargs)

    async def _emit(self, which: str, kwargs: dict[str, Any]) -> None:
        data = {**self.workflow_data, **kwargs}
        for router in self.chain_tail():
            for inj in getattr(router, which).callbacks:
                result = inj.fn(**inj.kwargs(data))
                if inj.is_async:
                    await result
