"""An observer: the handlers, filters and middlewares one router has for one update kind."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..filters.base import as_filter
from .injection import Injection
from .middleware import Middleware

if TYPE_CHECKING:
    from .router import Router

__all__ = ["HandlerSpec", "Observer"]

E = TypeVar("E")
F = TypeVar("F", bound=Callable[..., Any])


class HandlerSpec:
    """A registered handler: its callable and filters, their signatures read now."""

    __slots__ = ("callback", "filters")

    def __init__(self, callback: Callable[..., Any], filters: tuple[Any, ...]) -> None:
        if not callable(callback):
            raise TypeError(f"a handler must be callable, not {type(callback).__name__}")
        self.callback = Injection(callback)
        self.filters = tuple(_filter_injection(f) for f in filters)


def _filter_injection(f: Any) -> Injection:
    return Injection(as_filter(f))  # a magic filter becomes its check; junk is a TypeError


class Observer(Generic[E]):
    """``@router.message(Command("start"))``: registers handlers for one update kind.

    ``filter()`` adds filters every handler of this router for this kind must pass
    (when they fail, the router's children are skipped too). ``outer_middleware()``
    runs before those filters, ``middleware()`` (inner) around each handler that
    matched, in this router and the routers included into it.
    """

    def __init__(self, router: Router, kind: str) -> None:
        self.router = router
        self.kind = kind
        self.handlers: list[HandlerSpec] = []
        self.filters: list[Injection] = []
        self.outer_middlewares: list[Middleware] = []
        self.middlewares: list[Middleware] = []

    def __call__(self, *filters: Any) -> Callable[[F], F]:
        def decorator(callback: F) -> F:
            self.register(callback, *filters)
            return callback

        return decorator

    def register(self, callback: F, *filters: Any) -> F:
        self.router._check_mutable()
        self.handlers.append(HandlerSpec(callback, filters))
        return callback

    def filter(self, *filters: Any) -> None:
        self.router._check_mutable()
        self.filters.extend(_filter_injection(f) for f in filters)

    def outer_middleware(self, middleware: Middleware) -> Middleware:
        self.router._check_mutable()
        self.outer_middlewares.append(middleware)
        return middleware

    def middleware(self, middleware: Middleware) -> Middleware:
        self.router._check_mutable()
        self.middlewares.append(middleware)
        return middleware

    def __repr__(self) -> str:
        return f"<Observer {self.router.name}.{self.kind}: {len(self.handlers)} handlers>"
