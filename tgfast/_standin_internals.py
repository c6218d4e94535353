"""aiogram internals that libraries built on aiogram use, for ``tgfast.standin`` only.

A bot never needs these, so tgfast has no module of theirs (``tgfast.dispatcher.event.
handler`` stays absent); a library does: aiogram-dialog wraps its input filters in
``FilterObject`` and adds an observer of its own kind to a router. Under the stand-in,
``aiogram.dispatcher.event.handler`` and ``aiogram.dispatcher.event.telegram`` are small
modules holding the names below, built on tgfast's own call plans and observers.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from .dispatcher.injection import Injection
from .dispatcher.observer import HandlerObject, Observer
from .filters.base import as_filter

if TYPE_CHECKING:
    from .dispatcher.router import Router

__all__ = ["INTERNALS", "FilterObject", "TelegramEventObserver"]


class FilterObject:
    """One filter as a library calls it: ``await FilterObject(f).call(event, **data)``.

    ``f`` is what a handler takes as a filter (a callable, a magic filter, a filter
    object); ``call`` passes it the data it declares and awaits it when it is async.
    """

    __slots__ = ("callback", "injection")

    def __init__(self, callback: Any) -> None:
        self.callback = callback
        self.injection = Injection(as_filter(callback))

    async def call(self, *args: Any, **kwargs: Any) -> Any:
        result = self.injection.fn(*args, **self.injection.kwargs(kwargs))
        if inspect.isawaitable(result):
            result = await result
        return result

    def __repr__(self) -> str:
        return f"FilterObject({self.callback!r})"


class TelegramEventObserver(Observer[Any]):
    """An observer a library adds to ``router.observers`` for an event kind of its own."""

    def __init__(self, router: Router, event_name: str) -> None:
        super().__init__(router, event_name)


INTERNALS: dict[str, dict[str, object]] = {
    "aiogram.dispatcher.event.handler": {
        "FilterObject": FilterObject,
        "HandlerObject": HandlerObject,
    },
    "aiogram.dispatcher.event.telegram": {"TelegramEventObserver": TelegramEventObserver},
}
"""The aiogram modules the stand-in provides beyond tgfast's, and the names in each."""
