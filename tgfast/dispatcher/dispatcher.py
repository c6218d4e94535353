"""``Dispatcher``: the root router, which feeds updates through the routing table."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from ..fsm import FSMContextMiddleware, FSMStrategy, MemoryStorage
from ..fsm.storage import BaseStorage
from .router import Router
from .routing import RoutingModule, impl
from .table import build_table

if TYPE_CHECKING:
    from .._speedups._routing_py import Table

__all__ = ["Dispatcher"]

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
        name: str | None = None,
        routing: RoutingModule | None = None,
        **workflow_data: Any,
    ) -> None:
        super().__init__(name=name or "dispatcher")
        self.routing: RoutingModule = routing or impl
        if storage is None:
            storage = MemoryStorage()
            self._default_storage: BaseStorage | None = storage
        else:
            self._default_storage = None
        self.fsm = FSMContextMiddleware(storage, fsm_strategy)
        self.workflow_data: dict[str, Any] = {"dispatcher": self, **workflow_data}
        self._table: Table | None = None

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
            for router in self.chain_tail():
                router._frozen = True
            self._table = build_table(self, self.workflow_data, self.fsm, self.routing)
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
