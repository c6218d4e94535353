"""An observer: the handlers, filters and middlewares one router has for one update kind.

Besides registering, an observer can run its own handlers (``trigger``) as aiogram's
does, for ``Router.propagate_event`` and for code that drives a router without a
dispatcher; the dispatcher itself routes through its compiled table instead.
``EventObserver`` is the simpler kind a router's ``startup`` and ``shutdown`` are.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from ..errors import UnsupportedKeywordArgument
from ..filters.base import as_filter, passes
from .callables import HandlerObject
from .event.bases import UNHANDLED, SkipHandler
from .injection import Injection
from .middleware import Handler, Middleware

if TYPE_CHECKING:
    from .router import Router

__all__ = ["EventObserver", "HandlerObject", "MiddlewareManager", "Observer", "UpdateObserver"]

E = TypeVar("E")
F = TypeVar("F", bound=Callable[..., Any])
M = TypeVar("M", bound=Middleware)


class MiddlewareManager(Sequence[Middleware]):
    """``observer.outer_middleware`` / ``observer.middleware``: call it (or use it as a
    decorator, with or without parentheses) to add a middleware; aiogram's
    ``register``/``unregister``, ``in``, ``len`` and indexing work too. Built with no
    observer (``MiddlewareManager()``) it is a list of middlewares of its own."""

    __slots__ = ("_middlewares", "_observer")

    def __init__(
        self, observer: Observer[Any] | None = None, into: list[Middleware] | None = None
    ) -> None:
        self._observer = observer
        self._middlewares: list[Middleware] = [] if into is None else into

    @overload
    def __call__(self, middleware: None = None) -> Callable[[M], M]: ...

    @overload
    def __call__(self, middleware: M) -> M: ...

    def __call__(self, middleware: M | None = None) -> M | Callable[[M], M]:
        if self._observer is None:
            return _add(self._middlewares, middleware)
        return self._observer._add(self._middlewares, middleware)

    def register(self, middleware: M) -> M:
        """Add ``middleware`` (after those added before)."""
        self(middleware)
        return middleware

    def unregister(self, middleware: Middleware) -> None:
        """Remove ``middleware`` (``ValueError`` when it is not there)."""
        if self._observer is not None:
            self._observer.router._check_mutable()
        self._middlewares.remove(middleware)

    @staticmethod
    def wrap_middlewares(middlewares: Sequence[Middleware], handler: Callable[..., Any]) -> Handler:
        """``handler`` (called as ``handler(event, **data)``) inside ``middlewares``, the
        first outermost: what to call as ``await wrapped(event, data)``."""

        @functools.wraps(handler)
        def innermost(event: Any, data: dict[str, Any]) -> Any:
            return handler(event, **data)

        wrapped: Handler = innermost
        for middleware in reversed(middlewares):
            wrapped = functools.partial(middleware, wrapped)
        return wrapped

    @overload
    def __getitem__(self, index: int) -> Middleware: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Middleware]: ...

    def __getitem__(self, index: int | slice) -> Middleware | Sequence[Middleware]:
        return self._middlewares[index]

    def __len__(self) -> int:
        return len(self._middlewares)

    def __repr__(self) -> str:
        return f"<MiddlewareManager {self._middlewares!r}>"


def _add(into: list[Middleware], middleware: M | None) -> M | Callable[[M], M]:
    """Append ``middleware`` to ``into``; with None, a decorator that does."""
    if middleware is None:

        def decorator(middleware: M) -> M:
            _add(into, middleware)
            return middleware

        return decorator
    if not callable(middleware):
        raise TypeError(f"a middleware must be callable, not {type(middleware).__name__}")
    into.append(middleware)
    return middleware


class Observer(Generic[E]):
    """``@router.message(Command("start"))``: registers handlers for one update kind.

    ``filter()`` adds filters every handler of this router for this kind must pass
    (when they fail, the router's children are skipped too). ``outer_middleware()``
    runs before those filters, ``middleware()`` (inner) around each handler that
    matched, in this router and the routers included into it; both also work as
    decorators, with or without parentheses.
    """

    def __init__(self, router: Router, event_name: str) -> None:
        self.router = router
        self.kind = event_name
        self.handlers: list[HandlerObject] = []
        self.filters: list[Injection] = []
        self.outer_middlewares: list[Middleware] = []
        self.middlewares: list[Middleware] = []
        self.outer_middleware = MiddlewareManager(self, self.outer_middlewares)
        """Add a middleware run before this router's filters: ``outer_middleware(m)``,
        ``@outer_middleware``, ``@outer_middleware()`` or ``outer_middleware.register(m)``."""
        self.middleware = MiddlewareManager(self, self.middlewares)
        """Add an inner middleware, run around each matched handler (same spellings)."""

    @property
    def event_name(self) -> str:
        """The update kind (aiogram's name for ``kind``)."""
        return self.kind

    def __call__(
        self, *filters: Any, flags: Mapping[str, Any] | None = None, **unsupported: Any
    ) -> Callable[[F], F]:
        _refuse(unsupported)

        def decorator(callback: F) -> F:
            self.register(callback, *filters, flags=flags)
            return callback

        return decorator

    def register(
        self,
        callback: F,
        *filters: Any,
        flags: Mapping[str, Any] | None = None,
        **unsupported: Any,
    ) -> F:
        """Add a handler; ``flags`` are what inner middlewares read with ``get_flag``.
        Its signature and its filters' are read now: a handler that takes no event, or
        a filter that is not callable, is a ``TypeError`` here, not at the first update."""
        _refuse(unsupported)
        self.router._check_mutable()
        handler = HandlerObject(callback, filters, flags)
        handler.injection  # noqa: B018 - read now: a bad signature fails at registration
        handler.filter_injections  # noqa: B018
        self.handlers.append(handler)
        return callback

    def filter(self, *filters: Any) -> None:
        """Add filters every handler of this router for this kind must pass."""
        self.router._check_mutable()
        self.filters.extend(_filter_injection(f) for f in filters)

    def _add(self, into: list[Middleware], middleware: M | None) -> M | Callable[[M], M]:
        if middleware is None:

            def decorator(middleware: M) -> M:
                self._add(into, middleware)
                return middleware

            return decorator
        self.router._check_mutable()
        return _add(into, middleware)

    # -- running without the routing table (aiogram's observer API) -------------------

    async def check_root_filters(self, event: Any, **kwargs: Any) -> tuple[bool, dict[str, Any]]:
        """Run the filters of ``filter()`` on ``event``: ``(passed, data)`` with what
        they injected."""
        for inj in self.filters:
            result = inj.fn(event, **inj.kwargs(kwargs))
            if inj.is_async:
                result = await result
            if not passes(result):
                return False, kwargs
            if isinstance(result, dict):
                kwargs.update(result)
        return True, kwargs

    async def trigger(self, event: Any, **kwargs: Any) -> Any:
        """Offer ``event`` to this observer's handlers in order (not the sub-routers'):
        the first whose filters pass handles it, inside the inner middlewares of this
        kind from the root router down; ``SkipHandler`` goes on to the next. Returns
        the handler's result, or ``UNHANDLED``. Handlers and middlewares find their
        ``HandlerObject`` in ``data["handler"]``."""
        for handler in self.handlers:
            kwargs["handler"] = handler
            passed, data = await handler.check(event, **kwargs)
            if not passed:
                continue
            wrapped = MiddlewareManager.wrap_middlewares(self._inner_chain(), handler.call)
            try:
                return await wrapped(event, data)
            except SkipHandler:
                continue
        return UNHANDLED

    def wrap_outer_middleware(
        self, callback: Callable[..., Any], event: Any, data: dict[str, Any]
    ) -> Any:
        """``callback(event, **data)`` inside this observer's outer middlewares: the
        awaitable to await."""
        return MiddlewareManager.wrap_middlewares(self.outer_middlewares, callback)(event, data)

    def _inner_chain(self) -> list[Middleware]:
        """The inner middlewares of this kind on the routers from the root to this one."""
        chain: list[Middleware] = []
        for router in reversed(list(self.router.chain_head)):
            observer = router._observer_for(self.kind)
            if observer is not None:
                chain.extend(observer.middlewares)
        return chain

    def __repr__(self) -> str:
        return f"<Observer {self.router.name}.{self.kind}: {len(self.handlers)} handlers>"


class UpdateObserver(Observer[Any]):
    """``router.update``: middlewares around the whole processing of each update, and
    ``@router.update()`` handlers.

    Only the Dispatcher's middlewares run, so only the Dispatcher accepts them: outer
    ones first, then inner ones (innermost), then the update is routed by kind; a
    middleware on a plain Router's raises ``TypeError`` at once instead of being
    silently ignored. Handlers (and their filters), on any router, get the ``Update``
    itself when it is of no kind tgfast routes (one newer than its Bot API), as
    aiogram's do; an update of a known kind goes to that kind's handlers.
    """

    def _add(self, into: list[Middleware], middleware: M | None) -> M | Callable[[M], M]:
        if middleware is not None and not getattr(self.router, "is_dispatcher", False):
            which = "outer_middleware" if into is self.outer_middlewares else "middleware"
            raise TypeError(
                f"{self.router.name}.update.{which}() would never run: update middlewares run "
                f"on the Dispatcher only (dp.update.{which}(...)); for this router's updates "
                f"use its kinds' observers (router.message.{which}(...), ...)"
            )
        return super()._add(into, middleware)


class EventObserver:
    """``router.startup`` / ``router.shutdown``: callbacks run in registration order
    with the keywords each declares (``@dp.startup()`` or ``dp.startup.register(f)``)."""

    def __init__(self, router: Router | None = None) -> None:
        self._router = router
        self.handlers: list[HandlerObject] = []

    def register(self, callback: Callable[..., Any]) -> None:
        """Add ``callback`` (returns None, as aiogram's)."""
        if self._router is not None:
            self._router._check_mutable()
        self.handlers.append(HandlerObject(callback))

    def __call__(self) -> Callable[[F], F]:
        def decorator(callback: F) -> F:
            self.register(callback)
            return callback

        return decorator

    async def trigger(self, *args: Any, **kwargs: Any) -> None:
        """Call every callback with ``args`` and the keywords of ``kwargs`` it takes."""
        for handler in self.handlers:
            await handler.call(*args, **kwargs)


def _filter_injection(f: Any) -> Injection:
    return Injection(as_filter(f))  # a magic filter becomes its check; junk is a TypeError


def _refuse(keywords: Mapping[str, Any]) -> None:
    """aiogram 2's keyword filters (``commands=[...]``) are filter objects in aiogram 3."""
    if keywords:
        names = ", ".join(sorted(keywords))
        raise UnsupportedKeywordArgument(
            f"handlers take filters as arguments, not keywords ({names}): aiogram 2's "
            "commands=['start'] is Command('start'), content_types=... is F.photo and the like"
        )
