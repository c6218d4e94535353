"""Which bot a shortcut such as ``message.answer()`` calls.

An object returned by ``Bot`` remembers that bot in its ``_bot`` slot. Objects
decoded from an update, or nested in another object, use the bot of the update
being handled: the dispatcher sets ``current_bot`` for each update's task.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from functools import cache
from typing import TYPE_CHECKING, Any

from ..errors import TgfastError

if TYPE_CHECKING:
    from ..client import Bot

__all__ = ["bind", "bound_bot", "current_bot"]

current_bot: ContextVar[Bot | None] = ContextVar("tgfast_current_bot", default=None)


def bound_bot(obj: Any) -> Bot:
    """The bot ``obj``'s shortcuts call, or a clear error when there is none."""
    bot: Bot | None = obj._bot or current_bot.get()
    if bot is None:
        raise TgfastError(
            f"this {type(obj).__name__} is not bound to a Bot: it was not returned by a "
            "Bot call nor is an update being handled; call the Bot method directly"
        )
    return bot


def bind(result: Any, bot: Bot) -> Any:
    """Remember ``bot`` in a result (or the items of a list result) that has shortcuts."""
    if type(result) is list:
        for item in result:
            if _has_bot_slot(type(item)):
                item._bot = bot
    elif _has_bot_slot(type(result)):
        result._bot = bot
    return result


def _declares_bot_slot(cls: type) -> bool:
    return any("_bot" in vars(klass).get("__slots__", ()) for klass in cls.__mro__)


# once per class; typed as a plain callable because mypy takes the ``type(obj)`` of an
# ``Any`` for unhashable when it meets the cache's ``*args: Hashable``
_has_bot_slot: Callable[[type], bool] = cache(_declares_bot_slot)
