"""``Router``: handlers grouped by update kind, nested with ``include_router``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ._kinds import UPDATE_KINDS, UpdateObservers
from .event import REJECTED, UNHANDLED, ErrorEvent, RouterFrozenError
from .observer import EventObserver, Observer, UpdateObserver

__all__ = ["INTERNAL_UPDATE_TYPES", "REJECTED", "UNHANDLED", "Router"]

INTERNAL_UPDATE_TYPES = frozenset({"update", "error"})
"""Observers that are not update kinds Telegram sends (aiogram's name)."""


class Router(UpdateObservers):
    """Handlers for updates, by kind: ``@router.message(...)``, ``@router.callback_query(...)``.

    A router's handlers are tried in the order they were registered, before those of
    the routers included into it (in inclusion order); the first that matches wins.
    """

    def __init__(self, *, name: str | None = None) -> None:
        self.name = name or f"router@{id(self):x}"
        self.parent: Router | None = None
        self.sub_routers: list[Router] = []
        self._frozen = False
        self.observers: dict[str, Observer[Any]] = {}
        for kind in UPDATE_KINDS:
            observer: Observer[Any] = Observer(self, kind)
            setattr(self, kind, observer)
            self.observers[kind] = observer
        self.errors: Observer[ErrorEvent] = Observer(self, "errors")
        """``@router.errors(ExceptionTypeFilter(ValueError))``: handle what handlers raise."""
        self.error = self.errors  # aiogram has both names
        self.update: Observer[Any] = UpdateObserver(self, "update")
        """Middlewares run around the whole processing of each update (Dispatcher only)."""
        self.startup = EventObserver(self)
        """``@router.startup()``: callbacks run when polling or the webhook app starts."""
        self.shutdown = EventObserver(self)
        """``@router.shutdown()``: callbacks run when it stops."""

    def include_router(self, router: Router) -> Router:
        """Nest ``router`` under this one; returns it, for chaining.

        aiogram's errors: ``ValueError`` for something that is not a Router,
        ``RuntimeError`` for a router included already, into itself, in a cycle, or a
        Dispatcher (the root) included anywhere.
        """
        if not isinstance(router, Router):
            raise ValueError(
                f"router should be instance of Router not {type(router).__name__!r}: "
                "include_router() takes a Router"
            )
        router.parent_router = self
        return router

    def include_routers(self, *routers: Router) -> None:
        """``include_router`` for each of ``routers``, in order."""
        if not routers:
            raise ValueError("At least one router must be provided")
        for router in routers:
            self.include_router(router)

    @property
    def parent_router(self) -> Router | None:
        """The router this one is included in (aiogram's name for ``parent``); setting
        it includes this router there, as ``include_router`` does."""
        return self.parent

    @parent_router.setter
    def parent_router(self, router: Router) -> None:
        if not isinstance(router, Router):
            raise ValueError(f"router should be instance of Router not {type(router).__name__!r}")
        router._check_mutable()
        if getattr(self, "is_dispatcher", False):
            raise RuntimeError("a Dispatcher is the root: it cannot be included in a router")
        if self.parent is not None:
            raise RuntimeError(
                f"Router is already attached to {self.parent.name}: {self.name} cannot be "
                f"included in {router.name} too"
            )
        if router is self:
            raise RuntimeError(f"Self-referencing routers is not allowed ({self.name})")
        if any(r is self for r in router.chain_head):
            raise RuntimeError(
                f"Circular referencing of Router is not allowed: including {self.name} into "
                f"{router.name} makes a cycle"
            )
        self.parent = router
        router.sub_routers.append(self)

    async def emit_startup(self, **kwargs: Any) -> None:
        """Run this router's startup callbacks, then its sub-routers' (each gets its own
        ``router`` and what ``kwargs`` it asks for)."""
        await self._emit("startup", kwargs)

    async def emit_shutdown(self, **kwargs: Any) -> None:
        """Run this router's shutdown callbacks, then its sub-routers'."""
        await self._emit("shutdown", kwargs)

    async def _emit(self, which: str, kwargs: dict[str, Any]) -> None:
        data = dict(kwargs)
        for router in self.chain_tail:
            data["router"] = router  # as aiogram: each router's hooks get their router
            await getattr(router, which).trigger(**data)

    async def propagate_event(self, update_type: str, event: Any, **kwargs: Any) -> Any:
        """Offer ``event`` of kind ``update_type`` to this router and the routers below
        it, as aiogram's routers do: this router's outer middlewares and filters of that
        kind, then its handlers, then each sub-router's in turn; the first handler that
        matches gives the result, else ``UNHANDLED``. ``event_router`` in the data is the
        router whose handlers are tried.

        For code that drives a router by hand (a library's own event kind, a test): the
        Dispatcher routes updates through its compiled table instead, with the same
        answers.
        """
        kwargs["event_router"] = self
        observer = self._observer_for(update_type)

        async def walk(event: Any, **data: Any) -> Any:
            return await self._propagate_event(observer, update_type, event, data)

        if observer is None:
            return await walk(event, **kwargs)
        return await observer.wrap_outer_middleware(walk, event, kwargs)

    async def _propagate_event(
        self, observer: Observer[Any] | None, update_type: str, event: Any, data: dict[str, Any]
    ) -> Any:
        if observer is not None:
            passed, data = await observer.check_root_filters(event, **data)
            if not passed:
                return UNHANDLED  # the router's own filters refuse: its children too
            result = await observer.trigger(event, **data)
            if result is REJECTED:
                return UNHANDLED
            if result is not UNHANDLED:
                return result
        for router in self.sub_routers:
            result = await router.propagate_event(update_type, event, **data)
            if result is not UNHANDLED:
                return result
        return UNHANDLED

    def _observer_for(self, update_type: str) -> Observer[Any] | None:
        """The observer of ``update_type`` here (aiogram's ``error`` and ``update`` too)."""
        observer = self.observers.get(update_type)
        if observer is None:
            if update_type in ("error", "errors"):
                return self.errors
            if update_type == "update":
                return self.update
        return observer

    def resolve_used_update_types(self, skip_events: Iterable[str] | None = None) -> list[str]:
        """The update kinds with handlers here or below, sorted, less ``skip_events``:
        what to ask Telegram for (``allowed_updates``). Read from the routers as they
        are now, so asking does not freeze a dispatcher."""
        skip = INTERNAL_UPDATE_TYPES.union(skip_events or ())
        return sorted({
            kind
            for router in self.chain_tail
            for kind, observer in router.observers.items()
            if observer.handlers and kind not in skip
        })  # fmt: skip

    @property
    def chain_head(self) -> Iterator[Router]:
        """This router and its parents, up to the root (a property, as aiogram's)."""
        router: Router | None = self
        while router is not None:
            yield router
            router = router.parent

    @property
    def chain_tail(self) -> Iterator[Router]:
        """This router and every router below it, depth first, in inclusion order (a
        property, as aiogram's)."""
        yield self
        for router in self.sub_routers:
            yield from router.chain_tail

    def _check_mutable(self) -> None:
        if any(r._frozen for r in self.chain_head):
            raise RouterFrozenError(
                f"{self.name} is part of a dispatcher that has started: register handlers, "
                "filters, middlewares and routers before the first update"
            )

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"
