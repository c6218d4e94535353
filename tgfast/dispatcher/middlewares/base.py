"""aiogram's path to ``BaseMiddleware`` (it lives in ``tgfast.dispatcher.middleware``)."""

from __future__ import annotations

from ..event.bases import MiddlewareType, NextMiddlewareType
from ..middleware import BaseMiddleware, Handler, Middleware

__all__ = ["BaseMiddleware", "Handler", "Middleware", "MiddlewareType", "NextMiddlewareType"]
