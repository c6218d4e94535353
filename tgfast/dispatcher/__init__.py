"""Routers, the dispatcher and what they hand around."""

from __future__ import annotations

from .dispatcher import Dispatcher
from .event import FAILED, UNHANDLED, ErrorEvent, RouterFrozenError, SkipHandler
from .middleware import BaseMiddleware, get_flag
from .observer import HandlerObject, Observer
from .router import Router

__all__ = [
    "FAILED",
    "UNHANDLED",
    "BaseMiddleware",
    "Dispatcher",
    "ErrorEvent",
    "HandlerObject",
    "Observer",
    "Router",
    "RouterFrozenError",
    "SkipHandler",
    "get_flag",
]
