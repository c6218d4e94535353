"""What every generated Bot API class shares: slots, equality, repr and ``to_dict``.

The generated classes only declare data: their slots, a typed ``__init__`` and
``__tg_fields__``, a tuple of ``(json_key, attribute, type, required)`` rows. The
type is a small string language both decoders read once at import:
``int``, ``str``, ``bool``, ``float``, ``true``, ``InputFile``, ``date`` (a Unix
time in JSON, an aware UTC ``datetime`` in Python, as aiogram has it), a class name,
``[T]`` for an array of ``T`` and ``A|B`` for alternatives.

The ``model_*`` methods and ``as_`` have the names and the meaning of the pydantic
methods aiogram's users call on its types; ``model_dump`` uses the attribute names
(``from_user``) unless ``by_alias=True`` asks for the JSON keys (``from``).
"""

from __future__ import annotations

import builtins
import copy
import inspect
import time
import warnings
from collections.abc import Collection
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, ClassVar, Literal, NamedTuple, TypeVar, cast, overload

import orjson

from ..defaults import Default
from .binding import _has_bot_slot, current_bot

if TYPE_CHECKING:
    from ..client import Bot
    from ..defaults import DefaultBotProperties

__all__ = [
    "RAW_ITEMS",
    "UNSET_DISABLE_WEB_PAGE_PREVIEW",
    "UNSET_PARSE_MODE",
    "UNSET_PROTECT_CONTENT",
    "FieldRow",
    "TelegramObject",
    "UnionRule",
    "as_datetime",
    "from_dicts",
    "holds_dicts",
    "enable_extra",
    "json_value",
    "keep_extra",
    "split_alternatives",
]

_T = TypeVar("_T", bound="TelegramObject")

# aiogram's names for the markers of parameters left to the bot's defaults
UNSET_PARSE_MODE = Default("parse_mode")
UNSET_DISABLE_WEB_PAGE_PREVIEW = Default("link_preview_is_disabled")
UNSET_PROTECT_CONTENT = Default("protect_content")

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


class _PydanticV1Names:
    """pydantic 1's ``dict()`` and ``json()``: aiogram's objects still answer them (with
    pydantic's DeprecationWarning) and its docs still use them (``data.user.dict()``)."""

    __slots__ = ()

    def dict(self, **kwargs: Any) -> builtins.dict[str, Any]:
        """Deprecated: ``model_dump(**kwargs)``."""
        warnings.warn(
            "`dict` is deprecated; use `model_dump` instead", DeprecationWarning, stacklevel=2
        )
        return cast("TelegramObject", self).model_dump(**kwargs)

    def json(self, **kwargs: Any) -> str:
        """Deprecated: ``model_dump_json(**kwargs)``."""
        warnings.warn(
            "`json` is deprecated; use `model_dump_json` instead", DeprecationWarning, stacklevel=2
        )
        return cast("TelegramObject", self).model_dump_json(**kwargs)


class ModelField:
    """One field as pydantic describes it in aiogram's ``Model.model_fields``: its
    ``alias`` (the JSON key), its ``default`` (``...`` when required; a ``Default``
    marker when the bot's default fills it) and ``is_required()``."""

    __slots__ = ("alias", "annotation", "default")

    def __init__(self, alias: str, annotation: str, default: Any) -> None:
        self.alias = alias
        self.annotation = annotation
        """The field's type, in the language of ``__tg_fields__`` (``[MessageEntity]``)."""
        self.default = default

    def is_required(self) -> bool:
        """Whether the constructor needs a value for it."""
        return self.default is ...

    def __repr__(self) -> str:
        return f"ModelField(alias={self.alias!r}, annotation={self.annotation!r}, default={self.default!r})"


def _declared_default(defaults: dict[str, Any], key: str, attr: str, required: bool) -> Any:
    """A field's default as declared: a required one (its JSON key an alias of its name
    or not) has none, ``...``, unless it is a constant (a union's tag)."""
    if required:
        return ... if key != attr else defaults.get(attr, ...)
    return defaults.get(attr)


class _ModelFields:
    """``Model.model_fields``: attribute -> ``ModelField``, worked out on first use."""

    def __get__(self, obj: object, cls: type[TelegramObject]) -> dict[str, ModelField]:
        found = vars(cls).get("_tg_model_fields")
        if found is None:
            defaults = _field_defaults(cls)
            found = {
                attr: ModelField(key, tp, _declared_default(defaults, key, attr, req))
                for key, attr, tp, req in cls.__tg_fields__
            }
            type.__setattr__(cls, "_tg_model_fields", found)
        return dict(found)


class TelegramObject(_PydanticV1Names):
    """Base of every Bot API type.

    ``_extra`` holds the fields Telegram sent that this version of tgfast does not
    know (``None`` when there were none), so that newer API versions round-trip
    through ``to_dict`` unchanged instead of being dropped or mistyped. They read as
    attributes (``message.future_field``), as aiogram's do, through a ``__getattr__``
    that ``keep_extra`` gives a class only once one of its objects holds some: a class
    with ``__getattr__`` makes CPython route every attribute read of its objects
    through a slower path, so the classes that never see unknown fields stay without.
    Set ``_extra`` through ``keep_extra``.
    """

    __slots__ = ("_extra",)
    __tg_fields__: ClassVar[tuple[FieldRow, ...]] = ()
    __tg_union__: ClassVar[UnionRule | None] = None
    # attribute -> the bot default (DefaultBotProperties field) an unset DEFAULT takes
    __tg_defaults__: ClassVar[dict[str, str]] = {}

    _extra: dict[str, Any] | None

    def __init__(self, **extra: Any) -> None:
        # Only union bases are built this way: an unknown variant keeps its raw fields.
        keep_extra(self, extra)

    if TYPE_CHECKING:  # for type checkers only: at run time keep_extra installs it

        def __getattr__(self, name: str) -> Any:
            """An unknown field, by name (see ``keep_extra``)."""

    def __setstate__(self, state: Any) -> None:
        """Unpickling and ``copy``: the slots back (and a subclass's ``__dict__``), then
        ``keep_extra``, so that a process that never met this class's unknown fields
        reads them as attributes too."""
        attributes, slots = state if type(state) is tuple else (state, None)
        if attributes:
            vars(self).update(attributes)
        for name, value in (slots or {}).items():
            if name != "_extra":
                setattr(self, name, value)
        keep_extra(self, (slots or {}).get("_extra"))

    def _sent_fields(self, defaults: DefaultBotProperties | None = None) -> dict[str, Any]:
        """The fields as sent, by Telegram's names: ``None`` left out, ``DEFAULT`` taken
        from ``defaults`` by the class's ``__tg_defaults__`` (left out without them),
        then the fields Telegram sent that this version does not know. Nested objects
        stay objects. The one walk behind ``to_dict``, ``TelegramMethod.build``, the
        client's request bodies and ``deserialize_telegram_object``."""
        fill = self.__tg_defaults__
        out: dict[str, Any] = {}
        for key, attr, _tp, _req in self.__tg_fields__:
            value = getattr(self, attr)
            if type(value) is Default:
                name = fill.get(attr)
                value = getattr(defaults, name) if defaults is not None and name else None
            if value is not None:
                out[key] = value
        if self._extra:
            for key, value in self._extra.items():
                out.setdefault(key, value)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The Telegram JSON form of this object; absent optionals are omitted, and so
        are fields left to the bot's defaults (``DEFAULT``): no bot is known here."""
        out = self._sent_fields()
        for key, value in out.items():
            if type(value) is list or isinstance(value, _NOT_JSON):
                out[key] = json_value(value)
        return out

    model_fields: ClassVar[dict[str, ModelField]] = _ModelFields()  # type: ignore[assignment]
    """The fields by attribute name, as aiogram's (pydantic's) ``model_fields`` lists them."""

    @property
    def model_extra(self) -> dict[str, Any]:
        """The keywords this class does not know, kept as given (pydantic's name)."""
        return dict(self._extra) if self._extra else {}

    @property
    def bot(self) -> Bot | None:
        """The bot this object's shortcuts call: the one that returned it or was given
        to ``as_``, else the bot of the update being handled, else ``None``."""
        bot: Bot | None = getattr(self, "_bot", None)
        return bot if bot is not None else current_bot.get()

    def as_(self: _T, bot: Bot | None) -> _T:
        """Bind ``bot`` (aiogram's ``as_``): remembered where the class has shortcuts."""
        if _has_bot_slot(type(self)):
            self._bot = bot
        return self

    def model_dump(
        self,
        *,
        mode: Literal["python", "json"] | str = "python",
        include: Collection[str] | None = None,
        exclude: Collection[str] | None = None,
        by_alias: bool | None = False,
        exclude_none: bool = False,
        exclude_defaults: bool = False,
    ) -> dict[str, Any]:
        """The fields as a dict, nested objects as dicts; dates as Unix times (as in
        aiogram, in both modes); ``mode="json"`` leaves only JSON values.
        ``exclude_defaults`` leaves out the fields equal to their default (pydantic's
        option, which aiogram users compare events with)."""
        as_json = mode == "json"
        if not as_json and mode != "python":
            raise ValueError(f"mode must be 'python' or 'json', not {mode!r}")
        out: dict[str, Any] = {}
        defaults = _field_defaults(type(self)) if exclude_defaults else None
        for key, attr, _tp, _req in self.__tg_fields__:
            if (include is not None and attr not in include) or (exclude and attr in exclude):
                continue
            value = getattr(self, attr)
            if value is None and exclude_none:
                continue
            if as_json and _is_default(value):
                continue  # a bot-wide default, not known without a bot
            if defaults is not None and attr in defaults and _same(value, defaults[attr]):
                continue
            out[key if by_alias else attr] = _dump(
                value, as_json, bool(by_alias), exclude_none, exclude_defaults
            )
        if self._extra:
            for key, value in self._extra.items():
                if value is None and exclude_none:
                    continue
                if (include is None or key in include) and not (exclude and key in exclude):
                    out.setdefault(key, value)
        return out

    def model_dump_json(
        self,
        *,
        include: Collection[str] | None = None,
        exclude: Collection[str] | None = None,
        by_alias: bool | None = False,
        exclude_none: bool = False,
    ) -> str:
        """``model_dump(mode="json")`` as compact JSON text."""
        data = self.model_dump(
            mode="json", include=include, exclude=exclude, by_alias=by_alias,
            exclude_none=exclude_none,
        )  # fmt: skip
        return orjson.dumps(data, default=_json_default).decode()

    def model_copy(self: _T, *, update: dict[str, Any] | None = None, deep: bool = False) -> _T:
        """A copy (nested objects shared unless ``deep``) with ``update``'s fields set;
        an ``update`` key that is not a field becomes an extra field, as in aiogram."""
        cls = type(self)
        new = cls.__new__(cls)
        for name in _slot_names(cls):
            value = getattr(self, name)
            if deep and name != "_bot":
                value = copy.deepcopy(value)
            setattr(new, name, value)
        if update:
            fields = {attr for _key, attr, _tp, _req in cls.__tg_fields__}
            for name, value in update.items():
                if name in fields:
                    setattr(new, name, value)
                else:
                    keep_extra(new, {**(new._extra or {}), name: value})
        return new

    @classmethod
    def model_validate(
        cls: type[_T], obj: Any, *, context: dict[str, Any] | None = None, **_: Any
    ) -> _T:
        """A Telegram JSON dict (or an instance, returned as is) -> an instance, checked
        by tgfast's decoder; ``context={"bot": bot}`` binds the bot to it and to every
        object in it, as in aiogram."""
        if isinstance(obj, cls):
            result = obj
        elif getattr(cls, "__api_method__", ""):  # a method object: its parameters
            if not isinstance(obj, dict):
                raise TypeError(f"{cls.__name__}.model_validate takes a dict")
            result = cls(**_method_parameters(cls, obj))
        else:
            from ..decoding import convert  # the decoder imports these types

            result = convert(cls, obj)
        bot = (context or {}).get("bot")
        if bot is not None:
            _bind_all(result, bot)
        return result

    @classmethod
    def model_validate_json(
        cls: type[_T], data: str | bytes, *, context: dict[str, Any] | None = None, **_: Any
    ) -> _T:
        """``model_validate`` of JSON text."""
        return cls.model_validate(orjson.loads(data), context=context)

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
            if (value := getattr(self, attr)) is not None and type(value) is not Default
        ]
        if self._extra:
            parts.extend(f"{key}={value!r}" for key, value in self._extra.items())
        return f"{type(self).__name__}({', '.join(parts)})"


_NOT_JSON = (TelegramObject, datetime, timedelta)  # what json_value converts, besides lists


def json_value(value: Any) -> Any:
    """``value`` with every ``TelegramObject`` in it (lists included) as its ``to_dict()``
    and every ``datetime`` (or ``timedelta`` from now) as its Unix time."""
    if isinstance(value, TelegramObject):
        return value.to_dict()
    if type(value) is list:
        return [json_value(item) for item in value]
    if isinstance(value, (datetime, timedelta)):
        return unix_time(value)
    return value


def unix_time(value: datetime | timedelta) -> int:
    """A moment as the Bot API sends it; a ``timedelta`` counts from now (as aiogram's)."""
    if isinstance(value, timedelta):
        return int(time.time() + value.total_seconds())
    return int(value.timestamp())


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


@overload
def as_datetime(value: datetime | int) -> datetime: ...
@overload
def as_datetime(value: datetime | int | None) -> datetime | None: ...
def as_datetime(value: datetime | int | None) -> datetime | None:
    """What a ``date`` field holds: a Unix time given to ``__init__`` as an aware UTC
    ``datetime``, as the decoders make it; a ``datetime`` stays as it is."""
    if isinstance(value, int):
        return _EPOCH + timedelta(seconds=value)
    return value


def from_dicts(expr: str, value: Any) -> Any:
    """Dicts given to a constructor where a Bot API type belongs (``Update(**raw)``,
    ``Message(chat={...})``) turned into that type, as aiogram's models validate them;
    objects inside a list stay as given. ``expr`` is the field's type expression
    (``"Chat"``, ``"[PhotoSize]"``). Generated ``__init__`` methods call it only when a
    dict, or a list holding one, was given."""
    if value.__class__ is list:
        inner = expr[1:-1]
        return [from_dicts(inner, x) if x.__class__ in (dict, list) else x for x in value]
    from ..decoding import convert

    return convert(expr, value)


def keep_extra(obj: TelegramObject, extra: dict[str, Any] | None) -> None:
    """Store ``extra`` as ``obj``'s unknown fields (an empty dict as ``None``); the first
    time an object of a class holds some, the class gets ``__getattr__`` to read them
    as attributes. On the exact class of ``obj``: its subclasses inherit it, its bases
    stay without (every writer of a non-empty ``_extra`` goes through here)."""
    if extra:
        obj._extra = extra
        enable_extra(type(obj))
    else:
        obj._extra = None


def enable_extra(cls: type) -> None:
    """Give ``cls`` the ``__getattr__`` that reads unknown fields, unless it has one
    (inherited from a base that got it, or its own: a user's stays theirs). Setting it
    after the class was made is honoured by CPython (3.10 to 3.13 checked): the
    type's slot is updated, for its subclasses too."""
    if getattr(cls, "__getattr__", None) is None:
        type.__setattr__(cls, "__getattr__", _read_extra)


def _read_extra(self: TelegramObject, name: str) -> Any:
    """``__getattr__`` of the classes some of whose objects hold unknown fields: one of
    them read by name, as aiogram's models keep them. Only reached when no slot or
    class attribute matched; a name that is not among them fails as Python's own
    lookup fails."""
    if name[:1] != "_":
        try:
            extra = object.__getattribute__(self, "_extra")
        except AttributeError:
            extra = None
        if extra and name in extra:
            return extra[name]
    raise AttributeError(
        f"{type(self).__name__!r} object has no attribute {name!r}", name=name, obj=self
    )


RAW_ITEMS = frozenset((dict, list))
"""The classes of list items that make a generated constructor ask ``holds_dicts``."""


def holds_dicts(items: list[Any]) -> bool:
    """Whether a list given to a constructor holds a dict, at any depth."""
    for item in items:
        cls = item.__class__
        if cls is dict or (cls is list and holds_dicts(item)):
            return True
    return False


def _bind_all(value: Any, bot: Bot) -> None:
    """``as_(bot)`` on ``value`` and on every object nested in it."""
    if isinstance(value, TelegramObject):
        value.as_(bot)
        for _key, attr, _tp, _req in value.__tg_fields__:
            item = getattr(value, attr)
            if item is not None:
                _bind_all(item, bot)
    elif type(value) is list:
        for item in value:
            _bind_all(item, bot)


def _method_parameters(cls: type[TelegramObject], obj: dict[Any, Any]) -> dict[str, Any]:
    """A method's parameters from a dict of them (by JSON key or attribute name), each
    object given as a dict made the type its parameter takes, as aiogram's validation
    makes it (``{"media": {"type": "photo", ...}}`` -> ``InputMediaPhoto``)."""
    from ..decoding import convert  # the decoder imports these types

    fields = {key: (attr, tp) for key, attr, tp, _req in cls.__tg_fields__}
    fields.update({attr: (attr, tp) for _key, attr, tp, _req in cls.__tg_fields__})
    out: dict[str, Any] = {}
    for name, value in obj.items():
        attr, tp = fields.get(str(name), (str(name), ""))
        if tp and type(value) is dict:
            value = convert(tp, value)
        elif tp and type(value) is list and any(type(item) is dict for item in value):
            item_tp = next((alt[1:-1] for alt in split_alternatives(tp) if alt[:1] == "["), "")
            if item_tp:
                value = [convert(item_tp, i) if type(i) is dict else i for i in value]
        out[attr] = value
    return out


def _is_default(value: Any) -> bool:
    return isinstance(value, Default)


def _dump(
    value: Any, as_json: bool, by_alias: bool, exclude_none: bool, exclude_defaults: bool = False
) -> Any:
    if isinstance(value, TelegramObject):
        return value.model_dump(
            mode="json" if as_json else "python",
            by_alias=by_alias,
            exclude_none=exclude_none,
            exclude_defaults=exclude_defaults,
        )
    if type(value) is list:
        return [_dump(item, as_json, by_alias, exclude_none, exclude_defaults) for item in value]
    if isinstance(value, datetime) or (as_json and isinstance(value, timedelta)):
        return unix_time(value)
    if as_json and isinstance(value, str) and type(value) is not str:
        return str.__str__(value)  # an enum member
    return value


_DEFAULTS: dict[type, dict[str, Any]] = {}


def _field_defaults(cls: type) -> dict[str, Any]:
    """The defaults of ``cls``'s keyword parameters (its fields'), read once per class."""
    found = _DEFAULTS.get(cls)
    if found is None:
        try:
            parameters = list(inspect.signature(cls).parameters.values())
        except (TypeError, ValueError):  # a signature Python cannot read: nothing left out
            parameters = []
        found = {p.name: p.default for p in parameters if p.default is not p.empty}
        _DEFAULTS[cls] = found
    return found


def _same(value: Any, default: Any) -> bool:
    """``value`` is the default: the same object, or an equal one of the same type (the
    defaults are None, constants and ``DEFAULT``; ``False`` is not a default ``None``)."""
    return value is default or (type(value) is type(default) and bool(value == default))


def _json_default(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} has no JSON form")


_SLOTS: dict[type, tuple[str, ...]] = {}


def _slot_names(cls: type) -> tuple[str, ...]:
    """Every slot of ``cls`` and its bases: what a copy has to carry over."""
    names = _SLOTS.get(cls)
    if names is None:
        names = tuple(
            dict.fromkeys(s for k in reversed(cls.__mro__) for s in vars(k).get("__slots__", ()))
        )
        _SLOTS[cls] = names
    return names


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
