"""Which values a handler, filter or middleware asks for, read once from its signature.

A callable receives the event first and then, by keyword, only the names it declares
(``bot``, ``command``, ``state``, ...). Reading the signature at registration instead
of on every update keeps a call to one dict lookup per declared name.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["Injection"]

_UNSET: Any = object()


class Injection:
    """How to call ``fn``: its declared names, or all data when it takes ``**kwargs``."""

    __slots__ = ("fn", "is_async", "names", "takes_all")

    def __init__(self, fn: Callable[..., Any], *, event: bool = True) -> None:
        self.fn = fn
        self.is_async = _is_async(fn)
        names, self.takes_all = _declared(fn, event)
        self.names: tuple[str, ...] = names

    def kwargs(self, data: dict[str, Any]) -> dict[str, Any]:
        """The keyword arguments for one call."""
        if self.takes_all:
            return data
        return {name: data[name] for name in self.names if name in data}

    def __repr__(self) -> str:
        return f"Injection({getattr(self.fn, '__qualname__', self.fn)!r}, names={self.names})"


def _is_async(fn: Callable[..., Any]) -> bool:
    if inspect.iscoroutinefunction(fn):
        return True
    call = getattr(type(fn), "__call__", None)  # an instance with an async __call__
    return not inspect.isfunction(fn) and inspect.iscoroutinefunction(call)


def _declared(fn: Callable[..., Any], event: bool) -> tuple[tuple[str, ...], bool]:
    declared = getattr(fn, "__filter_params__", _UNSET)  # combined filters say it themselves
    if declared is not _UNSET:
        return (declared or (), declared is None)
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # a builtin: give it the event only
        return (), False
    if event and params and params[0].kind in (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    ):
        params = params[1:]  # the event
    names = tuple(
        p.name
        for p in params
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    )
    takes_all = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
    return names, takes_all
