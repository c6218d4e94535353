"""aiogram's ``aiogram.dispatcher.event.handler`` path: ``HandlerObject``, what inner
middlewares find in ``data["handler"]`` (build one to call a middleware in a test:
``HandlerObject(callback=handler, flags={...})``), and ``CallableObject`` /
``FilterObject``, a callable (a filter) with the keywords it takes worked out once.

tgfast's router does not call handlers through these: it compiles each registration
into its routing table (``tgfast.dispatcher.table``).
"""

from __future__ import annotations

import inspect
from typing import Any

from ...filters.base import as_filter
from ..observer import HandlerObject

__all__ = ["CallableObject", "FilterObject", "HandlerObject"]


class CallableObject:
    """``callback`` with what it takes: ``await obj.call(*args, **data)`` passes the
    positional arguments and, of ``data``, the keywords it declares (all of them for
    ``**kwargs``), and awaits the result when it is awaitable."""

    def __init__(self, callback: Any) -> None:
        self.callback = callback
        target = inspect.unwrap(callback)
        self.awaitable = inspect.isawaitable(target) or inspect.iscoroutinefunction(target)
        self.params: set[str] = set()
        self.varkw = False
        try:
            signature = inspect.signature(callback)
        except (TypeError, ValueError):
            return
        for param in signature.parameters.values():
            if param.kind is param.VAR_KEYWORD:
                self.varkw = True
            elif param.kind in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
                self.params.add(param.name)

    def _prepare_kwargs(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        if self.varkw:
            return kwargs
        return {name: value for name, value in kwargs.items() if name in self.params}

    async def call(self, *args: Any, **kwargs: Any) -> Any:
        result = self.callback(*args, **self._prepare_kwargs(kwargs))
        if inspect.isawaitable(result):
            result = await result
        return result


class FilterObject(CallableObject):
    """A filter as a ``CallableObject`` (a magic filter ``F...`` becomes its check)."""

    def __init__(self, callback: Any) -> None:
        self.magic = callback if callback is not as_filter(callback) else None
        super().__init__(as_filter(callback))
