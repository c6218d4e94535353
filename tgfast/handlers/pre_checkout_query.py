"""``PreCheckoutQueryHandler``: a class-based handler of pre-checkout queries."""

from __future__ import annotations

from abc import ABC

from ..types import PreCheckoutQuery, User
from .base import BaseHandler

__all__ = ["PreCheckoutQueryHandler"]


class PreCheckoutQueryHandler(BaseHandler[PreCheckoutQuery], ABC):
    """``@router.pre_checkout_query()`` above a subclass."""

    @property
    def from_user(self) -> User:
        return self.event.from_user
