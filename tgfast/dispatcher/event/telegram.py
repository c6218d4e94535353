"""aiogram's ``aiogram.dispatcher.event.telegram`` path: ``TelegramEventObserver``, aiogram's
name for a router's observer of one update kind, is tgfast's ``Observer``
(``tgfast.dispatcher.observer``)."""

from __future__ import annotations

from ..observer import Observer

TelegramEventObserver = Observer

__all__ = ["TelegramEventObserver"]
