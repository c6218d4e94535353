"""What every generated Bot API class shares: slots, equality, repr and ``to_dict``.

The generated classes only declare data: their slots, a typed ``__init__`` and
``__tg_fields__``, a tuple of ``(json_key, attribute, type, required)`` rows. The
type is a small string language both decoders read once at import:
``int``, ``str``, ``bool``, ``float``, ``true``, ``InputFile``, a class name,
``[T]`` for an array of ``T`` and ``A|B`` for alternatives.
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

from ..defaults import DEFAULT

__all__ = ["FieldRow", "TelegramObject", "UnionRule", "json_value", "split_alternatives"]

FieldRow = tuple[str, str, str, bool]
"""One field of a generated class: JSON key, attribute name, type, required."""


class UnionRule(NamedTuple):
    """How a decoder picks the concrete class of a union from a JSON object.

    With ``key``, the value of that key selects a class from ``variants`` (else
    ``default``); with ``presence``, the first ``(key, class)`` whose key is present
    wins. ``allow_str`` / ``allow_list`` admit a bare string or an array of the
    union itself (``RichText``). A dict that matches nothing decodes to an instance
    of the union's base class holding the raw fields, so new variants never break.
    """

    key: str | None = None
    variants: dict[Any, type[TelegramObject]] = {}
    default: type[TelegramObject] | None = None
    presence: tuple[tuple[str, type[TelegramObject]], ...] = ()
    allow_str: bool = False
    allow_list: bool = False


class TelegramObject:
    """Base of every Bot API type.

    ``_extra`` holds the fields Telegram sent that this version of tgfast does not
    know (``None`` when there were none), so that newer API versions round-trip
    through ``to_dict`` unchanged instead of being dropped or mistyped.
    """

    __slots__ = ("_extra",)
    __tg_fields__: ClassVar[tuple[FieldRow, ...]] = ()
    __tg_union__: ClassVar[UnionRule | None] = None
    # attribute -> the bot default (DefaultBotProperties field) an unset DEFAULT takes
    __tg_defaults__: ClassVar[dict[str, str]] = {}

    _extra: dict[str, Any] | None

    def __init__(self, **extra: Any) -> None:
        # Only union bases are built this way: an unknown variant keeps its raw fields.
        self._extra = extra or None

    def to_dict(self) -> dict[str, Any]:
        """The Telegram JSON form of this object; absent optionals are omitted, and so
        are fields left to the bot's defaults (``DEFAULT``): no bot is known here."""
        out: dict[str, Any] = {}
        for key, attr, _tp, _req in self.__tg_fields__:
            value = getattr(self, attr)
            if value is not None and value is not DEFAULT:
                out[key] = json_value(value)
        if self._extra:
            for key, value in self._extra.items():
                out.setdefault(key, value)
        return out

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        for _key, attr, _tp, _req in self.__tg_fields__:
            if getattr(self, attr) != getattr(other, attr):
                return False
        return self._extra == other._extra

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __repr__(self) -> str:
        parts = [
            f"{attr}={value!r}"
            for _key, attr, _tp, _req in self.__tg_fields__
            if (value := getattr(self, attr)) is not None and value is not DEFAULT
        ]
        if self._extra:
            parts.extend(f"{key}={value!r}" for key, value in self._extra.items())
        return f"{type(self).__name__}({', '.join(parts)})"


def json_value(value: Any) -> Any:
    """``value`` with every ``TelegramObject`` in it (lists included) as its ``to_dict()``."""
    if isinstance(value, TelegramObject):
        return value.to_dict()
    if type(value) is list:
        return [json_value(item) for item in value]
    return value


def split_alternatives(expr: str) -> list[str]:
    """``A|[B|C]`` -> ``["A", "[B|C]"]``: the alternatives of a type expression."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(expr):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(expr[start:i])
            start = i + 1
    parts.append(expr[start:])
    return parts
