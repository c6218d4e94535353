"""What every method object shares: ``SendMessage(...)`` to be sent by ``bot(...)``."""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from ..defaults import DEFAULT, DefaultBotProperties
from ..errors import TgfastError
from ..types.base import TelegramObject, json_value
from ..types.binding import current_bot

if TYPE_CHECKING:
    from ..client import Bot

__all__ = ["Returns", "TelegramMethod"]

T = TypeVar("T")
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

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.__tg_returns__ = Returns(cls.__returns__)

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
            if (value := getattr(self, attr)) is not None and value is not DEFAULT
        ]
        return f"{type(self).__name__}({', '.join(parts)})"

    def as_webhook_reply(self, defaults: DefaultBotProperties | None = None) -> dict[str, Any]:
        """The body of a webhook response that makes Telegram perform this call."""
        return {"method": self.__api_method__, **self.build(defaults)}
