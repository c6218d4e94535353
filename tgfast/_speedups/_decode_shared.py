"""What both decoder twins share: limits, the path-bearing error, primitive
converters, the repeated-key check and type expressions.

Kept apart from ``_decode_py`` so that the compiled decoder can import these without
importing its twin, which builds a converter for every Bot API type at import (about
100 ms of ``import tgfast`` that the compiled build would never use).
"""

from __future__ import annotations

import json
import sys
import types as _pytypes
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any, Union

from ..errors import DecodeError
from ..types.base import TelegramObject

__all__ = [
    "DEFAULT_MAX_SIZE",
    "JSON_NAMES",
    "MAX_UNIX_TIME",
    "PRIMITIVES",
    "Converter",
    "PathError",
    "expr_of",
    "json_name",
    "repeated_key",
]

Converter = Callable[[Any], Any]

DEFAULT_MAX_SIZE = 8 * 1024 * 1024
"""Inputs longer than this are refused before parsing: no Bot API value comes close."""

# orjson accepts up to 1,024 levels of nesting and this decoder spends up to two
# frames per level (a union inside an array): make room for that, as the compiled
# twin has. Since Python 3.11 these calls do not consume C stack.
_RECURSION_NEEDED = 4 * 1024
if sys.getrecursionlimit() < _RECURSION_NEEDED:
    sys.setrecursionlimit(_RECURSION_NEEDED)

_INT_MIN = -(2**63)
_INT_MAX = 2**63 - 1
JSON_NAMES = {
    type(None): "null",
    bool: "bool",
    int: "int",
    float: "float",
    str: "str",
    list: "array",
    dict: "object",
}


class PathError(Exception):
    """Raised inside a conversion; each level adds its path segment on the way out."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        self.segments: list[str] = []

    def to_decode_error(self) -> DecodeError:
        return DecodeError(self.reason, "$" + "".join(reversed(self.segments)))


def json_name(value: object) -> str:
    return JSON_NAMES.get(type(value), type(value).__name__)


def _wrong(expected: str, value: object) -> PathError:
    return PathError(f"expected {expected}, got {json_name(value)}")


def _bad_tag(key: str, tag: object, obj: dict[str, Any]) -> PathError:
    """A union's discriminator that is missing, null or not a string, at ``.key``."""
    if tag is None and key not in obj:
        err = PathError("missing required field")
    else:
        err = _wrong("str", tag)
    err.segments.append(f".{key}")
    return err


class _Repeated(dict[str, Any]):
    """A parsed object whose discriminator key came twice (orjson keeps the last)."""

    key = ""


def repeated_key(data: bytes | bytearray | memoryview | str, keys: set[str]) -> DecodeError | None:
    """The error for the first object of ``data`` holding one of ``keys`` twice, if any.

    Only called when the decode met a union: which variant a repeated discriminator
    picks depends on the parser, so the object is malformed, not one of them."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(items)
        if len(obj) < len(items):
            met: set[str] = set()
            for key, _value in items:
                if key in met and key in keys:
                    repeated = _Repeated(obj)
                    repeated.key = key
                    return repeated
                met.add(key)
        return obj

    raw = bytes(data) if isinstance(data, (bytearray, memoryview)) else data
    found = _first_repeated(json.loads(raw, object_pairs_hook=pairs), "$")
    return None if found is None else DecodeError("repeated discriminator key", found)


def _first_repeated(value: Any, path: str) -> str | None:
    if type(value) is _Repeated:
        return f"{path}.{value.key}"
    children = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for name, child in children:
        found = _first_repeated(
            child, f"{path}.{name}" if isinstance(value, dict) else f"{path}[{name}]"
        )
        if found is not None:
            return found
    return None


def _int(v: Any) -> int:
    if type(v) is int:
        if _INT_MIN <= v <= _INT_MAX:
            return v
        raise PathError("integer out of 64-bit range")
    raise _wrong("int", v)


def _str(v: Any) -> str:
    if type(v) is str:
        return v
    raise _wrong("str", v)


def _bool(v: Any) -> bool:
    if v is True or v is False:
        return v
    raise _wrong("bool", v)


def _float(v: Any) -> float:
    if type(v) is float:
        return v
    if type(v) is int:
        return float(v)
    raise _wrong("float", v)


MAX_UNIX_TIME = 253402300799
"""9999-12-31 23:59:59 UTC, the last second a ``datetime`` holds."""
_UTC = timezone.utc
_last_date: list[Any] = [None, None]  # the last Unix time decoded, and its datetime


def _date(v: Any) -> datetime:
    """A Unix time -> an aware UTC datetime; the last one is reused (datetimes are
    immutable, and the dates of one update are often the same second)."""
    if type(v) is not int:
        raise _wrong("int", v)
    last = _last_date
    if v == last[0]:
        value: datetime = last[1]
        return value
    if not 0 <= v <= MAX_UNIX_TIME:
        raise PathError(f"Unix time out of range (0 to {MAX_UNIX_TIME})")
    value = datetime.fromtimestamp(v, _UTC)
    last[0] = v
    last[1] = value
    return value


def _int_or_str(v: Any) -> int | str:
    if type(v) is str:
        return v
    if type(v) is int:
        return _int(v)
    raise _wrong("int or str", v)


PRIMITIVES: dict[str, tuple[Converter, str, tuple[type, ...]]] = {
    # name -> (converter, expected, JSON types it takes); the compiled twin reads this too
    "int": (_int, "int", (int,)),
    "str": (_str, "str", (str,)),
    "InputFile": (_str, "str", (str,)),
    "bool": (_bool, "bool", (bool,)),
    "true": (_bool, "bool", (bool,)),
    "float": (_float, "float", (float, int)),
    "int|str": (_int_or_str, "int or str", (int, str)),
    "date": (_date, "int", (int,)),
}


def expr_of(tp: Any, *, result: bool = False) -> str:
    """A class, ``list[X]``, a union, a primitive type or a type expression -> the
    expression: ``list[Message]`` -> ``"[Message]"``, ``Message | bool`` ->
    ``"Message|bool"``.

    ``result=True`` reads a method's ``__returning__``, a Python type (a string is
    refused): ``None`` is ``""`` there (no value, as ``methods.base.result_type`` reads it
    back) and is left out of a union (``Message | None`` -> ``"Message"``). The decoder
    has no expression for null, so without ``result`` a ``None`` is refused.
    """
    if isinstance(tp, str) and not result:
        return tp
    if tp in (int, str, bool, float):
        name: str = tp.__name__
        return name
    if isinstance(tp, type) and issubclass(tp, TelegramObject):
        return tp.__name__
    if result and (tp is None or tp is type(None)):
        return ""
    args: tuple[Any, ...] = getattr(tp, "__args__", ())
    origin = getattr(tp, "__origin__", None)
    if origin is list and len(args) == 1:
        return f"[{expr_of(args[0], result=result)}]"
    if args and (isinstance(tp, _pytypes.UnionType) or origin is Union):
        return "|".join(alt for alt in (expr_of(arg, result=result) for arg in args) if alt)
    if result:
        raise TypeError(
            f"a method cannot return {tp!r}: a Bot API type, a list of one, a primitive"
        )
    raise TypeError(f"cannot decode into {tp!r}")
