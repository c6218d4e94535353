"""``BaseSession``: what a ``Bot`` sends its calls through, and the class to subclass
for a session of one's own (aiogram's extension point, at aiogram's path).

A subclass implements ``make_request(bot, method, timeout)`` (send one method object,
return its result), ``stream_content`` (a download) and ``close``; ``check_response``
turns a Bot API answer into the result or the error tgfast raises for it, and
``prepare_value`` a parameter into its form-field text. ``session.middleware(...)``
adds request middlewares around ``make_request``.

tgfast's own ``AiohttpSession`` without middlewares is not called this way: the ``Bot``
sends through its pool directly (the fast path: no method object, no chain). A session
of another class, or one with a middleware, gets every call as a method object.
"""

from __future__ import annotations

import abc
import datetime
import json
import secrets
from collections.abc import AsyncGenerator, Callable
from enum import Enum
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

from ...decoding import convert
from ...defaults import Default
from ...errors import (
    ClientDecodeError,
    RestartingTelegram,
    TelegramAPIError,
    TelegramBadRequest,
    TelegramConflict,
    TelegramEntityTooLarge,
    TelegramForbidden,
    TelegramMigrateToChat,
    TelegramNotFound,
    TelegramRetryAfter,
    TelegramServerError,
    TelegramUnauthorized,
    TgfastError,
)
from ...methods.base import Response, TelegramType
from ...types.base import TelegramObject
from ...types.binding import bind
from ..telegram import PRODUCTION, TelegramAPIServer
from .middlewares.manager import RequestMiddlewareManager

if TYPE_CHECKING:
    from ...methods.base import TelegramMethod
    from ..bot import Bot

__all__ = ["DEFAULT_TIMEOUT", "BaseSession", "TelegramType"]

T = TypeVar("T")
S = TypeVar("S", bound="BaseSession")

DEFAULT_TIMEOUT: Final[float] = 60.0
"""Seconds a call may take, unless the session or the call says otherwise."""

_ERRORS: Final[dict[int, type[TelegramAPIError]]] = {
    400: TelegramBadRequest,
    401: TelegramUnauthorized,
    403: TelegramForbidden,
    404: TelegramNotFound,
    409: TelegramConflict,
    413: TelegramEntityTooLarge,
}


class BaseSession(abc.ABC):
    """The server a session sends to (``api``), its ``timeout`` in seconds, its JSON
    functions (``json_loads`` reads answers in ``check_response``, ``json_dumps`` writes
    values in ``prepare_value``) and its request ``middleware``."""

    def __init__(
        self,
        api: TelegramAPIServer | None = None,
        json_loads: Callable[..., Any] = json.loads,
        json_dumps: Callable[..., Any] = json.dumps,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.api: TelegramAPIServer = PRODUCTION if api is None else api
        self.api_given = api is not None
        self.json_loads = json_loads
        self.json_dumps = json_dumps
        self.timeout = timeout
        self.middleware = RequestMiddlewareManager()

    @abc.abstractmethod
    async def make_request(
        self, bot: Bot, method: TelegramMethod[TelegramType], timeout: float | None = None
    ) -> TelegramType:
        """Send ``method`` for ``bot``; return its result or raise its error."""

    @abc.abstractmethod
    def stream_content(
        self,
        url: str,
        headers: dict[str, Any] | None = None,
        timeout: float = 30,
        chunk_size: int = 65536,
        raise_for_status: bool = True,
    ) -> AsyncGenerator[bytes, None]:
        """The body at ``url``, in chunks (what ``bot.download_file`` reads)."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Release what the session holds."""

    async def __call__(
        self, bot: Bot, method: TelegramMethod[TelegramType], timeout: float | None = None
    ) -> TelegramType:
        """``make_request`` inside the middlewares: how a ``Bot`` sends through this."""
        if not self.middleware:
            return await self.make_request(bot, method, timeout=timeout)
        chain = self.middleware.wrap_middlewares(self.make_request, timeout=timeout)
        return cast(TelegramType, await chain(bot, method))

    def check_response(
        self, bot: Bot, method: TelegramMethod[TelegramType], status_code: int, content: str
    ) -> Response[TelegramType]:
        """The ``Response`` of a successful answer (its result decoded, bound to ``bot``);
        for a failed one, the error tgfast raises for it (``TelegramBadRequest``...)."""
        name = method.__api_method__
        try:
            answer = self.json_loads(content)
        except Exception as exc:  # json_loads is the user's: any error
            raise ClientDecodeError(
                name,
                status_code,
                bot.redact(f"the answer is not JSON: {type(exc).__name__}: {exc}"),
            ) from exc
        if type(answer) is not dict or type(answer.get("ok")) is not bool:
            raise ClientDecodeError(
                name, status_code, bot.redact(f"not a Bot API answer: {str(answer)[:120]!r}")
            )
        if answer["ok"] and 200 <= status_code <= 226:
            result = answer.get("result")
            if result is None:  # no result to decode (aiogram's answers allow it)
                return Response(ok=True)
            try:
                result = bind(convert(method.__returns__, result), bot)
            except TgfastError as exc:
                raise ClientDecodeError(name, status_code, f"the result: {exc}") from exc
            return Response(ok=True, result=result)
        raise _api_error(bot, name, status_code, answer)

    def prepare_value(
        self, value: Any, bot: Bot, files: dict[str, Any], _dumps_json: bool = True
    ) -> Any:
        """``value`` as a form field: text as is, ``None`` left out (``None``), a bot
        default filled in, a file put in ``files`` and named ``attach://...``, a date as
        Unix time, an enum as its value, anything else as JSON (``json_dumps``)."""
        from ...types import InputFile

        if value is None or isinstance(value, str):
            return value
        if isinstance(value, Default):  # the bot's default it names (DEFAULT names none)
            name = value.name
            if name is None:
                return None
            return self.prepare_value(bot.defaults[name], bot, files, _dumps_json)
        if isinstance(value, InputFile):
            key = secrets.token_urlsafe(10)
            files[key] = value
            return f"attach://{key}"
        if isinstance(value, TelegramObject):
            value = value._sent_fields(bot.defaults)
        if isinstance(value, dict):
            value = {
                key: prepared
                for key, item in value.items()
                if (prepared := self.prepare_value(item, bot, files, _dumps_json=False)) is not None
            }
        elif isinstance(value, list):
            value = [
                prepared
                for item in value
                if (prepared := self.prepare_value(item, bot, files, _dumps_json=False)) is not None
            ]
        elif isinstance(value, datetime.timedelta):
            value = round((datetime.datetime.now() + value).timestamp())
        elif isinstance(value, datetime.datetime):
            value = round(value.timestamp())
        elif isinstance(value, Enum):
            return self.prepare_value(value.value, bot, files, _dumps_json)
        return self.json_dumps(value) if _dumps_json else value

    async def __aenter__(self: S) -> S:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


def _api_error(bot: Bot, method: str, status: int, answer: dict[str, Any]) -> TelegramAPIError:
    """The error a failed answer means: flood control and migration first (whatever the
    status), then by status code."""
    description = bot.redact(str(answer.get("description") or f"HTTP {status}"))
    parameters = answer.get("parameters")
    parameters = parameters if type(parameters) is dict else {}
    after = parameters.get("retry_after")
    if isinstance(after, (int, float)) and after > 0:
        return TelegramRetryAfter(method, status, description, after)
    migrate = parameters.get("migrate_to_chat_id")
    if type(migrate) is int:
        return TelegramMigrateToChat(method, status, description, migrate)
    if status >= 500:
        restarting = "restart" in description.lower()
        return (RestartingTelegram if restarting else TelegramServerError)(
            method, status, description
        )
    return _ERRORS.get(status, TelegramAPIError)(method, status, description)
