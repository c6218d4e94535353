"""aiogram's ``aiogram.dispatcher.event.event`` path: ``EventObserver``, from
``tgfast.dispatcher.observer``."""

from __future__ import annotations

from ..observer import EventObserver

__all__ = ["EventObserver"]
