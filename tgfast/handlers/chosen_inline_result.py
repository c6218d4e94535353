"""``ChosenInlineResultHandler``: a class-based handler of chosen inline results."""

from __future__ import annotations

from abc import ABC

from ..types import ChosenInlineResult, User
from .base import BaseHandler

__all__ = ["ChosenInlineResultHandler"]


class ChosenInlineResultHandler(BaseHandler[ChosenInlineResult], ABC):
    """``@router.chosen_inline_result()`` above a subclass."""

    @property
    def from_user(self) -> User:
        return self.event.from_user

    @property
    def query(self) -> str:
        return self.event.query
