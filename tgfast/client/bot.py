"""``Bot``: the Bot API client, one ``async`` method per Bot API method."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO, TypeVar, overload

import aiohttp
import orjson
from yarl import URL

from .._logging import get_logger
from ..decoding import convert
from ..defaults import DEFAULT, BotDefaults, Default
from ..errors import (
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
from ..methods.base import Returns, TelegramMethod
from ..types import File, User
from ..types.binding import bind
from ._api import BotAPI
from .encoding import JSON_HEADERS, dumps, multipart, prepare
from .files import create_partial, open_local_file
from .ratelimit import LocalRateLimiter, RateLimiter
from .redaction import TokenRedactor
from .retry import RetryPolicy, is_repeatable, reached_server
from .session import TELEGRAM, BotSession, TelegramServer

__all__ = ["Bot"]

T = TypeVar("T")
log = get_logger("tgfast.client")

_TOKEN = re.compile(r"\d+:[A-Za-z0-9_-]+")
_ERRORS: dict[int, type[TelegramAPIError]] = {
    400: TelegramBadRequest,
    401: TelegramUnauthorized,
    403: TelegramForbidden,
    404: TelegramNotFound,
    409: TelegramConflict,
    413: TelegramEntityTooLarge,
}
_NETWORK_ERRORS = (aiohttp.ClientError, asyncio.TimeoutError, OSError)


class Bot(BotAPI):
    """A Telegram bot: ``await bot.send_message(chat_id, "hi")``.

    Calls go through a pooled keep-alive ``BotSession`` (its own, unless one is
    shared), are held back by ``rate_limiter`` (Telegram's limits by default; ``None``
    turns it off), and failures are repeated per ``retry`` (see
    ``tgfast.client.retry`` for which). The token never appears in a ``repr``, an
    error or a log line.

    ``on_api_call``, when set, is called as ``on_api_call(method, status)`` after
    every attempt: the HTTP status of the answer, or 0 when none came (network
    error, timeout). The serving layer's ``/metrics`` counts calls with it.
    """

    __slots__ = (
        "__token",
        "__weakref__",
        "_me",
        "_own_session",
        "_redact",
        "_urls",
        "defaults",
        "id",
        "on_api_call",
        "rate_limiter",
        "retry",
        "server",
        "session",
    )

    def __init__(
        self,
        token: str,
        *,
        server: str | TelegramServer = TELEGRAM,
        session: BotSession | None = None,
        defaults: BotDefaults | None = None,
        rate_limiter: RateLimiter | Default | None = DEFAULT,
        retry: RetryPolicy | None = None,
    ) -> None:
        if not isinstance(token, str) or not _TOKEN.fullmatch(token):
            raise TgfastError("malformed bot token: expected '<bot id>:<secret>' from @BotFather")
        self.__token = token
        self._redact = TokenRedactor(token)
        self.id = int(token.partition(":")[0])
        self.server = TelegramServer(server) if isinstance(server, str) else server
        self._own_session = session is None
        self.session = BotSession() if session is None else session
        self.defaults = defaults or BotDefaults()
        self.rate_limiter: RateLimiter | None = (
            LocalRateLimiter() if isinstance(rate_limiter, Default) else rate_limiter
        )
        self.retry = retry or RetryPolicy()
        self._urls: dict[str, URL] = {}
        self._me: User | None = None
        self.on_api_call: Callable[[str, int], object] | None = None

    @property
    def token(self) -> str:
        """The token, for building a webhook path and the like; keep it out of logs."""
        return self.__token

    def __repr__(self) -> str:
        return f"Bot(id={self.id}, server={self.server.base!r})"

    async def __call__(self, method: TelegramMethod[T], request_timeout: float | None = None) -> T:
        """Send a method object: ``await bot(SendMessage(chat_id=1, text="hi"))``."""
        params = method.build(self.defaults)
        returns: Returns[T] = method.__tg_returns__
        return await self._call(
            method.__api_method__, params, returns, request_timeout, method.__uploads__
        )

    async def me(self) -> User:
        """``getMe``, asked once and remembered."""
        if self._me is None:
            self._me = await self.get_me()
        return self._me

    # -- the one place requests are made ------------------------------------------------

    async def _call(
        self,
        method: str,
        params: dict[str, Any],
        returns: Returns[T],
        request_timeout: float | None = None,
        uploads: bool = False,
    ) -> T:
        limiter = self.rate_limiter
        if limiter is not None:
            await limiter.acquire(method, params.get("chat_id"))
        url = self._urls.get(method)
        if url is None:
            url = self._urls[method] = URL(self.server.api_url(self.__token, method))
        files = None
        if uploads:
            params, files = prepare(params)
        body = dumps(params) if not files else None
        timeout = self._timeout(method, params, request_timeout)
        client = self.session.client
        retried = failures = 0
        error: TelegramNetworkError | TelegramAPIError
        while True:
            try:
                if files:
                    request = client.post(url, data=multipart(params, files), timeout=timeout)
                else:
                    request = client.post(url, data=body, headers=JSON_HEADERS, timeout=timeout)
                async with request as response:
                    raw = await response.read()
                    status = response.status
            except _NETWORK_ERRORS as exc:
                if self.on_api_call is not None:
                    self.on_api_call(method, 0)
                error = TelegramNetworkError(method, self._describe(exc, timeout))
                if failures < self.retry.attempts and (
                    not reached_server(exc) or is_repeatable(method)
                ):
                    await self._back_off(method, error, failures)
                    failures += 1
                    continue
                raise error from None
            if self.on_api_call is not None:
                self.on_api_call(method, status)
            if status == 200:
                try:
                    answer = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    answer = None
                if type(answer) is dict and answer.get("ok") is True:
                    result: T = bind(convert(returns.expr, answer.get("result")), self)
                    return result
            error = self._api_error(method, status, raw)
            if isinstance(error, TelegramRetryAfter):
                if limiter is not None:  # hold the chat back, whether or not we retry
                    limiter.penalize(params.get("chat_id"), error.retry_after)
                if retried < self.retry.retry_after_attempts and (
                    error.retry_after <= self.retry.max_retry_after
                ):
                    retried += 1
                    log.warning(
                        "%s: flood control, retrying in %ss (%d/%d)",
                        method, error.retry_after, retried, self.retry.retry_after_attempts,
                    )  # fmt: skip
                    await asyncio.sleep(error.retry_after)
                    continue
            elif (
                isinstance(error, TelegramServerError)
                and failures < self.retry.attempts
                and is_repeatable(method)
            ):
                await self._back_off(method, error, failures)
                failures += 1
                continue
            raise error

    def _timeout(
        self, method: str, params: dict[str, Any], request_timeout: float | None
    ) -> aiohttp.ClientTimeout:
        base = self.session.timeout
        if request_timeout is not None:
            return aiohttp.ClientTimeout(total=request_timeout)
        poll = params.get("timeout") if method == "getUpdates" else None
        if isinstance(poll, (int, float)) and poll > 0 and base.total is not None:
            return aiohttp.ClientTimeout(total=base.total + poll)  # a long poll is not late
        return base

    async def _back_off(self, method: str, error: Exception, failures: int) -> None:
        delay = self.retry.delay(failures)
        log.warning(
            "%s failed (%s), retrying in %.2fs (%d/%d)",
            method, error, delay, failures + 1, self.retry.attempts,
        )  # fmt: skip
        await asyncio.sleep(delay)

    def _describe(self, exc: BaseException, timeout: aiohttp.ClientTimeout) -> str:
        if isinstance(exc, asyncio.TimeoutError):
            return f"no answer within {timeout.total}s"
        return self._scrub(f"{type(exc).__name__}: {exc}")

    def redact(self, text: str) -> str:
        """``text`` with this bot's token replaced by ``<token>`` in any form it takes
        (raw, percent-encoded, escaped): for a message that may quote a request URL."""
        return self._redact(text)

    _scrub = redact

    def _api_error(self, method: str, status: int, raw: bytes) -> TelegramAPIError:
        """The error for an answer that is not a success."""
        try:
            answer = orjson.loads(raw)
        except orjson.JSONDecodeError:
            answer = None
        if type(answer) is not dict or "ok" not in answer:
            kind = TelegramServerError if status >= 500 or status == 200 else TelegramAPIError
            # redacted whole before it is cut: a cut could leave a prefix of the token
            snippet = self._scrub(raw[:65536].decode("utf-8", "replace"))[:120].strip()
            return kind(method, status, self._scrub(f"not a Bot API answer: {snippet!r}"))
        code = answer.get("error_code")
        code = code if type(code) is int else status
        description = self._scrub(str(answer.get("description") or f"HTTP {status}"))
        parameters = answer.get("parameters")
        parameters = parameters if type(parameters) is dict else {}
        if code == 429:
            after = parameters.get("retry_after")
            after = after if isinstance(after, (int, float)) and after >= 0 else 1
            return TelegramRetryAfter(method, code, description, after)
        migrate = parameters.get("migrate_to_chat_id")
        if type(migrate) is int:
            return TelegramMigrateToChat(method, code, description, migrate)
        if code >= 500:
            return TelegramServerError(method, code, description)
        return _ERRORS.get(code, TelegramAPIError)(method, code, description)

    # -- files --------------------------------------------------------------------------

    async def stream_file(
        self, file_path: str, *, chunk_size: int = 65536, request_timeout: float | None = None
    ) -> AsyncIterator[bytes]:
        """The content of a file that ``get_file`` returned, in chunks."""
        if self.server.local and os.path.isabs(file_path):
            fd = open_local_file(self.server, file_path, self._redact)
            with os.fdopen(fd, "rb") as f:
                while chunk := await asyncio.to_thread(f.read, chunk_size):
                    yield chunk
            return
        url = self.server.file_url(self.__token, file_path)
        timeout = aiohttp.ClientTimeout(total=request_timeout) if request_timeout else None
        try:
            async with self.session.client.get(url, timeout=timeout) as response:
                if response.status != 200:
                    raise TelegramNotFound(
                        "download", response.status, self._scrub(f"cannot download {file_path!r}")
                    )
                async for chunk in response.content.iter_chunked(chunk_size):
                    yield chunk
        except _NETWORK_ERRORS as exc:
            raise TelegramNetworkError(
                "download", self._describe(exc, timeout or self.session.timeout)
            ) from None

    @overload
    async def download_file(
        self, file_path: str, destination: None = None, *, chunk_size: int = ...
    ) -> bytes: ...
    @overload
    async def download_file(
        self, file_path: str, destination: str | os.PathLike[str], *, chunk_size: int = ...
    ) -> Path: ...
    @overload
    async def download_file(
        self, file_path: str, destination: BinaryIO, *, chunk_size: int = ...
    ) -> BinaryIO: ...

    async def download_file(
        self,
        file_path: str,
        destination: str | os.PathLike[str] | BinaryIO | None = None,
        *,
        chunk_size: int = 65536,
    ) -> bytes | Path | BinaryIO:
        """Download to memory (``bytes``), to a path (written whole or not at all), or
        into a binary stream."""
        if destination is None:
            return b"".join([chunk async for chunk in self.stream_file(file_path)])
        if isinstance(destination, (str, os.PathLike)):
            path = Path(destination)
            fd, partial = create_partial(path)
            try:
                with os.fdopen(fd, "wb") as f:
                    async for chunk in self.stream_file(file_path, chunk_size=chunk_size):
                        f.write(chunk)
                os.replace(partial, path)  # atomic; a symlink at path is replaced, not followed
            finally:
                partial.unlink(missing_ok=True)
            return path
        async for chunk in self.stream_file(file_path, chunk_size=chunk_size):
            destination.write(chunk)
        return destination

    async def download(
        self,
        file: str | Any,
        destination: str | os.PathLike[str] | BinaryIO | None = None,
        *,
        chunk_size: int = 65536,
    ) -> bytes | Path | BinaryIO:
        """``get_file`` + ``download_file`` for a file id or anything with ``file_id``
        (a ``PhotoSize``, a ``Document``, a ``File``...)."""
        if isinstance(file, File) and file.file_path:
            info = file
        else:
            info = await self.get_file(file if isinstance(file, str) else file.file_id)
        if not info.file_path:
            raise TelegramBadRequest("getFile", 400, "the file has no file_path to download")
        return await self.download_file(info.file_path, destination, chunk_size=chunk_size)

    # -- lifetime -----------------------------------------------------------------------

    async def close(self) -> None:
        """Close the HTTP session if this bot made it (a shared one stays open)."""
        if self._own_session:
            await self.session.close()

    async def __aenter__(self) -> Bot:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
