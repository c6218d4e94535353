"""``CallbackQueryHandler``: a class-based handler of callback queries."""

from __future__ import annotations

from abc import ABC

from ..types import CallbackQuery, MaybeInaccessibleMessage, User
from .base import BaseHandler

__all__ = ["CallbackQueryHandler"]


class CallbackQueryHandler(BaseHandler[CallbackQuery], ABC):
    """``@router.callback_query()`` above a subclass that implements ``handle``."""

    @property
    def from_user(self) -> User:
        return self.event.from_user

    @property
    def message(self) -> MaybeInaccessibleMessage | None:
        return self.event.message

    @property
    def callback_data(self) -> str | None:
        """The query's ``data``."""
        return self.event.data
