"""``BotContextController``: a base for models of one's own that remember the bot they
came with (aiogram's ``aiogram.client.context_controller``).

tgfast's Bot API types are generated and already keep their bot (``obj.as_(bot)``,
``obj.bot``). A subclass of this declares its fields as annotations, as aiogram's
pydantic models do::

    class Order(BotContextController):
        id: int
        note: str = ""

    order = Order.model_validate({"id": 1}, context={"bot": bot})  # order.bot is bot
    order = Order(id=1).as_(bot)

A field without a default is required; one the class does not declare is kept as an
extra field, as the Bot API types keep fields newer than tgfast.
"""

from __future__ import annotations

from typing import Any, TypeVar

from ..types.base import TelegramObject, keep_extra

__all__ = ["BotContextController"]

_C = TypeVar("_C", bound="BotContextController")


class BotContextController(TelegramObject):
    """Fields from the class's annotations (and its bases'), the bot in ``_bot``."""

    __slots__ = ("_bot",)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        rows: list[tuple[str, str, str, bool]] = []
        seen: set[str] = set()
        for klass in reversed(cls.__mro__):
            for name, hint in vars(klass).get("__annotations__", {}).items():
                if name.startswith("_") or name in seen or "ClassVar" in str(hint):
                    continue
                seen.add(name)
                rows.append((name, name, "any", not hasattr(cls, name)))
        cls.__tg_fields__ = tuple(rows)

    def __init__(self, **fields: Any) -> None:
        self._bot = None
        for _key, attr, _tp, required in self.__tg_fields__:
            if attr in fields:
                setattr(self, attr, fields.pop(attr))
            elif required:
                raise TypeError(f"{type(self).__name__}() misses the field {attr!r}")
        keep_extra(self, fields)

    @classmethod
    def model_validate(
        cls: type[_C], obj: Any, *, context: dict[str, Any] | None = None, **_: Any
    ) -> _C:
        """A dict of fields (or an instance, returned as is) -> an instance;
        ``context={"bot": bot}`` binds the bot, as in aiogram."""
        if isinstance(obj, cls):
            result = obj
        elif isinstance(obj, dict):
            result = cls(**obj)
        else:
            raise TypeError(f"{cls.__name__}.model_validate takes a dict, not {type(obj).__name__}")
        bot = (context or {}).get("bot")
        if bot is not None:
            result._bot = bot
        return result
