"""``ShippingQueryHandler``: a class-based handler of shipping queries."""

from __future__ import annotations

from abc import ABC

from ..types import ShippingQuery, User
from .base import BaseHandler

__all__ = ["ShippingQueryHandler"]


class ShippingQueryHandler(BaseHandler[ShippingQuery], ABC):
    """``@router.shipping_query()`` above a subclass."""

    @property
    def from_user(self) -> User:
        return self.event.from_user
