"""The Bot API client: ``Bot``, its session, retries and rate limiting."""

from __future__ import annotations

from .bot import Bot
from .ratelimit import Limit, LocalRateLimiter, RateLimiter
from .retry import NO_RETRY, RetryPolicy
from .session import TELEGRAM, BotSession, TelegramServer

__all__ = [
    "NO_RETRY",
    "TELEGRAM",
    "Bot",
    "BotSession",
    "Limit",
    "LocalRateLimiter",
    "RateLimiter",
    "RetryPolicy",
    "TelegramServer",
]
