"""Routers, the dispatcher and what they hand around."""

from __future__ import annotations

from .dispatcher import Dispatcher
from .event import FAILED, UNHANDLED, ErrorEvent, RouterFrozenError, SkipHandler
from .middleware import BaseMiddleware
from .observer import Observer
from .router import Router

__all__ = [
    "FAILED",
    "UNHANDLED",
    "BaseMiddleware",
    "Dispatcher",
    "ErrorEvent",
    "Observer",
    "Router",
    "RouterFrozenError",
    "SkipHandler",
]
