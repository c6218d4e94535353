"""A registered handler and its filters as objects: ``HandlerObject``, ``FilterObject``
and their base ``CallableObject`` (aiogram's ``aiogram.dispatcher.event.handler`` names).

These are what code outside the routing table sees and calls: inner middlewares find
the ``HandlerObject`` of the matched handler in ``data["handler"]`` (with its
``flags``), tests and libraries (aiogram-dialog) build them and ``await obj.call(event,
**data)`` or ``await handler.check(event, **data)``, and ``Router.propagate_event``
walks them. The routing table does not call through them: it reads their call plans
(``injection``, ``filter_injections``) once, when it is built, and calls the functions
itself.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..errors import Recommendation
from ..filters.base import as_filter, filter_is_async, passes
from ..filters.magic import MagicFilter
from .flags import extract_flags_from_object
from .injection import Injection

__all__ = ["CallableObject", "FilterObject", "HandlerObject"]


class CallableObject:
    """``callback`` with what it takes, worked out once: ``await obj.call(*args, **data)``
    passes the positional arguments and, of ``data``, the keywords it declares (all of
    them when it takes ``**kwargs``), and awaits the result when it is awaitable.

    ``awaitable`` says whether calling it gives something to await (a coroutine
    function, a class-based handler, a filter with an ``async __call__``); ``params``
    the keyword names it takes; ``varkw`` whether it takes ``**kwargs``.
    """

    def __init__(self, callback: Callable[..., Any]) -> None:
        self.callback = callback
        self._bind(callback)

    def _bind(self, target: Callable[..., Any]) -> None:
        """Read how to call ``target`` (what ``call`` calls)."""
        self._target = target
        unwrapped = inspect.unwrap(target)
        try:
            self.awaitable = inspect.isawaitable(unwrapped) or filter_is_async(unwrapped)
        except TypeError:  # not callable: say so when it is called, not now
            self.awaitable = False
        self.params: set[str] = set()
        self.varkw = False
        try:
            signature = inspect.signature(target)
        except (TypeError, ValueError):  # a builtin without a signature: positional only
            return
        for param in signature.parameters.values():
            if param.kind is param.VAR_KEYWORD:
                self.varkw = True
            elif param.kind in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
                self.params.add(param.name)

    def _prepare_kwargs(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """The keywords of ``kwargs`` the callback takes."""
        if self.varkw:
            return kwargs
        return {name: value for name, value in kwargs.items() if name in self.params}

    async def call(self, *args: Any, **kwargs: Any) -> Any:
        """Call the callback with ``args`` and the keywords it takes; await its result
        when it is awaitable."""
        result = self._target(*args, **self._prepare_kwargs(kwargs))
        if inspect.isawaitable(result):
            result = await result
        return result

    def __repr__(self) -> str:
        return f"{type(self).__name__}({getattr(self.callback, '__qualname__', self.callback)!s})"


class FilterObject(CallableObject):
    """A filter as a ``CallableObject``: a magic filter (``F.text == "hi"``) is called
    through its ``resolve``, the value deciding; a class-based filter is called as is.

    A magic filter of the ``magic_filter`` package (not tgfast's ``F``) works too, with
    a ``Recommendation`` warning: tgfast's ``F`` is compiled once for the router. Anything
    else is called as the router calls it (``as_filter``: a ``StatesGroup`` is "any of
    its states", a tgfast filter its synchronous twin); not callable, a ``TypeError``.
    """

    def __init__(self, callback: Any) -> None:
        self.magic: Any = None
        if isinstance(callback, MagicFilter):
            self.magic = callback
            callback = callback.resolve
        elif _foreign_magic(callback):
            warnings.warn(
                "a magic filter from the magic_filter package: use tgfast's F (from tgfast "
                "import F), which the router compiles once",
                Recommendation,
                stacklevel=2,
            )
            self.magic = callback
            callback = callback.resolve
        self.callback = callback
        self._bind(callback if self.magic is not None else as_filter(callback))
        self._injection: Injection | None = None

    @property
    def injection(self) -> Injection:
        """The call plan the routing table uses (the filter as ``as_filter`` gives it)."""
        if self._injection is None:
            if isinstance(self.magic, MagicFilter):
                self._injection = Injection(self.magic.check)
            else:  # a foreign magic filter through its resolve, or the filter as routed
                self._injection = Injection(self._target)
        return self._injection


def _foreign_magic(obj: object) -> bool:
    return type(obj).__module__.partition(".")[0] == "magic_filter" and hasattr(obj, "resolve")


class HandlerObject(CallableObject):
    """A registered handler: ``callback``, its ``filters`` (``FilterObject``s) and
    ``flags``; what inner middlewares find in ``data["handler"]``.

    ``flags`` is the dict given at registration (``@router.message(..., flags={...})``),
    then what its filters' ``update_handler_flags(flags=...)`` set, then its flag
    decorators' (``@flags.chat_action("typing")``), in aiogram's order; read them with
    ``get_flag``. ``check(event, **data)`` runs the filters as aiogram's does:
    ``(passed, data)`` with what they injected.

    The handler's signature is read when it is registered on a router (a handler
    that takes no event is refused then), not when the object is built, so a
    ``HandlerObject(lambda: True, flags=...)`` stands in for one in a middleware's test.
    """

    def __init__(
        self,
        callback: Callable[..., Any],
        filters: Iterable[Any] | None = None,
        flags: Mapping[str, Any] | None = None,
    ) -> None:
        if not callable(callback):
            raise TypeError(f"a handler must be callable, not {type(callback).__name__}")
        if flags is not None and not isinstance(flags, Mapping):
            raise TypeError(f"flags must be a dict of flag names, not {type(flags).__name__}")
        super().__init__(callback)
        given = list(filters or ())
        self.filters: list[FilterObject] = [
            f if isinstance(f, FilterObject) else FilterObject(f) for f in given
        ]
        self.flags: dict[str, Any] = dict(flags or {})
        for f in given:  # aiogram's hook: a filter may set flags of its handler
            update_flags = getattr(f, "update_handler_flags", None)
            if update_flags is not None:
                update_flags(flags=self.flags)
        self.flags.update(extract_flags_from_object(callback))  # the decorators win, as in aiogram
        self._injection: Injection | None = None

    @property
    def injection(self) -> Injection:
        """The handler's call plan, read from its signature on first use (``TypeError``
        for one that takes no event)."""
        if self._injection is None:
            self._injection = Injection(self.callback)
        return self._injection

    @property
    def filter_injections(self) -> tuple[Injection, ...]:
        """The filters' call plans, in order."""
        return tuple(f.injection for f in self.filters)

    async def check(self, event: Any, **kwargs: Any) -> tuple[bool, dict[str, Any]]:
        """Run the filters on ``event`` in order: ``(True, data)`` with what they
        injected when all pass, ``(False, data)`` at the first that does not."""
        for f in self.filters:
            result = await f.call(event, **kwargs)
            if not passes(result):
                return False, kwargs
            if isinstance(result, dict):
                kwargs.update(result)
        return True, kwargs

    def __repr__(self) -> str:
        name = getattr(self.callback, "__qualname__", self.callback)
        return f"<HandlerObject {name!s} flags={self.flags!r}>"
