"""What the dispatcher hands around besides updates: outcomes, control signals, error
events (aiogram's ``aiogram.dispatcher.event.bases`` path)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final, NoReturn, TypeVar

from ...errors import TgfastError
from ...types.error_event import ErrorEvent

__all__ = [
    "FAILED",
    "REJECTED",
    "UNHANDLED",
    "CancelHandler",
    "ErrorEvent",
    "MiddlewareEventType",
    "MiddlewareType",
    "NextMiddlewareType",
    "RouterFrozenError",
    "SkipHandler",
    "skip",
]


MiddlewareEventType = TypeVar("MiddlewareEventType")
"""The event a middleware sees (a ``Message``, an ``Update``...)."""

NextMiddlewareType = Callable[[MiddlewareEventType, dict[str, Any]], Awaitable[Any]]
"""The ``handler`` a middleware is given: the rest of the chain, called as
``await handler(event, data)``."""

MiddlewareType = Callable[
    [NextMiddlewareType[MiddlewareEventType], MiddlewareEventType, dict[str, Any]],
    Awaitable[Any],
]
"""A middleware: ``await middleware(handler, event, data)``."""


class _Outcome:
    """A falsy sentinel that ``feed_update`` returns instead of a handler's result."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return self._name


UNHANDLED: Final = _Outcome("UNHANDLED")
"""What ``feed_update`` returns when no handler took the update."""

FAILED: Final = _Outcome("FAILED")
"""What ``feed_update`` returns when a handler raised and no ``errors`` handler took it
(the exception was logged): the serving layer counts it as failed, not unhandled."""


REJECTED: Final = _Outcome("REJECTED")
"""aiogram's marker for "a router's filters refused the event". tgfast's routing table
never hands it out (a refused router is skipped inside it); kept so that code which
compares against it imports and runs."""


class SkipHandler(Exception):  # a signal, named as aiogram users know it
    """Raised by a handler (or an inner middleware) to pass the event on to the next
    matching handler."""


class CancelHandler(Exception):
    """aiogram's other signal: stop handling this event. Nothing catches it on the way
    (as in aiogram 3), so it ends the update as an error would."""


def skip(message: str | None = None) -> NoReturn:
    """Raise ``SkipHandler``: ``return skip()`` reads as what it does."""
    raise SkipHandler(message or "Event skipped")


class RouterFrozenError(TgfastError):
    """A handler, filter, middleware or router was added after the dispatcher started."""
