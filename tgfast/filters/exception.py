"""Filters for ``router.errors`` handlers: any event with an ``exception`` attribute
(the dispatcher's ``ErrorEvent``)."""

from __future__ import annotations

import re
from typing import Any

from .base import Filter, sync_twin

__all__ = ["ExceptionMessageFilter", "ExceptionTypeFilter"]


class ExceptionTypeFilter(Filter):
    """Passes when the exception is an instance of one of ``exception_types``."""

    __slots__ = ("exception_types",)

    def __init__(self, *exception_types: type[BaseException]) -> None:
        if not exception_types:
            raise ValueError("ExceptionTypeFilter needs at least one exception type")
        for tp in exception_types:
            if not (isinstance(tp, type) and issubclass(tp, BaseException)):
                raise TypeError(f"not an exception type: {tp!r}")
        self.exception_types = exception_types

    def check(self, event: Any, /) -> bool:
        return isinstance(getattr(event, "exception", None), self.exception_types)

    @sync_twin
    async def __call__(self, obj: Any) -> bool:
        return self.check(obj)

    def __repr__(self) -> str:
        names = ", ".join(tp.__name__ for tp in self.exception_types)
        return f"ExceptionTypeFilter({names})"


class ExceptionMessageFilter(Filter):
    """Passes when ``pattern`` is found (``re.search``) in ``str(exception)``; injects the
    match as ``match_exception``."""

    __slots__ = ("pattern",)

    def __init__(self, pattern: str | re.Pattern[str]) -> None:
        self.pattern: re.Pattern[str] = re.compile(pattern)

    @sync_twin
    async def __call__(self, obj: Any) -> bool | dict[str, Any]:
        return self.check(obj)

    def check(self, event: Any, /) -> bool | dict[str, Any]:
        exception = getattr(event, "exception", None)
        if exception is None:
            return False
        match = self.pattern.search(str(exception))
        return False if match is None else {"match_exception": match}

    def __repr__(self) -> str:
        return f"ExceptionMessageFilter(pattern={self.pattern!r})"
