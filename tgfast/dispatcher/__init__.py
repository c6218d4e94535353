"""Routers, the dispatcher and what they hand around.

``tgfast.dispatcher.flags`` is the flags module, as in aiogram; the generator
(``@flags.chat_action(...)``) is ``tgfast.flags``.
"""

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
from .flags import check_flags, get_flag
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
    "get_flag",
]
