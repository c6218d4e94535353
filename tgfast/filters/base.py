"""The filter protocol, the ``Filter`` base class and the ``&`` ``|`` ``~`` combinators.

A filter is any callable ``f(event, **data)`` returning ``True``/``False``/``None`` or a
``dict``: a dict (even an empty one) passes and its items are injected into the
handler's data; anything else passes when it is truthy. It may be ``async``.

tgfast's own filters are awaitable as aiogram's are (``await Command("x")(message)``,
``await (f1 & f2)(event)``), for tests written the aiogram way; each also has a
synchronous twin, ``check``, which is what the dispatcher calls: ``@sync_twin`` on an
``async def __call__`` names it, and a subclass that overrides ``__call__`` is called
through its own ``__call__`` instead.

The dispatcher resolves each filter once, at registration: ``as_filter`` turns a magic
filter into its check function, ``filter_params`` says which data names the filter
declares (only those are passed), ``filter_is_async`` whether the result is awaited.
Combined filters do the same for their parts when they are built, so a combination
forwards to each part only what that part asked for.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

__all__ = [
    "Filter",
    "FilterResult",
    "and_f",
    "as_filter",
    "filter_is_async",
    "filter_params",
    "invert_f",
    "or_f",
    "passes",
    "sync_twin",
]

FilterResult = bool | dict[str, Any] | None
"""What a filter returns: a dict passes and is injected; otherwise its truth decides."""


def passes(result: object) -> bool:
    """Whether a filter's result lets the event through (a dict always does)."""
    return isinstance(result, dict) or bool(result)


C = TypeVar("C", bound=Callable[..., Any])


def sync_twin(call: C) -> C:
    """Mark an ``async def __call__`` as a wrapper of the filter's synchronous ``check``
    (same result): the dispatcher then calls ``check`` inline, without a coroutine."""
    call.__tgfast_sync_twin__ = "check"  # type: ignore[attr-defined]
    return call


class Filter(ABC):  # noqa: B024 - __call__ is abstract, outside TYPE_CHECKING
    """Base of class-based filters: implement ``__call__(self, event, <data names>)``.

    ``is_async`` is set for each subclass from its ``__call__``, so the dispatcher
    knows whether to await without inspecting anything per update; ``sync_entry``
    names the synchronous twin the dispatcher calls instead (see ``sync_twin``).
    A filter is ``Awaitable`` as in aiogram (``__await__``, aiogram 2's spelling).
    """

    __slots__ = ()
    is_async: ClassVar[bool] = False
    sync_entry: ClassVar[str | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.sync_entry = getattr(cls.__call__, "__tgfast_sync_twin__", None)
        cls.is_async = cls.sync_entry is None and inspect.iscoroutinefunction(cls.__call__)

    def __await__(self) -> Any:  # aiogram's: a filter instance passes for an Awaitable
        return self.__call__

    if TYPE_CHECKING:  # any signature: the event, then the data names the filter wants
        __call__: Callable[..., Any]
    else:

        @abstractmethod
        def __call__(self, event, /, **kwargs):
            """Check ``event``; return bool, None or a dict to inject."""

    def __and__(self, other: object) -> Filter:
        return and_f(self, other)

    def __rand__(self, other: object) -> Filter:
        return and_f(other, self)

    def __or__(self, other: object) -> Filter:
        return or_f(self, other)

    def __ror__(self, other: object) -> Filter:
        return or_f(other, self)

    def __invert__(self) -> Filter:
        return invert_f(self)


def as_filter(obj: object) -> Callable[..., Any]:
    """The callable to call for ``obj``: a magic filter's check, what its type's
    ``__tgfast_filter__(obj)`` returns, or ``obj`` itself.

    The hook is looked up on the type, as Python looks up special methods, so that a
    class can be a filter (a ``StatesGroup``: "any state of this group") through its
    metaclass instead of being constructed when called.
    """
    from .magic import MagicFilter

    if isinstance(obj, MagicFilter):
        return obj.check
    cls = type(obj)
    hook = next((c.__dict__["__tgfast_filter__"] for c in cls.__mro__
                 if "__tgfast_filter__" in c.__dict__), None)  # fmt: skip
    if hook is not None:
        obj = hook(obj)
        if isinstance(obj, MagicFilter):
            return obj.check
        cls = type(obj)
    entry = getattr(cls, "sync_entry", None)
    if entry is not None and isinstance(obj, Filter):
        return getattr(obj, entry)  # type: ignore[no-any-return]
    if not callable(obj):
        hint = (
            f"; did you mean Command({obj!r}) or F.text == {obj!r}?" if isinstance(obj, str) else ""
        )
        raise TypeError(f"a filter must be callable or a magic filter, got {obj!r}{hint}")
    return obj


def filter_params(f: object) -> tuple[str, ...] | None:
    """The data names ``f`` takes as keywords after the event; None when it takes ``**kwargs``.

    The first positional parameter receives the event. A filter may declare its
    names itself with a ``__filter_params__`` attribute (combined filters do).
    """
    f = as_filter(f)
    declared = getattr(f, "__filter_params__", _UNSET)
    if declared is _UNSET and isinstance(getattr(f, "__self__", None), Filter):
        declared = getattr(f.__self__, "__filter_params__", _UNSET)  # type: ignore[attr-defined]
    if declared is not _UNSET:
        return declared  # type: ignore[no-any-return]
    try:
        signature = inspect.signature(f)
    except (TypeError, ValueError):  # a builtin without a signature: give it the event only
        return ()
    names: list[str] = []
    event_taken = False
    for param in signature.parameters.values():
        kind = param.kind
        if kind is param.VAR_KEYWORD:
            return None
        if kind is param.VAR_POSITIONAL:
            event_taken = True
        elif kind is param.POSITIONAL_ONLY or kind is param.POSITIONAL_OR_KEYWORD:
            if not event_taken:
                event_taken = True
            elif kind is param.POSITIONAL_OR_KEYWORD:
                names.append(param.name)
        elif kind is param.KEYWORD_ONLY:
            names.append(param.name)
    if not event_taken:
        raise TypeError(f"filter {f!r} must take the event as its first positional parameter")
    return tuple(names)


def filter_is_async(f: object) -> bool:
    """Whether calling ``f`` returns an awaitable (decided once, at registration)."""
    f = as_filter(f)
    declared = getattr(f, "is_async", None)
    if declared is True or declared is False:
        return declared
    if inspect.iscoroutinefunction(f):
        return True
    return inspect.iscoroutinefunction(type(f).__call__)


_UNSET: Any = object()

# One part of a combination: (callable, declared data names or None for all, async?).
_Part = tuple[Callable[..., Any], "tuple[str, ...] | None", bool]


def _parts(filters: tuple[object, ...], flatten: tuple[type, ...] = ()) -> tuple[_Part, ...]:
    if not filters:
        raise TypeError("combine at least one filter")
    out: list[_Part] = []
    for obj in filters:
        if isinstance(obj, flatten):
            out.extend(obj._parts)  # type: ignore[attr-defined]
            continue
        f = as_filter(obj)
        out.append((f, filter_params(f), filter_is_async(f)))
    return tuple(out)


def _union(parts: tuple[_Part, ...]) -> tuple[str, ...] | None:
    names: dict[str, None] = {}
    for _f, params, _a in parts:
        if params is None:
            return None
        names.update(dict.fromkeys(params))
    return tuple(names)


def _call(part: _Part, event: Any, kwargs: dict[str, Any]) -> Any:
    f, params, _ = part
    if params is None:
        return f(event, **kwargs)
    if not params:
        return f(event)
    return f(event, **{name: kwargs[name] for name in params if name in kwargs})


class _Combined(Filter):
    __slots__ = ("__filter_params__", "_parts")
    _symbol: ClassVar[str] = ""

    def __init__(self, parts: tuple[_Part, ...]) -> None:
        self._parts = parts
        self.__filter_params__ = _union(parts)

    @property
    def filters(self) -> tuple[Callable[..., Any], ...]:
        """The parts, in the order they are checked."""
        return tuple(part[0] for part in self._parts)

    def __repr__(self) -> str:
        return "(" + f" {self._symbol} ".join(repr(f) for f in self.filters) + ")"


class _And(_Combined):
    __slots__ = ()
    _symbol = "&"

    def check(self, event: Any, /, **kwargs: Any) -> FilterResult:
        data: dict[str, Any] | None = None
        for part in self._parts:
            result = _call(part, event, kwargs)
            if isinstance(result, dict):
                data = result if data is None else {**data, **result}
            elif not result:
                return False
        return True if data is None else data

    @sync_twin
    async def __call__(self, event: Any, /, **kwargs: Any) -> FilterResult:
        return self.check(event, **kwargs)


class _AsyncAnd(_And):
    __slots__ = ()

    async def __call__(self, event: Any, /, **kwargs: Any) -> FilterResult:
        data: dict[str, Any] | None = None
        for part in self._parts:
            result = _call(part, event, kwargs)
            if part[2]:
                result = await result
            if isinstance(result, dict):
                data = result if data is None else {**data, **result}
            elif not result:
                return False
        return True if data is None else data


class _Or(_Combined):
    __slots__ = ()
    _symbol = "|"

    def check(self, event: Any, /, **kwargs: Any) -> FilterResult:
        for part in self._parts:
            result = _call(part, event, kwargs)
            if isinstance(result, dict):
                return result
            if result:
                return True
        return False

    @sync_twin
    async def __call__(self, event: Any, /, **kwargs: Any) -> FilterResult:
        return self.check(event, **kwargs)


class _AsyncOr(_Or):
    __slots__ = ()

    async def __call__(self, event: Any, /, **kwargs: Any) -> FilterResult:
        for part in self._parts:
            result = _call(part, event, kwargs)
            if part[2]:
                result = await result
            if isinstance(result, dict):
                return result
            if result:
                return True
        return False


class _Invert(_Combined):
    __slots__ = ()

    def check(self, event: Any, /, **kwargs: Any) -> bool:
        return not passes(_call(self._parts[0], event, kwargs))

    @sync_twin
    async def __call__(self, event: Any, /, **kwargs: Any) -> bool:
        return self.check(event, **kwargs)

    def __repr__(self) -> str:
        return f"~{self._parts[0][0]!r}"


class _AsyncInvert(_Invert):
    __slots__ = ()

    async def __call__(self, event: Any, /, **kwargs: Any) -> bool:
        result: Awaitable[Any] = _call(self._parts[0], event, kwargs)
        return not passes(await result)


def and_f(*filters: object) -> Filter:
    """Passes when every filter passes (checked in order, stopping at the first miss);
    injects the union of their dicts, later ones winning."""
    parts = _parts(filters, (_And,))
    return (_AsyncAnd if any(p[2] for p in parts) else _And)(parts)


def or_f(*filters: object) -> Filter:
    """Passes when any filter passes; injects the dict of the first one that does."""
    parts = _parts(filters, (_Or,))
    return (_AsyncOr if any(p[2] for p in parts) else _Or)(parts)


def invert_f(f: object) -> Filter:
    """Passes when ``f`` does not; injects nothing."""
    parts = _parts((f,))
    return (_AsyncInvert if parts[0][2] else _Invert)(parts)
