"""What every method object shares: ``SendMessage(...)`` to be sent by ``bot(...)``."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

import orjson

from ..defaults import Default, DefaultBotProperties
from ..errors import TgfastError
from ..types.base import TelegramObject, json_value, keep_extra, split_alternatives
from ..types.binding import current_bot

if TYPE_CHECKING:
    from ..client import Bot
    from ..types import ResponseParameters

__all__ = ["Request", "Response", "Returns", "TelegramMethod", "TelegramType"]

T = TypeVar("T")
TelegramType = TypeVar("TelegramType", bound=Any)
"""What a method returns (aiogram's name for its result type variable)."""
M = TypeVar("M", bound="TelegramMethod[Any]")


class Returns(Generic[T]):
    """A result type expression (``"[Message]"``, the language of ``tgfast.decoding``)
    that also says, to type checkers, what it decodes to: ``Returns[list[Message]]``.

    The generated ``Bot`` methods pass one to ``_call``, whose result is then typed
    without a cast or a ``type: ignore``.
    """

    __slots__ = ("expr",)

    def __init__(self, expr: str) -> None:
        self.expr = expr

    def __repr__(self) -> str:
        return f"Returns({self.expr!r})"


def result_type(expr: str) -> Any:
    """The Python type a result expression decodes to: ``"[Message]"`` ->
    ``list[Message]``, ``"Message|bool"`` -> ``Message | bool``."""
    from .. import types

    alternatives = split_alternatives(expr)
    if len(alternatives) > 1:
        parts = [result_type(part) for part in alternatives]
        union = parts[0]
        for part in parts[1:]:
            union = union | part
        return union
    if expr.startswith("["):
        return list[result_type(expr[1:-1])]  # type: ignore[misc]
    builtin = {"bool": bool, "int": int, "float": float, "str": str, "": type(None)}
    return builtin[expr] if expr in builtin else getattr(types, expr)


def _declare(cls: type[TelegramMethod[Any]]) -> None:
    """Read a method class declared as aiogram's are: its annotated names are its
    parameters (required unless the class gives a default), ``__returning__`` the type
    of its result. Bots declare a Bot API method their framework lacks this way."""
    from .._speedups._decode_shared import expr_of

    returning = vars(cls).get("__returning__")
    if returning is not None and "__returns__" not in vars(cls):
        cls.__returns__ = expr_of(returning, result=True)
    rows = [
        (name, name, "", name not in vars(cls))
        for name, hint in vars(cls).get("__annotations__", {}).items()
        if name[:1] != "_" and "ClassVar" not in str(hint)
    ]
    cls.__tg_fields__ = (*cls.__tg_fields__, *rows)


def _set_keywords(
    method: TelegramMethod[Any],
    kwargs: dict[str, Any],
    extra: dict[str, Any] | None,
    filled: tuple[str, ...] = (),
    name: str = "",
) -> dict[str, Any] | None:
    """aiogram's keyword rule, for a declared method's ``__init__`` and a shortcut's
    ``**kwargs``: a parameter of ``method`` is set, another keyword kept. Returns ``extra``
    with those added, as a new dict (``extra`` may be another object's), or ``extra``
    itself when there are none. A keyword in ``filled`` (one a shortcut fills itself) is
    refused, with Python's words for a keyword given twice to ``name``."""
    attrs = method.__tg_attrs__
    unknown: dict[str, Any] = {}
    for key, value in kwargs.items():
        if key in filled:
            raise TypeError(f"{name}() got multiple values for keyword argument {key!r}")
        if key in attrs:
            setattr(method, key, value)
        else:
            unknown[key] = value
    if not unknown:
        return extra
    return {**extra, **unknown} if extra else unknown


class _Returning:
    """``Method.__returning__``: the result's Python type, as aiogram's methods have it
    (``Response[Method.__returning__]``), worked out from ``__returns__`` on first use."""

    def __get__(self, obj: object, cls: type[TelegramMethod[Any]]) -> Any:
        returning = result_type(cls.__returns__)
        if "__returning__" not in vars(cls):
            type.__setattr__(cls, "__returning__", returning)
        return returning


class TelegramMethod(TelegramObject, Generic[T]):
    """A Bot API call as data: its parameters, and the type it answers with.

    Handlers may return one to have it sent (as the webhook reply where that mode
    is on); ``await bot(method)`` sends it now, and so does ``await method`` once it
    is bound to a bot (shortcuts such as ``message.answer(...)`` bind theirs; ``as_``
    binds by hand). Generated subclasses declare ``__api_method__`` (the Bot API
    name), ``__returns__`` (a type expression), ``__uploads__`` (whether a parameter
    may hold a file) and ``__tg_defaults__`` (parameter -> ``DefaultBotProperties`` attribute).
    """

    __slots__ = ("_bot",)
    __api_method__: ClassVar[str] = ""
    __returns__: ClassVar[str] = ""
    __uploads__: ClassVar[bool] = False
    __tg_defaults__: ClassVar[dict[str, str]] = {}
    __tg_returns__: ClassVar[Returns[Any]] = Returns("")
    """``__returns__`` as a ``Returns``, made once per class for ``Bot.__call__``."""
    __returning__: ClassVar[Any] = _Returning()

    __tg_attrs__: ClassVar[frozenset[str]] = frozenset()
    """The attributes of ``__tg_fields__``: which keywords are parameters."""
    __tg_required__: ClassVar[frozenset[str]] = frozenset()
    """The attributes of the required parameters, for ``__init__`` to check."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = vars(cls)
        if "__tg_fields__" not in own and "__api_method__" in own:
            _declare(cls)  # a method declared as aiogram's are: annotations, __returning__
        cls.__tg_returns__ = Returns(cls.__returns__)
        cls.__tg_attrs__ = frozenset(attr for _key, attr, _tp, _req in cls.__tg_fields__)
        cls.__tg_required__ = frozenset(attr for _key, attr, _tp, req in cls.__tg_fields__ if req)

    def __init__(self, **kwargs: Any) -> None:
        """The parameters by keyword, for a method class declared as aiogram's are (the
        generated ones have their own ``__init__``): a declared one is set, another
        kept and sent, as the generated classes do."""
        extra = _set_keywords(self, kwargs, None)
        if not kwargs.keys() >= self.__tg_required__:
            missing = [a for _k, a, _t, req in self.__tg_fields__ if req and a not in kwargs]
            raise TypeError(f"{type(self).__name__}() missing the parameters {missing}")
        keep_extra(self, extra)
        self._bot = None

    def _take_keywords(self, kwargs: dict[str, Any], filled: tuple[str, ...], name: str) -> None:
        """The keywords a shortcut passes on (``chat.delete_photo(description=...)``), as
        aiogram's ``**kwargs`` do: a parameter the shortcut does not offer is set, an
        unknown keyword kept and sent; one the shortcut fills itself is refused, with
        Python's words for a keyword given twice."""
        keep_extra(self, _set_keywords(self, kwargs, self._extra, filled, name))

    def _send_extra(self, params: dict[str, Any]) -> None:
        """Add the keywords this method does not know to ``params`` (its own win)."""
        for key, value in (self._extra or {}).items():
            params.setdefault(key, value)

    _bot: Bot | None

    def as_(self: M, bot: Bot | None) -> M:
        """Bind to ``bot``: ``await method`` then sends through it. Returns ``self``."""
        self._bot = bot
        return self

    @property
    def bot(self) -> Bot | None:
        """The bot ``await method`` sends through, if bound."""
        return self._bot

    def __await__(self) -> Generator[Any, None, T]:
        """Send through the bound bot (else the bot of the update being handled)."""
        bot = self._bot or current_bot.get()
        if bot is None:
            raise TgfastError(
                f"this {type(self).__name__} is not bound to a Bot: send it with "
                "`await bot(method)`, or bind it first with `method.as_(bot)`"
            )
        return bot(self).__await__()

    async def emit(self, bot: Bot) -> T:
        """Send through ``bot``, whichever this is bound to (aiogram's spelling)."""
        return await bot(self)

    build = TelegramObject._sent_fields  # itself, not a call more on every call sent
    """``build(defaults=None)``: the parameters as sent, ``None`` left out, ``DEFAULT``
    taken from ``defaults``."""

    def to_dict(self) -> dict[str, Any]:
        """The parameters as JSON, with no bot's defaults applied."""
        return {key: json_value(value) for key, value in self.build().items()}

    def __repr__(self) -> str:
        parts = [
            f"{attr}={value!r}"
            for _key, attr, _tp, _req in self.__tg_fields__
            if (value := getattr(self, attr)) is not None and type(value) is not Default
        ]
        return f"{type(self).__name__}({', '.join(parts)})"

    def as_webhook_reply(self, defaults: DefaultBotProperties | None = None) -> dict[str, Any]:
        """The body of a webhook response that makes Telegram perform this call."""
        return {"method": self.__api_method__, **self.build(defaults)}


@dataclass(frozen=True)
class Request:
    """One call as data, by aiogram's name: the Bot API method, its parameters (files
    as ``attach://<name>``) and the files by those names. tgfast's sessions build the
    body from ``method.build(defaults)`` and ``tgfast.client.encoding.prepare``; this
    is the shape for code that hands calls around (a custom session, a test double)."""

    method: str
    data: dict[str, Any]
    files: dict[str, Any] | None = None


class Response(Generic[TelegramType]):
    """A Bot API answer, ``{"ok": ..., "result": ...}``, as an object: what a custom
    session's ``check_response`` returns and what aiogram's test doubles queue up
    (``Response[Message](ok=True, result=message)``). tgfast's own session never makes
    one: it decodes the answer straight into the result."""

    __slots__ = ("description", "error_code", "ok", "parameters", "result")

    def __init__(
        self,
        *,
        ok: bool,
        result: TelegramType | None = None,
        description: str | None = None,
        error_code: int | None = None,
        parameters: ResponseParameters | None = None,
    ) -> None:
        self.ok = ok
        self.result = result
        self.description = description
        self.error_code = error_code
        self.parameters = parameters

    def model_dump(self, *, exclude_none: bool = False) -> dict[str, Any]:
        """The answer as the Bot API's JSON value (objects as their dicts)."""
        out = {
            "ok": self.ok,
            "result": json_value(self.result),
            "description": self.description,
            "error_code": self.error_code,
            "parameters": json_value(self.parameters),
        }
        return {k: v for k, v in out.items() if v is not None} if exclude_none else out

    def model_dump_json(self, *, exclude_none: bool = False) -> str:
        """``model_dump()`` as JSON text."""
        return orjson.dumps(self.model_dump(exclude_none=exclude_none)).decode()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Response):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"Response({fields})"
