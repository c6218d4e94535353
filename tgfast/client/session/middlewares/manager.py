"""The request middlewares of one session, in the order they run."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, overload

from .base import NextRequestMiddlewareType, RequestMiddlewareType

__all__ = ["RequestMiddlewareManager"]


class RequestMiddlewareManager(Sequence[RequestMiddlewareType]):
    """``session.middleware``: ``session.middleware(m)`` (or ``@session.middleware``,
    ``@session.middleware()``) adds one; the first added runs outermost."""

    __slots__ = ("_middlewares",)

    def __init__(self) -> None:
        self._middlewares: list[RequestMiddlewareType] = []

    def register(self, middleware: RequestMiddlewareType) -> RequestMiddlewareType:
        self._middlewares.append(middleware)
        return middleware

    def unregister(self, middleware: RequestMiddlewareType) -> None:
        self._middlewares.remove(middleware)

    @overload
    def __call__(
        self, middleware: None = None
    ) -> Callable[[RequestMiddlewareType], RequestMiddlewareType]: ...
    @overload
    def __call__(self, middleware: RequestMiddlewareType) -> RequestMiddlewareType: ...
    def __call__(
        self, middleware: RequestMiddlewareType | None = None
    ) -> RequestMiddlewareType | Callable[[RequestMiddlewareType], RequestMiddlewareType]:
        if middleware is None:
            return self.register
        return self.register(middleware)

    @overload
    def __getitem__(self, item: int) -> RequestMiddlewareType: ...
    @overload
    def __getitem__(self, item: slice) -> Sequence[RequestMiddlewareType]: ...
    def __getitem__(
        self, item: int | slice
    ) -> RequestMiddlewareType | Sequence[RequestMiddlewareType]:
        return self._middlewares[item]

    def __len__(self) -> int:
        return len(self._middlewares)

    def wrap_middlewares(
        self, callback: Callable[..., Any], **kwargs: Any
    ) -> NextRequestMiddlewareType:
        """``callback`` (with ``kwargs``) inside every middleware, first one outermost."""
        chain: Any = partial(callback, **kwargs)
        for middleware in reversed(self._middlewares):
            chain = partial(middleware, chain)
        return chain  # type: ignore[no-any-return]
