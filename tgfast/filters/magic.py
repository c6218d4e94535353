"""The magic filter ``F``: ``F.from_user.id == 42``, ``F.text.startswith("/")``, ...

Each expression is compiled, when it is written, into a flat tuple of operations;
checking an event is one loop over that tuple. Attribute reads and ``==`` run inline in
the loop, every other operation is a small closure ``op(value, event)`` made once.

A missing attribute, or ``None`` anywhere in a chain, gives ``None`` for the rest of the
chain instead of raising: ``F.reply_to_message.from_user.id == 1`` is simply false when
there is no reply. Comparisons, ``in_`` and ``is_`` then see ``None``
(``F.text != "x"`` is true for a photo); tests that need a value (``<``, ``startswith``,
``regexp``, ``len``, ``func``, ...) give ``None``, which is false.

Why tgfast keeps its own ``F`` instead of the ``magic-filter`` package aiogram builds
on (``benchmarks/micro/filters_magic.py``; ns of CPU, median of 9 rounds, compiled build,
magic-filter 1.0.12, AMD EPYC 2 cores, CPython 3.11.7, 2026-11-24)::

    expression                                           build (ours/theirs)  evaluate (ours/theirs)
    F.text == "x"                                        1625 / 1979          173 / 979   (5.6x)
    F.from_user.id.in_({1, 2})                           3839 / 3189          252 / 1828  (7.2x)
    F.text.startswith("a") & (F.chat.type == "private")  5436 / 7300          571 / 2591  (4.4x)

A filter is built once, at registration, so building costs nothing that matters; it is
evaluated for every update that reaches its handler, where magic-filter's ``resolve``
spends 4-7x the CPU of ``check``'s one flat loop. The routing table needs nothing from
inside an expression: ``as_filter`` hands it ``check`` as a plain callable, and only
``Command`` filters are indexed (``tgfast/dispatcher/table.py``), so either ``F`` would
route alike. Computed properties (``F.content_type``, ``F.from_user.full_name``) are
class properties of the types (``tgfast/types/helpers.py``), read like fields by
either. What the package does not give tgfast: ``.as_(name)`` (aiogram adds it in its own subclass), ordering tests that give
``None`` instead of raising ``TypeError`` when a link is missing (``F.caption < 3`` on
a message without a caption), and the loud error for ``F.text(event)``.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Container, Iterable
from typing import Any, NoReturn

from ..types.base import TelegramObject
from .base import and_f, or_f

__all__ = ["F", "MagicFilter"]

_ATTR = 0
_EQ = 1
_OP = 2

Op = tuple[int, Any]


class _Injected:
    """What ``.as_(name)`` produces inside a chain; ``check`` hands out its dict."""

    __slots__ = ("data",)

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data


class MagicFilter:
    """A compiled attribute chain with tests; use the module's ``F`` to start one.

    ``check(event)`` is the filter (``bool``, or the dict of ``.as_``); ``resolve(event)``
    gives the value itself. Expressions are immutable and can be shared and reused.
    """

    __slots__ = ("_ops", "_text")

    def __init__(self, ops: tuple[Op, ...] = (), text: str = "F") -> None:
        self._ops = ops
        self._text = text

    # -- resolution (per update) -------------------------------------------------------

    def check(self, event: Any, /) -> bool | dict[str, Any]:
        """The filter: whether the chain's value is truthy, or the dict ``.as_`` injects."""
        value = event
        for code, arg in self._ops:  # 0 is _ATTR, 1 is _EQ: literals, no global lookups
            if code == 0:
                value = getattr(value, arg, None)
            elif code == 1:
                value = value == arg
            else:
                value = arg(value, event)
        if value is True:
            return True
        if value.__class__ is _Injected:
            return value.data
        return bool(value)

    def resolve(self, event: Any, /) -> Any:
        """The value of the chain for ``event`` (``None`` when a link is missing)."""
        value = self._run(event)
        return value.data if value.__class__ is _Injected else value

    def _run(self, event: Any) -> Any:
        value = event
        for code, arg in self._ops:
            if code == 0:
                value = getattr(value, arg, None)
            elif code == 1:
                value = value == arg
            else:
                value = arg(value, event)
        return value

    # -- building ----------------------------------------------------------------------

    def _then(self, code: int, arg: Any, text: str) -> MagicFilter:
        return MagicFilter((*self._ops, (code, arg)), text)

    def _op(self, op: Callable[[Any, Any], Any], text: str) -> MagicFilter:
        return self._then(_OP, op, text)

    def __getattr__(self, name: str) -> MagicFilter:
        if name.startswith("_"):
            raise AttributeError(name)
        return self._then(_ATTR, name, f"{self._text}.{name}")

    def __getitem__(self, key: Any) -> MagicFilter:
        def item(value: Any, event: Any) -> Any:
            if value is None:
                return None
            try:
                return value[key]
            except (LookupError, TypeError):
                return None

        return self._op(item, f"{self._text}[{key!r}]")

    def __call__(self, *args: Any, **kwargs: Any) -> MagicFilter:
        """Call the value (a method read from the chain): ``F.text.lower()``."""
        if args and isinstance(args[0], TelegramObject):  # surely a filter call: be loud
            raise TypeError(
                f"{self._text}(event) would record a method call, not check the event:"
                " call as_filter(f)(event) or f.check(event) (use .func() to pass"
                " Telegram objects to a method)"
            )

        def call(value: Any, event: Any) -> Any:
            return None if value is None else value(*args, **kwargs)

        shown = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
        return self._op(call, f"{self._text}({', '.join(shown)})")

    def __iter__(self) -> NoReturn:
        raise TypeError("a magic filter is not iterable")

    def __contains__(self, item: object) -> NoReturn:
        raise TypeError("'x in F.attr' cannot be a filter: write F.attr.contains(x)")

    # -- comparisons -------------------------------------------------------------------

    def __eq__(self, other: object) -> MagicFilter:  # type: ignore[override]
        if isinstance(other, MagicFilter):
            return self._compare(operator.eq, "==", other)
        return self._then(_EQ, other, f"{_group(self._text)} == {other!r}")

    def __ne__(self, other: object) -> MagicFilter:  # type: ignore[override]
        return self._compare(operator.ne, "!=", other)

    def __lt__(self, other: object) -> MagicFilter:
        return self._order(operator.lt, "<", other)

    def __le__(self, other: object) -> MagicFilter:
        return self._order(operator.le, "<=", other)

    def __gt__(self, other: object) -> MagicFilter:
        return self._order(operator.gt, ">", other)

    def __ge__(self, other: object) -> MagicFilter:
        return self._order(operator.ge, ">=", other)

    __hash__ = object.__hash__

    def _compare(self, cmp: Callable[[Any, Any], Any], sign: str, other: Any) -> MagicFilter:
        text = f"{_group(self._text)} {sign} {other!r}"
        if isinstance(other, MagicFilter):
            rhs = other._run

            def compare_magic(value: Any, event: Any) -> Any:
                return cmp(value, rhs(event))

            return self._op(compare_magic, text)

        def compare(value: Any, event: Any) -> Any:
            return cmp(value, other)

        return self._op(compare, text)

    def _order(self, cmp: Callable[[Any, Any], Any], sign: str, other: Any) -> MagicFilter:
        rhs = other._run if isinstance(other, MagicFilter) else None

        def order(value: Any, event: Any) -> Any:
            if value is None:
                return None
            try:
                return cmp(value, other if rhs is None else rhs(event))
            except TypeError:
                return None

        return self._op(order, f"{_group(self._text)} {sign} {other!r}")

    # -- arithmetic (``F.from_user.id % 2 == 0``) ----------------------------------------

    def _arith(
        self, op: Callable[[Any, Any], Any], sign: str, other: Any, *, swap: bool = False
    ) -> MagicFilter:
        """``value <op> other`` (``other <op> value`` when ``swap``); ``None`` when the
        value is missing or the operation fails, so the filter does not pass."""
        rhs = other._run if isinstance(other, MagicFilter) else None

        def arith(value: Any, event: Any) -> Any:
            if value is None:
                return None
            operand = other if rhs is None else rhs(event)
            try:
                return op(operand, value) if swap else op(value, operand)
            except (TypeError, ValueError, ArithmeticError):
                return None

        text = (
            f"{other!r} {sign} {_group(self._text)}"
            if swap
            else f"{_group(self._text)} {sign} {other!r}"
        )
        return self._op(arith, text)

    def __add__(self, other: object) -> MagicFilter:
        return self._arith(operator.add, "+", other)

    def __radd__(self, other: object) -> MagicFilter:
        return self._arith(operator.add, "+", other, swap=True)

    def __sub__(self, other: object) -> MagicFilter:
        return self._arith(operator.sub, "-", other)

    def __rsub__(self, other: object) -> MagicFilter:
        return self._arith(operator.sub, "-", other, swap=True)

    def __mul__(self, other: object) -> MagicFilter:
        return self._arith(operator.mul, "*", other)

    def __rmul__(self, other: object) -> MagicFilter:
        return self._arith(operator.mul, "*", other, swap=True)

    def __truediv__(self, other: object) -> MagicFilter:
        return self._arith(operator.truediv, "/", other)

    def __rtruediv__(self, other: object) -> MagicFilter:
        return self._arith(operator.truediv, "/", other, swap=True)

    def __floordiv__(self, other: object) -> MagicFilter:
        return self._arith(operator.floordiv, "//", other)

    def __rfloordiv__(self, other: object) -> MagicFilter:
        return self._arith(operator.floordiv, "//", other, swap=True)

    def __mod__(self, other: object) -> MagicFilter:
        return self._arith(operator.mod, "%", other)

    def __rmod__(self, other: object) -> MagicFilter:
        return self._arith(operator.mod, "%", other, swap=True)

    def __pow__(self, other: object) -> MagicFilter:
        return self._arith(operator.pow, "**", other)

    def __rpow__(self, other: object) -> MagicFilter:
        return self._arith(operator.pow, "**", other, swap=True)

    def __neg__(self) -> MagicFilter:
        def negative(value: Any, event: Any) -> Any:
            try:
                return None if value is None else -value
            except TypeError:
                return None

        return self._op(negative, f"-{_group(self._text)}")

    def is_(self, other: object) -> MagicFilter:
        """``value is other`` (``F.reply_to_message.is_(None)``)."""
        return self._op(lambda value, event: value is other, f"{self._text}.is_({other!r})")

    def is_not(self, other: object) -> MagicFilter:
        """``value is not other``."""
        return self._op(lambda value, event: value is not other, f"{self._text}.is_not({other!r})")

    # -- tests on the value ------------------------------------------------------------

    def in_(self, container: Iterable[Any] | MagicFilter) -> MagicFilter:
        """``value in container``. A list, set, dict (any container) is kept by reference,
        so items added later are seen; a tuple is made a set once, a generator read once."""
        return self._op(_membership(container, True), f"{self._text}.in_({container!r})")

    def not_in(self, container: Iterable[Any] | MagicFilter) -> MagicFilter:
        """``value not in container``."""
        return self._op(_membership(container, False), f"{self._text}.not_in({container!r})")

    def contains(self, item: object) -> MagicFilter:
        """``item in value`` (a substring, a list member, ...)."""

        def contains(value: Any, event: Any) -> Any:
            if value is None:
                return None
            try:
                return item in value
            except TypeError:
                return None

        return self._op(contains, f"{self._text}.contains({item!r})")

    def startswith(self, prefix: str | tuple[str, ...]) -> MagicFilter:
        """``value.startswith(prefix)`` for a string value; a tuple means any of them."""

        def startswith(value: Any, event: Any) -> Any:
            return value.startswith(prefix) if isinstance(value, str) else None

        return self._op(startswith, f"{self._text}.startswith({prefix!r})")

    def endswith(self, suffix: str | tuple[str, ...]) -> MagicFilter:
        """``value.endswith(suffix)`` for a string value; a tuple means any of them."""

        def endswith(value: Any, event: Any) -> Any:
            return value.endswith(suffix) if isinstance(value, str) else None

        return self._op(endswith, f"{self._text}.endswith({suffix!r})")

    def regexp(
        self, pattern: str | re.Pattern[str], *, mode: str = "search", flags: int = 0
    ) -> MagicFilter:
        """The ``re.Match`` of ``pattern`` in a string value (``mode``: search, match or
        fullmatch), so ``.regexp(p).group(1)`` and ``.as_("match")`` work."""
        if mode not in ("search", "match", "fullmatch"):
            raise ValueError(f"regexp mode must be search, match or fullmatch, not {mode!r}")
        if isinstance(pattern, re.Pattern):
            compiled = re.compile(pattern.pattern, pattern.flags | flags) if flags else pattern
        else:
            compiled = re.compile(pattern, flags)
        find = getattr(compiled, mode)

        def regexp(value: Any, event: Any) -> Any:
            return find(value) if isinstance(value, str) else None

        return self._op(regexp, f"{self._text}.regexp({compiled.pattern!r})")

    def len(self) -> MagicFilter:
        """``len(value)``: ``F.text.len() <= 10``."""

        def length(value: Any, event: Any) -> Any:
            if value is None:
                return None
            try:
                return len(value)
            except TypeError:
                return None

        return self._op(length, f"{self._text}.len()")

    def func(self, function: Callable[..., Any], /, *args: Any, **kwargs: Any) -> MagicFilter:
        """``function(value, *args, **kwargs)``; not called when the value is ``None``."""

        def call(value: Any, event: Any) -> Any:
            return None if value is None else function(value, *args, **kwargs)

        return self._op(call, f"{self._text}.func({_name(function)})")

    def cast(self, function: Callable[[Any], Any], /) -> MagicFilter:
        """``function(value)``, with ``None`` when it raises ValueError or TypeError:
        ``F.text.cast(int).as_("number")``."""

        def cast(value: Any, event: Any) -> Any:
            if value is None:
                return None
            try:
                return function(value)
            except (ValueError, TypeError):
                return None

        return self._op(cast, f"{self._text}.cast({_name(function)})")

    def as_(self, name: str) -> MagicFilter:
        """Inject the value as ``name`` into the handler's data; no match when it is
        None or an empty collection (a 0 or a False is a value, as in aiogram)."""
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"as_() needs a parameter name, not {name!r}")

        def inject(value: Any, event: Any) -> Any:
            if value.__class__ is _Injected:
                value = value.data
            if value is None or (isinstance(value, Iterable) and not value):
                return None
            return _Injected({name: value})

        return self._op(inject, f"{self._text}.as_({name!r})")

    # -- logic -------------------------------------------------------------------------

    def __and__(self, other: object) -> Any:
        if not isinstance(other, MagicFilter):
            return and_f(self, other) if callable(other) else NotImplemented
        rhs = other._run

        def both(value: Any, event: Any) -> Any:
            if not value:
                return value
            right = rhs(event)
            if not right or value.__class__ is not _Injected:
                return right
            if right.__class__ is _Injected:
                return _Injected({**value.data, **right.data})
            return value

        return self._op(both, f"{_group(self._text)} & {_group(other._text)}")

    def __rand__(self, other: object) -> Any:
        return and_f(other, self) if callable(other) else NotImplemented

    def __or__(self, other: object) -> Any:
        if not isinstance(other, MagicFilter):
            return or_f(self, other) if callable(other) else NotImplemented
        rhs = other._run

        def either(value: Any, event: Any) -> Any:
            return value or rhs(event)

        return self._op(either, f"{_group(self._text)} | {_group(other._text)}")

    def __ror__(self, other: object) -> Any:
        return or_f(other, self) if callable(other) else NotImplemented

    def __invert__(self) -> MagicFilter:
        return self._op(lambda value, event: not value, f"~{_group(self._text)}")

    def __repr__(self) -> str:
        return self._text


F = MagicFilter()
"""The event itself; every magic expression starts here."""


def _membership(container: Any, inside: bool) -> Callable[[Any, Any], Any]:
    if isinstance(container, MagicFilter):
        rhs = container._run

        def member_of_magic(value: Any, event: Any) -> Any:
            try:
                return (value in rhs(event)) is inside
            except TypeError:
                return not inside

        return member_of_magic
    if isinstance(container, tuple):  # immutable: a set of it answers the same, faster
        try:
            fixed: Any = frozenset(container)
        except TypeError:  # an unhashable member: scanned
            fixed = container
    elif isinstance(container, Container):
        # kept by reference: a list, set or dict filled after the filter is built (an
        # admin list loaded at start-up) is seen, as aiogram users expect
        fixed = container
    else:  # a one-shot iterable (a generator): read once, now
        fixed = tuple(container)

    def member(value: Any, event: Any) -> Any:
        try:
            return (value in fixed) is inside
        except TypeError:  # an unhashable value asked of a set, a non-str in a str
            return not inside

    return member


def _group(text: str) -> str:
    return f"({text})" if " " in text else text


def _name(function: Callable[..., Any]) -> str:
    return getattr(function, "__qualname__", None) or repr(function)
