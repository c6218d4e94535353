"""aiogram's ``aiogram.dispatcher.middlewares`` path: ``base.BaseMiddleware``."""

from __future__ import annotations

from .base import BaseMiddleware

__all__ = ["BaseMiddleware"]
