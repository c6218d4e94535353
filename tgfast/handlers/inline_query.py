"""``InlineQueryHandler``: a class-based handler of inline queries."""

from __future__ import annotations

from abc import ABC

from ..types import InlineQuery, User
from .base import BaseHandler

__all__ = ["InlineQueryHandler"]


class InlineQueryHandler(BaseHandler[InlineQuery], ABC):
    """``@router.inline_query()`` above a subclass."""

    @property
    def from_user(self) -> User:
        return self.event.from_user

    @property
    def query(self) -> str:
        return self.event.query
