"""An observer: the handlers, filters and middlewares one router has for one update kind."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from ..errors import UnsupportedKeywordArgument
from ..filters.base import as_filter
from .flags import extract_flags_from_object
from .injection import Injection
from .middleware import Middleware

if TYPE_CHECKING:
    from .router import Router

__all__ = ["HandlerObject", "MiddlewareManager", "Observer", "UpdateObserver"]

E = TypeVar("E")
F = TypeVar("F", bound=Callable[..., Any])
M = TypeVar("M", bound=Middleware)


class HandlerObject:
    """A registered handler, as inner middlewares see it in ``data["handler"]``.

    ``callback`` is the function, ``flags`` the dict given at registration
    (``@router.message(..., flags={...})``), then what its filters'
    ``update_handler_flags(flags=...)`` set, then its flag decorators'
    (``@flags.chat_action("typing")``), in aiogram's order; read them with ``get_flag``. ``injection`` and ``filters`` are the call plans
    of the callback and its filters, read from their signatures now.
    """

    __slots__ = ("callback", "filters", "flags", "injection")

    def __init__(
        self,
        callback: Callable[..., Any],
        filters: tuple[Any, ...] | list[Any] | None = None,
        flags: Mapping[str, Any] | None = None,
    ) -> None:
        if not callable(callback):
            raise TypeError(f"a handler must be callable, not {type(callback).__name__}")
        if flags is not None and not isinstance(flags, Mapping):
            raise TypeError(f"flags must be a dict of flag names, not {type(flags).__name__}")
        self.callback = callback
        self.injection = Injection(callback)
        filters = filters or ()
        self.filters = tuple(_filter_injection(f) for f in filters)
        self.flags: dict[str, Any] = dict(flags or {})
        for f in filters:  # aiogram's hook: a filter may set flags of its handler
            update_flags = getattr(f, "update_handler_flags", None)
            if update_flags is not None:
                update_flags(flags=self.flags)
        self.flags.update(extract_flags_from_object(callback))  # the decorators win, as in aiogram

    def __repr__(self) -> str:
        name = getattr(self.callback, "__qualname__", self.callback)
        return f"<HandlerObject {name!s} flags={self.flags!r}>"


def _filter_injection(f: Any) -> Injection:
    return Injection(as_filter(f))  # a magic filter becomes its check; junk is a TypeError


class MiddlewareManager(Sequence[Middleware]):
    """``observer.outer_middleware`` / ``observer.middleware``: call it (or use it as a
    decorator, with or without parentheses) to add a middleware; aiogram's
    ``register``/``unregister``, ``in``, ``len`` and indexing work too."""

    __slots__ = ("_into", "_observer")

    def __init__(self, observer: Observer[Any], into: list[Middleware]) -> None:
        self._observer = observer
        self._into = into

    @overload
    def __call__(self, middleware: None = None) -> Callable[[M], M]: ...

    @overload
    def __call__(self, middleware: M) -> M: ...

    def __call__(self, middleware: M | None = None) -> M | Callable[[M], M]:
        return self._observer._add(self._into, middleware)

    def register(self, middleware: M) -> M:
        """Add ``middleware`` (after those added before)."""
        self._observer._add(self._into, middleware)
        return middleware

    def unregister(self, middleware: Middleware) -> None:
        """Remove ``middleware`` (``ValueError`` when it is not there)."""
        self._observer.router._check_mutable()
        self._into.remove(middleware)

    @overload
    def __getitem__(self, index: int) -> Middleware: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Middleware]: ...

    def __getitem__(self, index: int | slice) -> Middleware | Sequence[Middleware]:
        return self._into[index]

    def __len__(self) -> int:
        return len(self._into)

    def __repr__(self) -> str:
        return f"<MiddlewareManager {self._into!r}>"


class Observer(Generic[E]):
    """``@router.message(Command("start"))``: registers handlers for one update kind.

    ``filter()`` adds filters every handler of this router for this kind must pass
    (when they fail, the router's children are skipped too). ``outer_middleware()``
    runs before those filters, ``middleware()`` (inner) around each handler that
    matched, in this router and the routers included into it; both also work as
    decorators, with or without parentheses.
    """

    def __init__(self, router: Router, kind: str) -> None:
        self.router = router
        self.kind = kind
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
        """Add a handler; ``flags`` are what inner middlewares read with ``get_flag``."""
        _refuse(unsupported)
        self.router._check_mutable()
        self.handlers.append(HandlerObject(callback, filters, flags))
        return callback

    def filter(self, *filters: Any) -> None:
        self.router._check_mutable()
        self.filters.extend(_filter_injection(f) for f in filters)

    def _add(self, into: list[Middleware], middleware: M | None) -> M | Callable[[M], M]:
        if middleware is None:

            def decorator(middleware: M) -> M:
                self._add(into, middleware)
                return middleware

            return decorator
        self.router._check_mutable()
        if not callable(middleware):
            raise TypeError(f"a middleware must be callable, not {type(middleware).__name__}")
        into.append(middleware)
        return middleware

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


def _refuse(keywords: Mapping[str, Any]) -> None:
    """aiogram 2's keyword filters (``commands=[...]``) are filter objects in aiogram 3."""
    if keywords:
        names = ", ".join(sorted(keywords))
        raise UnsupportedKeywordArgument(
            f"handlers take filters as arguments, not keywords ({names}): aiogram 2's "
            "commands=['start'] is Command('start'), content_types=... is F.photo and the like"
        )
