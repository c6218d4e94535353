"""Middlewares: code that runs around routing (outer) or around a handler (inner).

An inner middleware runs once a handler has matched, so it finds that handler in
``data["handler"]`` (a ``HandlerObject``) and its flags through ``get_flag``
(``tgfast.dispatcher.flags``). An outer
middleware runs before any handler is chosen: it sees no handler and no flags.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from .flags import get_flag

__all__ = ["BaseMiddleware", "Handler", "Middleware", "get_flag"]

Handler = Callable[[Any, dict[str, Any]], Awaitable[Any]]
"""What a middleware calls to go on: ``await handler(event, data)``."""

Middleware = Callable[[Handler, Any, dict[str, Any]], Awaitable[Any]]
"""``async def middleware(handler, event, data)``: add to ``data``, decide not to call
``handler`` (short-circuit), or wrap the call (timing, transactions, locks)."""


class BaseMiddleware:
    """Base for class middlewares; override ``__call__``."""

    async def __call__(self, handler: Handler, event: Any, data: dict[str, Any]) -> Any:
        return await handler(event, data)
