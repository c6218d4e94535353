"""tgfast: an asyncio Telegram Bot API framework with compiled hot paths."""

from __future__ import annotations

from . import methods, types
from ._aiogram import install as install_aiogram_paths
from .client import Bot, BotSession, RetryPolicy, TelegramServer
from .decoding import SPEEDUPS, convert, decode, decode_update, decode_updates
from .defaults import DEFAULT, BotDefaults, DefaultBotProperties
from .dispatcher import BaseMiddleware, Dispatcher, Router
from .dispatcher.flags import flags
from .errors import (
    DecodeError,
    TelegramAPIError,
    TelegramBadRequest,
    TelegramConflict,
    TelegramEntityTooLarge,
    TelegramForbidden,
    TelegramMigrateToChat,
    TelegramNetworkError,
    TelegramNotFound,
    TelegramRetryAfter,
    TelegramServerError,
    TelegramUnauthorized,
    TgfastError,
)
from .filters import F
from .types import API_VERSION
from .utils.text_decorations import html_decoration as html
from .utils.text_decorations import markdown_decoration as md

install_aiogram_paths()

__version__ = "0.1.0"
__speedups__: bool = SPEEDUPS
"""True when the compiled extensions are in use, False for the pure-Python twins."""

__all__ = [
    "API_VERSION",
    "DEFAULT",
    "Bot",
    "BotDefaults",
    "BaseMiddleware",
    "BotSession",
    "DecodeError",
    "DefaultBotProperties",
    "Dispatcher",
    "F",
    "RetryPolicy",
    "Router",
    "TelegramAPIError",
    "TelegramBadRequest",
    "TelegramConflict",
    "TelegramEntityTooLarge",
    "TelegramForbidden",
    "TelegramMigrateToChat",
    "TelegramNetworkError",
    "TelegramNotFound",
    "TelegramRetryAfter",
    "TelegramServerError",
    "TelegramServer",
    "TelegramUnauthorized",
    "TgfastError",
    "__speedups__",
    "__version__",
    "convert",
    "decode",
    "decode_update",
    "decode_updates",
    "flags",
    "html",
    "md",
    "methods",
    "types",
]
