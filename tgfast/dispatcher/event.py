"""What the dispatcher hands around besides updates: error events and control signals."""

from __future__ import annotations

from typing import Any, Final

from ..errors import TgfastError
from ..types import Update

__all__ = ["FAILED", "UNHANDLED", "ErrorEvent", "RouterFrozenError", "SkipHandler"]


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


class SkipHandler(Exception):  # a signal, named as aiogram users know it
    """Raised by a handler to pass the event on to the next matching handler."""


class RouterFrozenError(TgfastError):
    """A handler, filter, middleware or router was added after the dispatcher started."""


class ErrorEvent:
    """The event of ``errors`` handlers: the update being handled and what it raised."""

    __slots__ = ("exception", "update")

    def __init__(self, update: Update, exception: BaseException) -> None:
        self.update = update
        self.exception = exception

    def __repr__(self) -> str:
        return f"ErrorEvent(update_id={self.update.update_id}, exception={self.exception!r})"

    def __eq__(self, other: Any) -> bool:
        return (
            type(other) is ErrorEvent
            and other.update is self.update
            and other.exception is self.exception
        )

    __hash__ = object.__hash__
