"""Handler flags: ``@flags.chat_action("typing")`` above a handler, read by middlewares.

A flag is a name and a value kept with a handler. It is attached either at
registration (``@router.message(..., flags={"chat_action": "typing"})``) or by a
flag decorator placed under the router's decorator; both end up in the
``HandlerObject.flags`` dict, the decorator's winning a clash (as in aiogram). Inner middlewares
read them with ``get_flag(data, name)`` or test them with ``check_flags(data, F...)``.
The decorators store their flags on the function (``aiogram_flag``, aiogram's
attribute), so the order of decorators does not matter as long as the router's is
the outermost.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar, overload

if TYPE_CHECKING:
    from ..filters.magic import MagicFilter

__all__ = [
    "FLAGS_ATTRIBUTE",
    "AttrDict",
    "Flag",
    "FlagDecorator",
    "FlagGenerator",
    "check_flags",
    "extract_flags",
    "extract_flags_from_object",
    "flags",
    "get_flag",
]

FLAGS_ATTRIBUTE = "aiogram_flag"
"""Where a flag decorator keeps the flags on the handler function (aiogram's name, so
code written for aiogram that reads or sets it keeps working)."""

C = TypeVar("C", bound=Callable[..., Any])


class AttrDict(dict[str, Any]):
    """A dict whose keys read as attributes too, so a magic filter can walk it
    (``check_flags(data, F.chat_action.action == "typing")``)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


@dataclass(frozen=True)
class Flag:
    """One flag: its name and value."""

    name: str
    value: Any


@dataclass(frozen=True)
class FlagDecorator:
    """``flags.name``: decorates a handler with ``name=True``; called with a value
    (``flags.name(value)``, ``flags.name(key=...)``) it is a decorator for that value."""

    flag: Flag

    @overload
    def __call__(self, value: C, /) -> C: ...

    @overload
    def __call__(self, value: Any, /) -> FlagDecorator: ...

    @overload
    def __call__(self, **kwargs: Any) -> FlagDecorator: ...

    def __call__(self, value: Any = None, **kwargs: Any) -> Any:
        if value is not None and kwargs:
            raise ValueError("a flag takes either one value or keyword arguments, not both")
        if value is not None and callable(value):
            setattr(value, FLAGS_ATTRIBUTE, {
                **extract_flags_from_object(value), self.flag.name: self.flag.value,
            })  # fmt: skip
            return value
        return self._with_value(AttrDict(kwargs) if value is None else value)

    def _with_value(self, value: Any) -> FlagDecorator:
        """This flag with another value (aiogram's name)."""
        return FlagDecorator(Flag(self.flag.name, value))


class FlagGenerator:
    """``flags.<any name>`` is a ``FlagDecorator`` for that name."""

    def __getattr__(self, name: str) -> FlagDecorator:
        if name.startswith("_"):
            raise AttributeError("a flag name must not start with an underscore")
        return FlagDecorator(Flag(name, True))


flags = FlagGenerator()
"""``@flags.chat_action("typing")``, ``@flags.rate_limit(key="x")``, ``@flags.long_operation``."""


def extract_flags_from_object(obj: object) -> dict[str, Any]:
    """The flags flag decorators put on ``obj`` (a handler function), ``{}`` if none;
    aiogram's decorators and libraries built on aiogram keep them in the same place."""
    found = getattr(obj, FLAGS_ATTRIBUTE, None)
    return dict(found) if isinstance(found, Mapping) else {}


def extract_flags(handler: Any) -> dict[str, Any]:
    """The flags of a ``HandlerObject``, or of the handler in middleware ``data``
    (``{}`` outside an inner middleware: no handler has been chosen yet)."""
    if isinstance(handler, Mapping):
        handler = handler.get("handler")
    found = getattr(handler, "flags", None)
    return found if isinstance(found, dict) else {}


def get_flag(handler: Any, name: str, default: Any = None) -> Any:
    """The flag ``name`` of the handler that matched, or ``default``:
    ``get_flag(data, "chat_action")`` in an inner middleware (outer middlewares run
    before a handler is chosen and always get ``default``)."""
    return extract_flags(handler).get(name, default)


def check_flags(handler: Any, magic: MagicFilter) -> Any:
    """``magic`` resolved on the flags (as attributes): ``check_flags(data,
    F.chat_action)`` is the flag's value, or None when the handler lacks it."""
    return magic.resolve(AttrDict(extract_flags(handler)))
