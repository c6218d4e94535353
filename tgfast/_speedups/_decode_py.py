"""Pure-Python twin of ``_decode.pyx``: the same objects and the same errors.

Both read the generated classes' ``__tg_fields__`` once and build a converter per
type; decoding then walks orjson's output and checks every value on the way.
"""

from __future__ import annotations

from typing import Any, NoReturn, TypeVar, cast

import orjson

from ..errors import DecodeError
from ..types import Update, _types
from ..types.base import TelegramObject, UnionRule, enable_extra, keep_extra, split_alternatives
from ._decode_shared import (
    _INT_MAX,
    _INT_MIN,
    DEFAULT_MAX_SIZE,
    JSON_NAMES,
    PRIMITIVES,
    Converter,
    PathError,
    _bad_tag,
    _wrong,
    expr_of,
    repeated_key,
)

__all__ = ["DEFAULT_MAX_SIZE", "convert", "decode", "decode_update", "decode_updates"]

T = TypeVar("T")

_EXACT: dict[str, type] = {"int": int, "str": str, "bool": bool, "true": bool}
"""Field types whose JSON value is taken as it is when its Python type is exactly this."""


_OBJECT_SOURCE = """\
def convert(d):
    if type(d) is not dict:
        raise _wrong("object", d)
    args = _blank.copy()
    extra = None
    key = ""
    try:
        for key, value in d.items():
            try:
                index, tp, conv = _fields[key]
            except KeyError:
                if extra is None:
                    extra = {{}}
                extra[key] = value
                continue
            if type(value) is tp:  # the hot path: a str, int or bool field holding just that
                if tp is int and not _INT_MIN <= value <= _INT_MAX:
                    raise PathError("integer out of 64-bit range")
                args[index] = value
            elif value is None:
                if key in _required:
                    raise PathError(f"expected {{_expected[key]}}, got null")
            else:
                args[index] = conv(value)
    except PathError as e:
        e.segments.append(f".{{key}}")
        raise
{check_required}    obj = _new(_cls)
    {slots}= args
    if extra is not None:
        obj._extra = extra
        _enable_extra(_cls)
    return obj
"""


def _object_source(cls: type[TelegramObject]) -> tuple[str, int]:
    """The source of the converter of ``cls`` (see ``_Registry._object``), and the
    length of its list of slot values: the fields in declared order, then the other
    slots (``_extra``, and ``_bot`` where the class has shortcuts), which start empty."""
    attrs = [attr for _key, attr, _tp, _req in cls.__tg_fields__]
    others = [s for k in cls.__mro__ for s in vars(k).get("__slots__", ()) if s not in attrs]
    slots = "".join(f"obj.{a}, " for a in attrs + others)
    # A required field left None was absent: a null one was refused in the loop.
    absent = " or ".join(f"args[{i}] is None" for i, f in enumerate(cls.__tg_fields__) if f[3])
    check = f"    if {absent}:\n        _missing(args)\n" if absent else ""
    return _OBJECT_SOURCE.format(check_required=check, slots=slots), len(attrs) + len(others)


class _Registry:
    """Converters by type expression, built lazily and shared (types are recursive)."""

    def __init__(self) -> None:
        self.converters: dict[str, Converter] = {}
        self.expected: dict[str, str] = {}
        self.accepts: dict[str, tuple[type, ...]] = {}
        self.builders: dict[type, Converter] = {}

    def get(self, expr: str) -> Converter:
        conv = self.converters.get(expr)
        if conv is None:
            conv = self._make(expr)
            self.converters[expr] = conv
        return conv

    def _make(self, expr: str) -> Converter:
        if expr in PRIMITIVES:
            conv, self.expected[expr], self.accepts[expr] = PRIMITIVES[expr]
            return conv
        alternatives = split_alternatives(expr)
        if len(alternatives) > 1:
            return self._alternatives(expr, alternatives)
        if expr.startswith("["):
            return self._list(expr)
        cls = getattr(_types, expr)
        rule = cls.__dict__.get("__tg_union__")
        self.expected[expr] = "object"
        self.accepts[expr] = (dict,)
        if rule is not None:
            accepts: list[type] = [dict]
            if rule.allow_str:
                accepts.append(str)
            if rule.allow_list:
                accepts.append(list)
            self.accepts[expr] = tuple(accepts)
            self.expected[expr] = " or ".join(JSON_NAMES[t] for t in reversed(accepts))
            return self._union(expr, cls, rule)
        return self._object(expr, cls)

    def _alternatives(self, expr: str, alternatives: list[str]) -> Converter:
        table: dict[type, Converter] = {}
        for alt in alternatives:
            conv = self.get(alt)
            for tp in self.accepts[alt]:
                table.setdefault(tp, conv)
        expected = " or ".join(dict.fromkeys(self.expected[a] for a in alternatives))
        self.expected[expr] = expected
        self.accepts[expr] = tuple(table)

        def convert(v: Any) -> Any:
            conv = table.get(type(v))
            if conv is None:
                raise _wrong(expected, v)
            return conv(v)

        return convert

    def _list(self, expr: str) -> Converter:
        inner = expr[1:-1]
        self.expected[expr] = "array"
        self.accepts[expr] = (list,)
        item: list[Converter] = []  # filled after registration, for recursive types

        def convert(v: Any) -> list[Any]:
            if type(v) is not list:
                raise _wrong("array", v)
            conv = item[0]
            out: list[Any] = []
            try:
                for x in v:  # not map(): on 3.12 calls from C meet a low C recursion limit
                    out.append(conv(x))
            except PathError as e:
                e.segments.append(f"[{len(out)}]")  # the items before it are converted
                raise
            return out

        self.converters[expr] = convert
        item.append(self.get(inner))
        return convert

    def builder(self, cls: type) -> Converter:
        return self.get(cls.__name__)

    def _object(self, expr: str, cls: type[TelegramObject]) -> Converter:
        """A function per class, generated at start-up the way dataclasses makes an
        ``__init__``: it fills the slots with one unpacking assignment (CPython matches
        keyword arguments one by one, against a hundred names for ``Message``) and checks
        the required fields by index. Its source holds generated field names only."""
        # key -> (slot index, the exact type a primitive field takes or None, converter)
        fields: dict[str, tuple[int, type | None, Converter]] = {}
        expected: dict[str, str] = {}
        required = [(i, f[0]) for i, f in enumerate(cls.__tg_fields__) if f[3]]

        def missing(args: list[Any]) -> NoReturn:
            for index, key in required:
                if args[index] is None:
                    err = PathError("missing required field")
                    err.segments.append(f".{key}")
                    raise err
            raise AssertionError("no required field is missing")

        source, size = _object_source(cls)
        namespace: dict[str, Any] = {
            "_wrong": _wrong, "PathError": PathError, "_INT_MIN": _INT_MIN,
            "_INT_MAX": _INT_MAX, "_blank": [None] * size, "_fields": fields,
            "_expected": expected, "_required": frozenset(k for _i, k in required),
            "_missing": missing, "_new": object.__new__, "_cls": cls,
            "_enable_extra": enable_extra,
        }  # fmt: skip
        exec(source, namespace)
        convert = cast(Converter, namespace["convert"])
        self.converters[expr] = convert  # before the fields: types are recursive
        for index, (key, _attr, tp, _req) in enumerate(cls.__tg_fields__):
            fields[key] = (index, _EXACT.get(tp), self.get(tp))
            expected[key] = self.expected[tp]
        return convert

    def _union(self, expr: str, base: type[TelegramObject], rule: UnionRule) -> Converter:
        expected = self.expected[expr]
        variants: dict[Any, Converter] = {}
        presence: list[tuple[str, Converter]] = []
        default: list[Converter] = []
        as_list: list[Converter] = []
        # A discriminator (no default class) must be a string: an unknown string is a
        # newer variant, anything else is a malformed object, not a base-class instance.
        strict = rule.key is not None and rule.default is None

        def convert(v: Any) -> Any:
            tv = type(v)
            if tv is dict:
                if rule.key is not None:
                    _met_keys.add(rule.key)
                for key, conv in presence:
                    if key in v:
                        return conv(v)
                if rule.key is not None:
                    tag = v.get(rule.key)
                    found = None
                    tt = type(tag)
                    if tt is str or (tt is int and not strict):  # never True == 1
                        found = variants.get(tag)
                    elif strict:
                        raise _bad_tag(rule.key, tag, v)
                    if found is None and default:
                        found = default[0]
                    if found is not None:
                        return found(v)
                unknown = base.__new__(base)
                keep_extra(unknown, dict(v))
                return unknown
            if tv is str and rule.allow_str:
                return v
            if tv is list and rule.allow_list:
                return as_list[0](v)
            raise _wrong(expected, v)

        self.converters[expr] = convert
        variants.update((tag, self.builder(cls)) for tag, cls in rule.variants.items())
        presence.extend((key, self.builder(cls)) for key, cls in rule.presence)
        if rule.default is not None:
            default.append(self.builder(rule.default))
        if rule.allow_list:
            as_list.append(self.get(f"[{expr}]"))
        return convert


_registry = _Registry()
_UPDATE = _registry.get("Update")
_UPDATES = _registry.get("[Update]")


def _load(data: bytes | bytearray | memoryview | str, max_size: int | None) -> Any:
    if not isinstance(data, (bytes, bytearray, memoryview, str)):
        raise TypeError(f"expected bytes or str, got {type(data).__name__}")
    if max_size is not None and len(data) > max_size:
        raise DecodeError(f"input too large ({len(data)} > max_size={max_size})")
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as e:
        raise DecodeError(f"invalid JSON: {e}") from None


_met_keys: set[str] = set()
"""The discriminator keys of the unions met by the decode in progress."""


def _decode(
    conv: Converter, data: bytes | bytearray | memoryview | str, max_size: int | None
) -> Any:
    """``_run`` over the parsed ``data``, then the repeated-key check if a union was met."""
    value = _load(data, max_size)
    _met_keys.clear()
    result = _run(conv, value)
    if _met_keys:
        error = repeated_key(data, _met_keys)
        if error is not None:
            raise error
    return result


def _run(conv: Converter, value: Any) -> Any:
    try:
        return conv(value)
    except PathError as e:
        raise e.to_decode_error() from None
    except RecursionError:  # only when called from an already deep stack
        raise DecodeError("nesting too deep for the Python stack") from None


def decode_update(
    data: bytes | bytearray | memoryview | str, *, max_size: int | None = DEFAULT_MAX_SIZE
) -> Update:
    """One webhook body -> ``Update``."""
    return cast(Update, _decode(_UPDATE, data, max_size))


def decode_updates(
    data: bytes | bytearray | memoryview | str, *, max_size: int | None = DEFAULT_MAX_SIZE
) -> list[Update]:
    """A JSON array of updates (a ``getUpdates`` result) -> ``list[Update]``."""
    return cast("list[Update]", _decode(_UPDATES, data, max_size))


_by_type: dict[Any, Converter] = {}
"""tp -> its converter, so that a call for a type met before (every Bot API call's
result) builds no expression string."""


def _conv_of(tp: Any) -> Converter:
    try:
        return _by_type[tp]
    except (KeyError, TypeError):  # not met yet, or unhashable
        pass
    conv = _registry.get(expr_of(tp))  # a tp it cannot decode into raises here
    try:
        _by_type[tp] = conv
    except TypeError:  # unhashable: looked up again next time
        pass
    return conv


def decode(
    tp: type[T] | Any,
    data: bytes | bytearray | memoryview | str,
    *,
    max_size: int | None = DEFAULT_MAX_SIZE,
) -> T:
    """JSON -> a value of ``tp`` (a Bot API class, ``list[X]``, a primitive)."""
    return cast(T, _decode(_conv_of(tp), data, max_size))


def convert(tp: type[T] | Any, obj: Any) -> T:
    """Already-parsed JSON (dicts, lists, ...) -> a value of ``tp``."""
    return cast(T, _run(_conv_of(tp), obj))
