"""Which values a handler, filter or middleware asks for, read once from its signature.

A callable receives the event first and then, by keyword, only the names it declares
(``bot``, ``command``, ``state``, ...). Reading the signature at registration instead
of on every update keeps a call to one dict lookup per declared name. Handlers follow
the filters' rule (``tgfast.filters.filter_params``); startup and shutdown hooks get
no event, only keywords.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ..filters.base import filter_is_async, filter_params

__all__ = ["Injection"]


class Injection:
    """How to call ``fn``: its declared names, or all data when it takes ``**kwargs``."""

    __slots__ = ("fn", "is_async", "names", "takes_all")

    def __init__(self, fn: Callable[..., Any], *, event: bool = True) -> None:
        self.fn = fn
        self.is_async = filter_is_async(fn)
        names = filter_params(fn) if event else _keywords(fn)
        self.takes_all = names is None
        self.names: tuple[str, ...] = names or ()

    def kwargs(self, data: dict[str, Any]) -> dict[str, Any]:
        """The keyword arguments for one call."""
        if self.takes_all:
            return data
        return {name: data[name] for name in self.names if name in data}

    def __repr__(self) -> str:
        return f"Injection({getattr(self.fn, '__qualname__', self.fn)!r}, names={self.names})"


def _keywords(fn: Callable[..., Any]) -> tuple[str, ...] | None:
    """The names a hook (called with keywords only) declares; None for ``**kwargs``."""
    params = inspect.signature(fn).parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return None
    return tuple(p.name for p in params if p.kind is not inspect.Parameter.VAR_POSITIONAL)
