"""Outcomes, control signals and error events of dispatching (``bases``, as in aiogram)."""

from __future__ import annotations

from .bases import (
    FAILED,
    REJECTED,
    UNHANDLED,
    CancelHandler,
    ErrorEvent,
    RouterFrozenError,
    SkipHandler,
    skip,
)

__all__ = [
    "FAILED",
    "REJECTED",
    "UNHANDLED",
    "CancelHandler",
    "ErrorEvent",
    "RouterFrozenError",
    "SkipHandler",
    "skip",
]
