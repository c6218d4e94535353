"""aiogram's ``aiogram.dispatcher.middlewares.manager`` path: ``MiddlewareManager``, from
``tgfast.dispatcher.observer``."""

from __future__ import annotations

from ..observer import MiddlewareManager

__all__ = ["MiddlewareManager"]
