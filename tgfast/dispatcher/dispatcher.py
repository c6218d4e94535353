"""``Dispatcher``: the root router, which feeds updates through the routing table."""

from __future__ import annotations

from typing import Any

from ..fsm import FSMContextMiddleware, FSMStrategy, MemoryStorage
from ..fsm.storage import BaseStorage
from .router import Router
from .routing import impl
from .table import build_table

__all__ = ["Dispatcher"]


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
    """

    is_dispatcher = True

    def __init__(
        self,
        *,
        storage: BaseStorage | None = None,
        fsm_strategy: FSMStrategy = FSMStrategy.USER_IN_CHAT,
        name: str | None = None,
        **workflow_data: Any,
    ) -> None:
        super().__init__(name=name or "dispatcher")
        if storage is None:
            storage = MemoryStorage()
            self._default_storage: BaseStorage | None = storage
        else:
            self._default_storage = None
        self.fsm = FSMContextMiddleware(storage, fsm_strategy)
        self.workflow_data: dict[str, Any] = {"dispatcher": self, **workflow_data}
        self._table = None

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

    def freeze(self) -> Any:
        """Build the routing table now (the first update does it otherwise)."""
        if self._table is None:
            for router in self.chain_tail():
                router._frozen = True
            self._table = build_table(self, self.workflow_data, self.fsm)
        return self._table

    def resolve_used_update_types(self) -> list[str]:
        """The update kinds that have handlers: what to ask Telegram for (allowed_updates)."""
        return [kind.name for kind in self.freeze().kinds]

    async def emit_startup(self, **kwargs: Any) -> None:
        """Run every router's startup callbacks, root first."""
        await self._emit("startup", kwargs)

    async def emit_shutdown(self, **kwargs: Any) -> None:
        """Run every router's shutdown callbacks, root first, then close the storage."""
        try:
            await self._emit("shutdown", kwargs)
        finally:
            await self.fsm.storage.close()

    async def _emit(self, which: str, kwargs: dict[str, Any]) -> None:
        data = {**self.workflow_data, **kwargs}
        for router in self.chain_tail():
            for inj in getattr(router, which).callbacks:
                result = inj.fn(**inj.kwargs(data))
                if inj.is_async:
                    await result
