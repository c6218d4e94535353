"""``BaseSession``: what every session of a ``Bot`` has, at aiogram's path.

tgfast has one session, ``AiohttpSession`` (``tgfast.client.session.aiohttp``); this
base holds the attributes aiogram's sessions share, so that code typed against
``BaseSession`` keeps working. A ``Bot`` sends through its own pipeline (rate limits,
retries, the compiled decoder): a subclass that overrides ``make_request`` is refused
by the ``Bot`` rather than silently bypassed.
"""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final, TypeVar

import orjson

from ..telegram import PRODUCTION, APIServer

if TYPE_CHECKING:
    from ...methods.base import TelegramMethod
    from ..bot import Bot

__all__ = ["DEFAULT_TIMEOUT", "BaseSession"]

T = TypeVar("T")
S = TypeVar("S", bound="BaseSession")

DEFAULT_TIMEOUT: Final[float] = 60.0
"""Seconds a call may take, unless the session or the call says otherwise."""


class BaseSession:
    """The server a session sends to (``api``), its ``timeout`` in seconds, and its JSON
    functions (kept for aiogram's code that reads them; tgfast always uses orjson)."""

    def __init__(
        self,
        api: APIServer | None = None,
        json_loads: Callable[..., Any] | None = None,
        json_dumps: Callable[..., Any] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.api: APIServer = PRODUCTION if api is None else api
        self.api_given = api is not None
        self.json_loads: Callable[..., Any] = orjson.loads if json_loads is None else json_loads
        self.json_dumps: Callable[..., Any] = orjson.dumps if json_dumps is None else json_dumps
        self.timeout = timeout

    @property
    def middleware(self) -> Any:
        """aiogram's request middlewares: not supported, and said so."""
        raise NotImplementedError(
            "tgfast sessions have no request middlewares: wrap the call instead, or use "
            "Bot.on_api_call (called after every attempt) and Bot(retry=RetryPolicy(...))"
        )

    async def make_request(
        self, bot: Bot, method: TelegramMethod[T], timeout: float | None = None
    ) -> T:
        """Send ``method`` with ``bot``: the same as ``await bot(method)``."""
        return await bot(method, timeout)

    async def __call__(
        self, bot: Bot, method: TelegramMethod[T], timeout: float | None = None
    ) -> T:
        return await self.make_request(bot, method, timeout)

    async def close(self) -> None:
        """Release what the session holds."""

    async def __aenter__(self: S) -> S:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
