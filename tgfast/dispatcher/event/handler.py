"""aiogram's ``aiogram.dispatcher.event.handler`` path: ``HandlerObject``, ``FilterObject``
and ``CallableObject``, from ``tgfast.dispatcher.callables``."""

from __future__ import annotations

from ..callables import CallableObject, FilterObject, HandlerObject

__all__ = ["CallableObject", "FilterObject", "HandlerObject"]
