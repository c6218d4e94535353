"""What every method object shares: ``SendMessage(...)`` to be sent by ``bot(...)``."""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar

from ..defaults import DEFAULT, DefaultBotProperties
from ..types.base import TelegramObject, json_value

__all__ = ["Returns", "TelegramMethod"]

T = TypeVar("T")


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


class TelegramMethod(TelegramObject, Generic[T]):
    """A Bot API call as data: its parameters, and the type it answers with.

    Handlers may return one to have it sent (as the webhook reply where that mode
    is on); ``await bot(method)`` sends it now. Generated subclasses declare
    ``__api_method__`` (the Bot API name), ``__returns__`` (a type expression),
    ``__uploads__`` (whether a parameter may hold a file) and ``__tg_defaults__``
    (parameter -> ``DefaultBotProperties`` attribute).
    """

    __slots__ = ()
    __api_method__: ClassVar[str] = ""
    __returns__: ClassVar[str] = ""
    __uploads__: ClassVar[bool] = False
    __tg_defaults__: ClassVar[dict[str, str]] = {}

    def build(self, defaults: DefaultBotProperties | None = None) -> dict[str, Any]:
        """The parameters as sent: ``None`` left out, ``DEFAULT`` taken from ``defaults``."""
        params: dict[str, Any] = {}
        for key, attr, _tp, _req in self.__tg_fields__:
            value = getattr(self, attr)
            if value is DEFAULT:
                name = self.__tg_defaults__.get(attr)
                value = getattr(defaults, name) if defaults is not None and name else None
            if value is not None:
                params[key] = value
        return params

    def to_dict(self) -> dict[str, Any]:
        """The parameters as JSON, with no bot's defaults applied."""
        return {key: json_value(value) for key, value in self.build().items()}

    def __repr__(self) -> str:
        parts = [
            f"{attr}={value!r}"
            for _key, attr, _tp, _req in self.__tg_fields__
            if (value := getattr(self, attr)) is not None and value is not DEFAULT
        ]
        return f"{type(self).__name__}({', '.join(parts)})"

    def as_webhook_reply(self, defaults: DefaultBotProperties | None = None) -> dict[str, Any]:
        """The body of a webhook response that makes Telegram perform this call."""
        return {"method": self.__api_method__, **self.build(defaults)}
