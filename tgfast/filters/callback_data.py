"""Typed callback data: ``class Page(CallbackData, prefix="page"): number: int``.

``Page(number=2).pack()`` is ``"page:2"``, ``Page.unpack("page:2")`` the instance back,
and ``Page.filter(F.number > 1)`` a callback-query filter that injects it as
``callback_data``. Fields are read from the annotations when the class is made, and
every mistake that can be caught then (an unsupported type, a bad default, a prefix
with the separator in it) is a ``TypeError`` right there rather than at the first
button press. Bad data at run time is a ``CallbackDataError``.
"""

from __future__ import annotations

import enum
import re
import sys
import types
import typing
from collections.abc import Callable
from decimal import Decimal
from inspect import Parameter, Signature
from typing import Any, ClassVar, TypeVar
from uuid import UUID

from ..errors import TgfastError
from .base import Filter, as_filter, filter_is_async, passes, sync_twin

__all__ = [
    "MAX_CALLBACK_DATA",
    "MAX_CALLBACK_LENGTH",
    "CallbackData",
    "CallbackDataError",
    "CallbackDataException",
    "CallbackDataFilter",
    "CallbackQueryFilter",
]

MAX_CALLBACK_DATA = 64
"""Telegram's limit on ``callback_data``, in bytes."""

T = TypeVar("T", bound="CallbackData")
_MISSING: Any = object()
_set = object.__setattr__
# an int written as text, as pydantic (so aiogram, whose docs pass bar="42") takes it
_INT_TEXT = re.compile(r"\s*([+-]?\d+(?:_\d+)*)(?:\.0+)?\s*", re.ASCII)


class CallbackDataError(TgfastError, ValueError):
    """Callback data that cannot be packed (too long, a separator in a value) or
    unpacked (another prefix, a wrong number of fields, a value of the wrong type)."""


class _CallbackDataShapeError(CallbackDataError, TypeError):
    """A class without a usable prefix or separator, or data with the wrong number of
    values: a ``ValueError`` as aiogram raises, and the ``TypeError`` tgfast raised."""


class _Field:
    __slots__ = ("decode", "default", "encode", "name", "optional", "tp", "validate")

    def __init__(self, name: str, annotation: Any, default: Any) -> None:
        tp, optional = _unwrap_optional(annotation)
        self.name = name
        self.tp = tp
        self.optional = optional
        self.default = default
        self.validate, self.encode, self.decode = _codec(name, tp)
        if default is not _MISSING:
            self.default = self.check(default)

    def check(self, value: Any) -> Any:
        if value is None:
            if self.optional:
                return None
            raise TypeError(f"{self.name}: None is not allowed (annotate it Optional)")
        return self.validate(value)

    @property
    def type_name(self) -> str:
        name = getattr(self.tp, "__name__", repr(self.tp))
        return f"{name} | None" if self.optional else name


def _unwrap_optional(annotation: Any) -> tuple[Any, bool]:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(annotation)) == 2:
            return args[0], True
    return annotation, False


def _codec(
    name: str, tp: Any
) -> tuple[Callable[[Any], Any], Callable[[Any], str], Callable[[str], Any]]:
    """(validate, encode, decode) for one field type."""

    def wrong(value: Any) -> TypeError:
        return TypeError(f"{name}: expected {getattr(tp, '__name__', tp)}, got {value!r}")

    if tp is bool:

        def check_bool(value: Any) -> Any:
            if value.__class__ is not bool:
                raise wrong(value)
            return value

        return check_bool, lambda v: "1" if v else "0", {"1": True, "0": False}.__getitem__
    if tp is int:

        def check_int(value: Any) -> Any:
            if isinstance(value, str):
                match = _INT_TEXT.fullmatch(value)
                if match is None:
                    raise wrong(value)
                return int(match.group(1))
            if not isinstance(value, int) or isinstance(value, bool):
                raise wrong(value)
            return int(value)

        return check_int, int.__repr__, int
    if tp is float:

        def check_float(value: Any) -> Any:
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise wrong(value)
            return float(value)

        return check_float, float.__repr__, float
    if tp is str:

        def check_str(value: Any) -> Any:
            if not isinstance(value, str):
                raise wrong(value)
            return str.__str__(value)

        return check_str, str.__str__, str.__str__
    if tp is UUID:

        def check_uuid(value: Any) -> Any:
            if not isinstance(value, UUID):
                raise wrong(value)
            return value

        return check_uuid, lambda v: v.hex, lambda raw: UUID(hex=raw)
    if tp is Decimal:

        def check_decimal(value: Any) -> Any:
            if not isinstance(value, (Decimal, int)) or isinstance(value, bool):
                raise wrong(value)
            return Decimal(value)

        return check_decimal, str, Decimal
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        by_text: dict[str, Any] = {}
        for member in tp:
            if not isinstance(member.value, (str, int)) or isinstance(member.value, bool):
                raise TypeError(f"{name}: enum {tp.__name__} needs str or int values")
            by_text[_enum_text(member)] = member
        if len(by_text) != len(tp.__members__.values()):
            raise TypeError(f"{name}: enum {tp.__name__} has values that pack alike")

        def check_enum(value: Any) -> Any:
            try:
                return tp(value)
            except ValueError:
                raise wrong(value) from None

        return check_enum, _enum_text, by_text.__getitem__
    raise TypeError(
        f"field {name!r}: {tp!r} cannot be callback data; use int, str, float, bool, an Enum,"
        " UUID or Decimal (or Optional of one)"
    )


def _enum_text(member: Any) -> str:
    value = member.value
    return str.__str__(value) if isinstance(value, str) else int.__repr__(value)


def _annotations(namespace: dict[str, Any]) -> dict[str, Any]:
    if "__annotations__" in namespace:
        return dict(namespace["__annotations__"])
    annotate = namespace.get("__annotate__") or namespace.get("__annotate_func__")
    if annotate is None:
        return {}
    import annotationlib  # type: ignore[import-not-found]  # Python 3.14+

    return dict(annotationlib.call_annotate_function(annotate, annotationlib.Format.FORWARDREF))


def _resolve(value: Any, globalns: dict[str, Any], localns: dict[str, Any], name: str) -> Any:
    if isinstance(value, str):
        try:
            return eval(value, globalns, localns)
        except Exception as exc:  # noqa: BLE001 - any failure is this one TypeError
            raise TypeError(
                f"cannot resolve the annotation of {name!r}: {value!r} ({exc})"
            ) from None
    forward = getattr(value, "__forward_arg__", None)  # annotationlib.ForwardRef
    return value if forward is None else _resolve(forward, globalns, localns, name)


class _CallbackDataMeta(type):
    """Reads the fields from the annotations before the class exists, so it gets slots."""

    def __new__(
        mcs,
        name: str,
        bases: tuple[type, ...],
        namespace: dict[str, Any],
        prefix: str | None = None,
        sep: str = ":",
        **kwargs: Any,
    ) -> _CallbackDataMeta:
        if not any(isinstance(base, _CallbackDataMeta) for base in bases):
            return super().__new__(mcs, name, bases, namespace, **kwargs)  # CallbackData itself
        if not isinstance(prefix, str) or not prefix:
            raise _CallbackDataShapeError(
                f"prefix required: class {name}(CallbackData, prefix=...) needs a non-empty prefix"
            )
        if not isinstance(sep, str) or not sep:
            raise _CallbackDataShapeError(f"{name}: the separator must be a non-empty string")
        if sep in prefix:
            raise _CallbackDataShapeError(
                f"Separator symbol {sep!r} can not be used inside prefix {prefix!r} ({name}: "
                "the prefix contains the separator)"
            )
        module = sys.modules.get(namespace.get("__module__", ""))
        globalns = dict(vars(module)) if module is not None else {}
        caller = sys._getframe(1)
        localns = {**caller.f_locals, **namespace}
        inherited: list[_Field] = []
        for base in bases:
            inherited.extend(getattr(base, "__fields__", {}).values())
        fields = {field.name: field for field in inherited}
        own = []
        for attr, annotation in _annotations(namespace).items():
            hint = _resolve(annotation, globalns, localns, attr)
            if hint is ClassVar or typing.get_origin(hint) is ClassVar:
                continue
            if attr.startswith("_") or hasattr(CallbackData, attr):
                raise TypeError(f"{name}: {attr!r} cannot be a callback data field name")
            try:
                fields[attr] = _Field(attr, hint, namespace.pop(attr, _MISSING))
            except TypeError as exc:
                raise TypeError(f"{name}.{exc}") from None
            own.append(attr)
        namespace["__slots__"] = tuple(a for a in own if a not in {f.name for f in inherited})
        cls = super().__new__(mcs, name, bases, namespace, **kwargs)
        cls.__prefix__ = prefix  # type: ignore[attr-defined]
        cls.__sep__ = cls.__separator__ = sep  # type: ignore[attr-defined]  # aiogram: __separator__
        cls.__fields__ = fields  # type: ignore[attr-defined]
        cls._field_list = tuple(fields.values())  # type: ignore[attr-defined]
        cls.__match_args__ = tuple(fields)  # type: ignore[attr-defined,misc]
        cls.__signature__ = Signature(  # type: ignore[attr-defined]
            [
                Parameter(
                    f.name,
                    Parameter.KEYWORD_ONLY,
                    default=Parameter.empty if f.default is _MISSING else f.default,
                    annotation=f.type_name,
                )
                for f in fields.values()
            ]
        )
        return cls


class CallbackData(metaclass=_CallbackDataMeta):
    """Base of callback data classes; see the module docstring.

    Supported field types: ``int``, ``str``, ``float``, ``bool``, ``Enum`` subclasses
    with str or int values, ``UUID``, ``Decimal``, and ``Optional`` of any of them (an
    empty string stands for None). Instances are immutable and compare by value.
    """

    __slots__ = ()
    __prefix__: ClassVar[str]
    __sep__: ClassVar[str]
    __separator__: ClassVar[str]  # aiogram's name for __sep__
    __fields__: ClassVar[dict[str, _Field]]
    _field_list: ClassVar[tuple[_Field, ...]]

    def __init__(self, **values: Any) -> None:
        cls = type(self)
        if cls is CallbackData:
            raise TypeError(
                "subclass CallbackData with a prefix: class Page(CallbackData, prefix='page')"
            )
        for field in cls._field_list:
            value = values.pop(field.name, field.default)
            if value is _MISSING:
                raise TypeError(f"{cls.__name__}() missing the field {field.name!r}")
            try:
                _set(self, field.name, field.check(value))
            except TypeError as exc:
                raise TypeError(f"{cls.__name__}.{exc}") from None
        if values:
            raise TypeError(f"{cls.__name__}() has no field {', '.join(map(repr, values))}")

    def pack(self) -> str:
        """The callback_data string; ``CallbackDataError`` when it exceeds 64 bytes or a
        value contains the separator."""
        cls = type(self)
        sep = cls.__sep__
        parts = [cls.__prefix__]
        for field in cls._field_list:
            value = getattr(self, field.name)
            text = "" if value is None else field.encode(value)
            if sep in text:
                raise CallbackDataError(
                    f"Separator symbol {sep!r} can not be used in value "
                    f"{cls.__name__}.{field.name} = {value!r}: it contains the separator"
                )
            parts.append(text)
        packed = sep.join(parts)
        try:
            size = len(packed.encode("utf-8"))
        except UnicodeEncodeError as exc:  # a lone surrogate: not text Telegram can carry
            raise CallbackDataError(f"{cls.__name__}: {packed!r} is not valid UTF-8 text") from exc
        if size > MAX_CALLBACK_DATA:
            raise CallbackDataError(
                f"{cls.__name__}: callback data {packed!r} is too long: it is {size} bytes;"
                f" Telegram allows at most {MAX_CALLBACK_DATA}"
            )
        return packed

    @classmethod
    def unpack(cls: type[T], value: str) -> T:
        """The instance ``value`` packs; ``CallbackDataError`` when it is not one."""
        if not isinstance(value, str):
            raise CallbackDataError(f"{cls.__name__}: callback data is a str, got {value!r}")
        parts = value.split(cls.__sep__)
        if parts[0] != cls.__prefix__:
            raise CallbackDataError(
                f"Bad prefix ({parts[0]!r} != {cls.__prefix__!r}): {value!r} is not "
                f"{cls.__name__} data"
            )
        fields = cls._field_list
        if len(parts) != len(fields) + 1:
            raise _CallbackDataShapeError(
                f"{value!r} is not {cls.__name__} data: {cls.__name__} takes {len(fields)} "
                f"arguments but {len(parts) - 1} were given ({len(parts) - 1} values for "
                f"{len(fields)} fields)"
            )
        self = object.__new__(cls)
        for field, text in zip(fields, parts[1:], strict=True):  # lengths checked above
            if not text and field.optional:
                _set(self, field.name, None)
                continue
            try:
                _set(self, field.name, field.decode(text))
            except (ValueError, KeyError, ArithmeticError, TypeError):
                raise CallbackDataError(
                    f"{value!r} is not {cls.__name__} data:"
                    f" {field.name} = {text!r} is not a valid {field.type_name}"
                ) from None
        return self

    @classmethod
    def filter(cls, rule: Any = None) -> CallbackDataFilter:
        """A callback-query filter: passes queries whose data unpacks to this class (and
        satisfies ``rule``, a magic filter or a sync callable on the instance)."""
        return CallbackDataFilter(cls, rule)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f.name) for f in type(self)._field_list)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self), self._values()))

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in type(self)._field_list)
        return f"{type(self).__name__}({shown})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore, (type(self), self._values()))


def _restore(cls: type[T], values: tuple[Any, ...]) -> T:
    self = object.__new__(cls)
    for field, value in zip(cls._field_list, values, strict=False):
        _set(self, field.name, value)
    return self


class CallbackDataFilter(Filter):
    """Passes callback queries whose ``data`` is a packed ``callback_data`` class (and
    that satisfy ``rule``); injects the instance as ``callback_data``."""

    __slots__ = ("_check", "_head", "callback_data", "rule")

    def __init__(self, callback_data: type[CallbackData], rule: Any = None) -> None:
        self.callback_data = callback_data
        self.rule = rule
        self._check = None if rule is None else as_filter(rule)
        if self._check is not None and filter_is_async(self._check):
            raise TypeError("a callback data rule must be synchronous")
        fields = callback_data._field_list
        self._head = callback_data.__prefix__ + (callback_data.__sep__ if fields else "")

    @sync_twin
    async def __call__(self, query: Any) -> bool | dict[str, Any]:
        return self.check(query)

    def check(self, query: Any, /) -> bool | dict[str, Any]:
        data = getattr(query, "data", None)
        if data is None or not data.startswith(self._head):
            return False
        try:
            value = self.callback_data.unpack(data)
        except CallbackDataError:
            return False
        if self._check is None:
            return {"callback_data": value}
        result = self._check(value)
        if not passes(result):
            return False
        if isinstance(result, dict):
            return {"callback_data": value, **result}
        return {"callback_data": value}

    def __repr__(self) -> str:
        rule = "" if self.rule is None else repr(self.rule)
        return f"{self.callback_data.__name__}.filter({rule})"


# aiogram's names (``aiogram.filters.callback_data``) for the same things
MAX_CALLBACK_LENGTH = MAX_CALLBACK_DATA
CallbackDataException = CallbackDataError
CallbackQueryFilter = CallbackDataFilter
