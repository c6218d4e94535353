"""What a request middleware is: ``await middleware(make_request, bot, method)``, which
calls ``await make_request(bot, method)`` to go on (or answers without it)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ....methods.base import TelegramMethod
    from ...bot import Bot

__all__ = ["BaseRequestMiddleware", "NextRequestMiddlewareType", "RequestMiddlewareType"]


class NextRequestMiddlewareType(Protocol):
    """The rest of the chain: the next middleware, last the session's ``make_request``."""

    async def __call__(self, bot: Bot, method: TelegramMethod[Any]) -> Any: ...


class RequestMiddlewareType(Protocol):
    """A request middleware, a function or an object."""

    async def __call__(
        self, make_request: NextRequestMiddlewareType, bot: Bot, method: TelegramMethod[Any]
    ) -> Any: ...


class BaseRequestMiddleware(ABC):
    """A request middleware as a class: implement ``__call__``."""

    @abstractmethod
    async def __call__(
        self, make_request: NextRequestMiddlewareType, bot: Bot, method: TelegramMethod[Any]
    ) -> Any:
        """Do something around ``await make_request(bot, method)`` and return its result."""
