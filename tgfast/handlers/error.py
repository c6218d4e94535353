"""``ErrorHandler``: a class-based handler of errors (``@router.error()``)."""

from __future__ import annotations

from abc import ABC

from ..types.error_event import ErrorEvent
from .base import BaseHandler

__all__ = ["ErrorHandler"]


class ErrorHandler(BaseHandler[Exception], ABC):
    """Its ``event`` is what the error observer gives (an ``ErrorEvent``) or the
    exception itself; ``exception_name`` and ``exception_message`` describe the
    exception in both cases."""

    @property
    def exception(self) -> BaseException:
        event: object = self.event
        return event.exception if isinstance(event, ErrorEvent) else self.event

    @property
    def exception_name(self) -> str:
        return type(self.exception).__name__

    @property
    def exception_message(self) -> str:
        return str(self.exception)
