"""Routers, the dispatcher and what they hand around."""

from __future__ import annotations

from .event import FAILED, UNHANDLED, ErrorEvent, RouterFrozenError, SkipHandler
from .dispatcher import Dispatcher
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
