"""The HTTP session a ``Bot`` sends through (``aiohttp.AiohttpSession``, also named
``BotSession``), and, for the code that imported them from here, the servers."""

from __future__ import annotations

from ..telegram import TELEGRAM, TelegramServer, check_base_url
from .aiohttp import AiohttpSession, BotSession
from .base import BaseSession

__all__ = [
    "TELEGRAM",
    "AiohttpSession",
    "BaseSession",
    "BotSession",
    "TelegramServer",
    "check_base_url",
]
