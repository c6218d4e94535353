"""Routers, the dispatcher and what they hand around."""

from __future__ import annotations

from .dispatcher import Dispatcher
from .event import (
    FAILED,
    REJECTED,
    UNHANDLED,
    CancelHandler,
    ErrorEvent,
    RouterFrozenError,
    SkipHandler,
)
from .flags import check_flags, flags, get_flag
from .middleware import BaseMiddleware
from .observer import HandlerObject, Observer
from .router import Router

__all__ = [
    "FAILED",
    "REJECTED",
    "UNHANDLED",
    "BaseMiddleware",
    "CancelHandler",
    "Dispatcher",
    "ErrorEvent",
    "HandlerObject",
    "Observer",
    "Router",
    "RouterFrozenError",
    "SkipHandler",
    "check_flags",
    "flags",
    "get_flag",
]
