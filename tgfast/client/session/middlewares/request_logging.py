"""``RequestLogging``: one log line per call a bot makes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...._logging import get_logger
from .base import BaseRequestMiddleware, NextRequestMiddlewareType

if TYPE_CHECKING:
    from ....methods.base import TelegramMethod
    from ...bot import Bot

__all__ = ["RequestLogging"]

log = get_logger("tgfast.client.requests")


class RequestLogging(BaseRequestMiddleware):
    """Logs (INFO) the method and the bot's id of every call, except the method classes
    in ``ignore_methods``; never the parameters, which may hold private data."""

    def __init__(self, ignore_methods: list[type[TelegramMethod[Any]]] | None = None) -> None:
        self.ignore_methods = ignore_methods or []

    async def __call__(
        self, make_request: NextRequestMiddlewareType, bot: Bot, method: TelegramMethod[Any]
    ) -> Any:
        if type(method) not in self.ignore_methods:
            log.info("Make request with method=%r by bot id=%d", type(method).__name__, bot.id)
        return await make_request(bot, method)
