"""The Bot API client: ``Bot``, its session, servers, retries and rate limiting."""

from __future__ import annotations

from .bot import Bot
from .hooks import ApiCall, ApiCallHook
from .ratelimit import Limit, LocalRateLimiter, RateLimiter
from .retry import NO_RETRY, RetryPolicy
from .session import AiohttpSession, BaseSession, BotSession
from .telegram import PRODUCTION, TELEGRAM, TEST, TelegramAPIServer, TelegramServer

__all__ = [
    "NO_RETRY",
    "PRODUCTION",
    "TELEGRAM",
    "TEST",
    "AiohttpSession",
    "ApiCall",
    "ApiCallHook",
    "BaseSession",
    "Bot",
    "BotSession",
    "Limit",
    "LocalRateLimiter",
    "RateLimiter",
    "RetryPolicy",
    "TelegramAPIServer",
    "TelegramServer",
]
