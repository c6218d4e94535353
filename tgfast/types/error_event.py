"""``ErrorEvent``: what ``errors`` handlers receive (aiogram's ``aiogram.types.error_event``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._types import Update

__all__ = ["ErrorEvent"]


class ErrorEvent:
    """The event of ``errors`` handlers: the update being handled and what it raised.

    A plain slotted object, not a Bot API type: Telegram never sends it, so it needs
    no decoding; ``update`` and ``exception`` are the fields aiogram users read.
    """

    __slots__ = ("exception", "update")

    def __init__(self, update: Update, exception: BaseException) -> None:
        self.update = update
        self.exception = exception

    def __repr__(self) -> str:
        return f"ErrorEvent(update_id={self.update.update_id}, exception={self.exception!r})"

    def __eq__(self, other: Any) -> bool:
        return (
            type(other) is ErrorEvent
            and other.update is self.update
            and other.exception is self.exception
        )

    __hash__ = object.__hash__
