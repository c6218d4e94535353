"""Request middlewares: code around every call a session makes
(``bot.session.middleware(RequestLogging())``), at aiogram's path."""

from __future__ import annotations

from .base import BaseRequestMiddleware, NextRequestMiddlewareType, RequestMiddlewareType
from .manager import RequestMiddlewareManager
from .request_logging import RequestLogging

__all__ = [
    "BaseRequestMiddleware",
    "NextRequestMiddlewareType",
    "RequestLogging",
    "RequestMiddlewareManager",
    "RequestMiddlewareType",
]
