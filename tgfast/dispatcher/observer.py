"""An observer: the handlers, filters and middlewares one router has for one update kind."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from ..errors import UnsupportedKeywordArgument
from ..filters.base import as_filter
from .flags import extract_flags_from_object
from .injection import Injection
from .middleware import Middleware

if TYPE_CHECKING:
    from .router import Router

__all__ = ["HandlerObject", "Observer", "UpdateObserver"]

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

    @overload
    def outer_middleware(self, middleware: None = None) -> Callable[[M], M]: ...

    @overload
    def outer_middleware(self, middleware: M) -> M: ...

    def outer_middleware(self, middleware: M | None = None) -> M | Callable[[M], M]:
        """Add a middleware run before this router's filters: ``outer_middleware(m)``,
        ``@outer_middleware`` or ``@outer_middleware()``."""
        return self._add(self.outer_middlewares, middleware)

    @overload
    def middleware(self, middleware: None = None) -> Callable[[M], M]: ...

    @overload
    def middleware(self, middleware: M) -> M: ...

    def middleware(self, middleware: M | None = None) -> M | Callable[[M], M]:
        """Add an inner middleware, run around each matched handler: ``middleware(m)``,
        ``@middleware`` or ``@middleware()``."""
        return self._add(self.middlewares, middleware)

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
    """``dp.update``: middlewares around the whole processing of each update.

    Only the Dispatcher's runs, so only the Dispatcher's accepts them: outer ones first,
    then inner ones (innermost), then the update is routed by kind. It takes no handlers
    and no filters; registering them (or a middleware on a plain Router's) raises
    ``TypeError`` at once instead of being silently ignored.
    """

    def __call__(
        self, *filters: Any, flags: Mapping[str, Any] | None = None, **unsupported: Any
    ) -> Callable[[F], F]:
        raise TypeError(_NO_HANDLERS)

    def register(
        self,
        callback: F,
        *filters: Any,
        flags: Mapping[str, Any] | None = None,
        **unsupported: Any,
    ) -> F:
        raise TypeError(_NO_HANDLERS)

    def filter(self, *filters: Any) -> None:
        raise TypeError(
            "router.update takes no filters: filter each kind's observer "
            "(router.message.filter(...)), or have a dp.update middleware skip updates"
        )

    def _add(self, into: list[Middleware], middleware: M | None) -> M | Callable[[M], M]:
        if middleware is not None and not getattr(self.router, "is_dispatcher", False):
            which = "outer_middleware" if into is self.outer_middlewares else "middleware"
            raise TypeError(
                f"{self.router.name}.update.{which}() would never run: update middlewares run "
                f"on the Dispatcher only (dp.update.{which}(...)); for this router's updates "
                f"use its kinds' observers (router.message.{which}(...), ...)"
            )
        return super()._add(into, middleware)


_NO_HANDLERS = (
    "router.update takes no handlers: register on the update's kind (@router.message(), "
    "@router.callback_query(), ...); a dp.update.outer_middleware(...) sees every update"
)


def _refuse(keywords: Mapping[str, Any]) -> None:
    """aiogram 2's keyword filters (``commands=[...]``) are filter objects in aiogram 3."""
    if keywords:
        names = ", ".join(sorted(keywords))
        raise UnsupportedKeywordArgument(
            f"handlers take filters as arguments, not keywords ({names}): aiogram 2's "
            "commands=['start'] is Command('start'), content_types=... is F.photo and the like"
        )
