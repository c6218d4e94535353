"""``Bot``: the Bot API client, one ``async`` method per Bot API method."""

from __future__ import annotations

import asyncio
import io
import os
import re
import time
import weakref
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO, TypeVar, overload

import aiohttp
import orjson
from yarl import URL

from .._logging import get_logger
from ..decoding import convert
from ..defaults import DEFAULT, Default, DefaultBotProperties
from ..errors import (
    ClientDecodeError,
    RestartingTelegram,
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
from ..utils.token import TokenValidationError, validate_token
from ._api import BotAPI
from .encoding import JSON_HEADERS, dumps, multipart, prepare
from .files import create_partial, open_local_file
from .hooks import ApiCall, ApiCallHook
from .ratelimit import LocalRateLimiter, RateLimiter
from .redaction import TokenRedactor
from .retry import RetryPolicy, is_repeatable, reached_server
from .session.aiohttp import _MAKE_REQUEST, AiohttpSession
from .session.base import BaseSession
from .session.fast import FastSession, session_for
from .telegram import PRODUCTION, TelegramAPIServer

__all__ = ["Bot"]

T = TypeVar("T")
log = get_logger("tgfast.client")

_TOKEN = re.compile(r"[0-9]+:[A-Za-z0-9_-]+")
_ERRORS: dict[int, type[TelegramAPIError]] = {
    400: TelegramBadRequest,
    401: TelegramUnauthorized,
    403: TelegramForbidden,
    404: TelegramNotFound,
    409: TelegramConflict,
    413: TelegramEntityTooLarge,
}
_NETWORK_ERRORS = (aiohttp.ClientError, asyncio.TimeoutError, OSError)
# sessions and the bots using them (by identity: bots with one token are equal), so
# that a shared session closes with the last of its bots
_SESSION_USERS: weakref.WeakKeyDictionary[BaseSession, weakref.WeakValueDictionary[int, Bot]] = (
    weakref.WeakKeyDictionary()
)
_perf = time.perf_counter
_REMOVED = ("parse_mode", "disable_web_page_preview", "protect_content")


class Bot(BotAPI):
    """A Telegram bot: ``await bot.send_message(chat_id, "hi")``.

    Built as aiogram's, ``Bot(token, session=AiohttpSession(...),
    default=DefaultBotProperties(...))``, or tgfast's way, ``Bot(token, server=...,
    defaults=BotDefaults(...))``. Calls go through a pooled keep-alive
    ``AiohttpSession`` (its own, unless one is given: a given one is closed when the
    last bot using it closes), to ``server`` (else the session's ``api``, else
    Telegram), are held back by ``rate_limiter`` (Telegram's limits by default;
    ``None`` turns it off), and failures are repeated per ``retry`` (see
    ``tgfast.client.retry`` for which). The token never appears in a ``repr``, an
    error or a log line.

    ``api_call_hooks`` are called with an ``ApiCall`` (method, status, duration,
    exception, attempt, retry_after) after every attempt; several coexist (the
    serving layer's ``/metrics`` is one, tracing another). ``on_api_call``, the older
    single slot, is called as ``on_api_call(method, status)``, 0 when no answer came.
    """

    __slots__ = (
        "__token",
        "__weakref__",
        "_api_counts",
        "_me",
        "_own_session",
        "_redact",
        "_urls",
        "api_call_hooks",
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
        session: BaseSession | None = None,
        default: DefaultBotProperties | None = None,
        *,
        server: str | TelegramAPIServer | None = None,
        defaults: DefaultBotProperties | None = None,
        rate_limiter: RateLimiter | Default | None = DEFAULT,
        retry: RetryPolicy | None = None,
        **removed: Any,
    ) -> None:
        if removed:
            _refuse(removed)
        validate_token(token)  # aiogram's rule; then the characters a URL path keeps as is
        if not _TOKEN.fullmatch(token):
            raise TokenValidationError(
                "malformed bot token: its secret may hold only A-Z, a-z, 0-9, _ and -"
            )
        if default is not None and defaults is not None and default is not defaults:
            raise TypeError("pass the defaults once: default= (aiogram's name) or defaults=")
        if session is not None and not isinstance(session, BaseSession):
            raise TypeError(f"session= takes a BaseSession, not {type(session).__name__}")
        self.__token = token
        self._redact = TokenRedactor(token)
        self.id = int(token.partition(":")[0])
        if isinstance(server, str):
            server = TelegramAPIServer.from_base(server)
        elif server is None:
            server = session.api if session is not None and session.api_given else PRODUCTION
        self.server: TelegramAPIServer = server
        self._own_session = session is None
        if session is None:
            session = session_for(server)  # TGFAST_TRANSPORT picks aiohttp or fast
        self.session: BaseSession = session
        _SESSION_USERS.setdefault(session, weakref.WeakValueDictionary())[id(self)] = self
        self.defaults = default or defaults or DefaultBotProperties()
        self.rate_limiter: RateLimiter | None = (
            LocalRateLimiter() if isinstance(rate_limiter, Default) else rate_limiter
        )
        self.retry = retry or RetryPolicy()
        self._urls: dict[str, URL] = {}
        self._me: User | None = None
        self.on_api_call: Callable[[str, int], object] | None = None
        self.api_call_hooks: list[ApiCallHook] = []
        self._api_counts: dict[tuple[str, int], int] | None = None

    def _count_calls(self, counts: dict[tuple[str, int], int]) -> bool:
        """Count every attempt in ``counts[method, status]`` (0: no answer), as the
        serving layer's metrics do: a dict bumped in place, where a hook would build an
        ``ApiCall`` and make a call per attempt. False: another dict counts already."""
        if self._api_counts is None:
            self._api_counts = counts
        return self._api_counts is counts

    def _attempted(self, method: str, status: int) -> None:
        """Count one attempt of ``method`` that ended with ``status`` (0: no answer)."""
        if self._api_counts is not None:
            self._api_counts[method, status] += 1
        if self.on_api_call is not None:
            self.on_api_call(method, status)

    @property
    def token(self) -> str:
        """The token, for building a webhook path and the like; keep it out of logs."""
        return self.__token

    @property
    def default(self) -> DefaultBotProperties:
        """The bot's defaults (``defaults``, by aiogram's name)."""
        return self.defaults

    @default.setter
    def default(self, value: DefaultBotProperties) -> None:
        self.defaults = value

    def __repr__(self) -> str:
        return f"Bot(id={self.id}, server={self.server.base_url!r})"

    def __eq__(self, other: object) -> bool:
        """Two ``Bot`` objects with one token are the same bot (as in aiogram)."""
        if not isinstance(other, Bot):
            return NotImplemented
        return self.__token == other.__token

    def __hash__(self) -> int:
        return hash(self.__token)

    def __call__(
        self, method: TelegramMethod[T], request_timeout: float | None = None
    ) -> Coroutine[Any, Any, T]:
        """Send a method object: ``await bot(SendMessage(chat_id=1, text="hi"))``.

        Not ``async def`` itself: it returns the coroutine that sends, so that no
        coroutine of its own stands between the caller and that one on every step."""
        session = self.session
        if type(session).make_request is not _MAKE_REQUEST or session.middleware._middlewares:
            return session(self, method, timeout=request_timeout)  # not the direct path
        params = method.build(self.defaults)
        returns: Returns[T] = method.__tg_returns__
        return self._call(
            method.__api_method__, params, returns, request_timeout, method.__uploads__, direct=True
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
        *,
        direct: bool = False,
        via: AiohttpSession | None = None,
    ) -> T:
        """Send one call through the pool (the direct path), unless the session is not
        tgfast's own ``AiohttpSession``, or its ``make_request`` was replaced (patched,
        overridden) or has request middlewares: then as a method object through the
        session. ``direct``: the caller has checked; ``via``: the pool to send through
        (``AiohttpSession.make_request`` sends through its own)."""
        session: AiohttpSession = via or self.session  # type: ignore[assignment]
        if not direct and (
            type(session).make_request is not _MAKE_REQUEST or session.middleware._middlewares
        ):
            from ..methods import METHOD_CLASSES

            call = METHOD_CLASSES[method](**params)
            return await session(self, call, timeout=request_timeout)
        limiter = self.rate_limiter
        if limiter is not None:
            await limiter.acquire(method, params.get("chat_id"))
        url = self._urls.get(method)
        if via is not None and via is not self.session:  # another session: its server
            url = URL(via.api.api_url(self.__token, method))
        elif url is None:
            url = self._urls[method] = URL(self.server.api_url(self.__token, method))
        files = None
        defaults = self.defaults
        if uploads:
            params, files = prepare(params, defaults)
        body = dumps(params, defaults) if not files else None
        # the fast transport takes JSON calls; uploads go through its aiohttp session
        if body is not None and isinstance(session, FastSession):
            fast = session.post_json
            if request_timeout is None and method != "getUpdates":
                seconds = session.client_timeout.total  # the common case, no object made
            else:
                seconds = self._timeout(session, method, params, request_timeout).total
        else:
            fast = None
            timeout = self._timeout(session, method, params, request_timeout)
        retried = failures = 0
        error: TelegramNetworkError | TelegramAPIError
        hooks = self.api_call_hooks
        while True:
            started = _perf() if hooks else 0.0
            try:
                if fast is not None and body is not None:
                    status, raw = await fast(url, body, seconds)
                else:
                    if files:
                        form = multipart(params, files, defaults)
                        request = session.client.post(url, data=form, timeout=timeout)
                    else:
                        request = session.client.post(
                            url, data=body, headers=JSON_HEADERS, timeout=timeout
                        )
                    async with request as response:
                        raw = await response.read()
                        status = response.status
            except _NETWORK_ERRORS as exc:
                self._attempted(method, 0)
                if fast is not None:
                    timeout = self._timeout(session, method, params, request_timeout)
                error = TelegramNetworkError(method, self._describe(exc, timeout))
                if hooks:
                    self._report(method, 0, started, error, retried + failures)
                if failures < self.retry.attempts and (
                    not reached_server(exc) or is_repeatable(method)
                ):
                    await self._back_off(method, error, failures)
                    failures += 1
                    continue
                raise error from None
            if status == 200:
                try:
                    answer = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    answer = None
                if type(answer) is dict and answer.get("ok") is True:
                    self._attempted(method, 200)
                    if hooks:
                        self._report(method, status, started, None, retried + failures)
                    result: T = bind(convert(returns.expr, answer.get("result")), self)
                    return result
            self._attempted(method, status)
            error = self._api_error(method, status, raw)
            if hooks:
                self._report(method, status, started, error, retried + failures)
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

    def _report(
        self, method: str, status: int, started: float, error: BaseException | None, attempt: int
    ) -> None:
        """Tell each of ``api_call_hooks`` how an attempt ended."""
        call = ApiCall(
            method, status, started, _perf() - started, error, attempt,
            error.retry_after if isinstance(error, TelegramRetryAfter) else None,
        )  # fmt: skip
        for hook in self.api_call_hooks:
            try:
                hook(call)
            except Exception as exc:
                log.error("api call hook %r raised %r", hook, exc, exc_info=exc)

    def _timeout(
        self,
        session: AiohttpSession,
        method: str,
        params: dict[str, Any],
        request_timeout: float | None,
    ) -> aiohttp.ClientTimeout:
        base = session.client_timeout
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
            kind = ClientDecodeError if status >= 500 or status == 200 else TelegramAPIError
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
            restarting = "restart" in description.lower()
            return (RestartingTelegram if restarting else TelegramServerError)(
                method, code, description
            )
        return _ERRORS.get(code, TelegramAPIError)(method, code, description)

    # -- files --------------------------------------------------------------------------

    async def stream_file(
        self, file_path: str, *, chunk_size: int = 65536, request_timeout: float | None = None
    ) -> AsyncIterator[bytes]:
        """The content of a file that ``get_file`` returned, in chunks."""
        server = self.server
        if server.is_local and os.path.isabs(file_path):
            if server.local_dir is None:
                raise TgfastError(
                    "a local Bot API server's files are read only inside its --dir: pass "
                    "local_dir= to TelegramAPIServer (or TelegramServer(local=True, local_dir=))"
                )
            fd = open_local_file(server.local_dir, server.to_local(file_path), self._redact)
            with os.fdopen(fd, "rb") as f:
                while chunk := await asyncio.to_thread(f.read, chunk_size):
                    yield chunk
            return
        url = server.file_url(self.__token, file_path)
        session = self.session
        if not isinstance(session, AiohttpSession):  # a session of its own: its download
            stream = session.stream_content(
                url, timeout=request_timeout or 30, chunk_size=chunk_size
            )
            async for chunk in stream:
                yield chunk
            return
        timeout = aiohttp.ClientTimeout(total=request_timeout) if request_timeout else None
        try:
            async with session.client.get(url, timeout=timeout) as response:
                if response.status != 200:
                    raise TelegramNotFound(
                        "download", response.status, self._scrub(f"cannot download {file_path!r}")
                    )
                async for chunk in response.content.iter_chunked(chunk_size):
                    yield chunk
        except _NETWORK_ERRORS as exc:
            raise TelegramNetworkError(
                "download", self._describe(exc, timeout or session.client_timeout)
            ) from None

    @overload
    async def download_file(
        self,
        file_path: str,
        destination: None = None,
        timeout: float | None = ...,
        chunk_size: int = ...,
        seek: bool = ...,
    ) -> io.BytesIO: ...
    @overload
    async def download_file(
        self,
        file_path: str,
        destination: str | os.PathLike[str],
        timeout: float | None = ...,
        chunk_size: int = ...,
        seek: bool = ...,
    ) -> Path: ...
    @overload
    async def download_file(
        self,
        file_path: str,
        destination: BinaryIO,
        timeout: float | None = ...,
        chunk_size: int = ...,
        seek: bool = ...,
    ) -> BinaryIO: ...

    async def download_file(
        self,
        file_path: str,
        destination: str | os.PathLike[str] | BinaryIO | None = None,
        timeout: float | None = 30,
        chunk_size: int = 65536,
        seek: bool = True,
    ) -> io.BytesIO | Path | BinaryIO:
        """Download a file that ``get_file`` named.

        Without ``destination``, into a new ``BytesIO``; to a path (a ``str`` or a
        ``PathLike``), written whole or not at all, returning the ``Path``; into a
        binary stream, returned. A stream (the new one too) is rewound to its start
        when ``seek`` is true, as aiogram does. ``timeout`` is in
        seconds for the whole download (``None``: the session's).
        """
        chunks = self.stream_file(file_path, chunk_size=chunk_size, request_timeout=timeout)
        if isinstance(destination, (str, os.PathLike)):
            path = Path(destination)
            fd, partial = create_partial(path)
            try:
                with os.fdopen(fd, "wb") as f:
                    async for chunk in chunks:
                        f.write(chunk)
                os.replace(partial, path)  # atomic; a symlink at path is replaced, not followed
            finally:
                partial.unlink(missing_ok=True)
            return path
        stream: BinaryIO = io.BytesIO() if destination is None else destination
        async for chunk in chunks:
            stream.write(chunk)
        stream.flush()
        if seek:
            stream.seek(0)
        return stream

    @overload
    async def download(
        self,
        file: str | Any,
        destination: None = None,
        timeout: float | None = ...,
        chunk_size: int = ...,
        seek: bool = ...,
    ) -> io.BytesIO: ...
    @overload
    async def download(
        self,
        file: str | Any,
        destination: str | os.PathLike[str],
        timeout: float | None = ...,
        chunk_size: int = ...,
        seek: bool = ...,
    ) -> Path: ...
    @overload
    async def download(
        self,
        file: str | Any,
        destination: BinaryIO,
        timeout: float | None = ...,
        chunk_size: int = ...,
        seek: bool = ...,
    ) -> BinaryIO: ...

    async def download(
        self,
        file: str | Any,
        destination: str | os.PathLike[str] | BinaryIO | None = None,
        timeout: float | None = 30,
        chunk_size: int = 65536,
        seek: bool = True,
    ) -> io.BytesIO | Path | BinaryIO:
        """``get_file`` + ``download_file`` for a file id or anything with ``file_id``
        (a ``PhotoSize``, a ``Document``, a ``File``...); the same destinations."""
        if isinstance(file, File) and file.file_path:
            info = file
        elif isinstance(file, str):
            info = await self.get_file(file)
        elif isinstance(getattr(file, "file_id", None), str):
            info = await self.get_file(file.file_id)
        else:
            raise TypeError(f"cannot download a {type(file).__name__}: pass a file id or a file")
        if not info.file_path:
            raise TelegramBadRequest("getFile", 400, "the file has no file_path to download")
        return await self.download_file(info.file_path, destination, timeout, chunk_size, seek)

    # -- lifetime -----------------------------------------------------------------------

    # ``close()`` is the Bot API's close (generated, as in aiogram); the HTTP session
    # closes with ``bot.session.close()``, on leaving ``async with bot`` or ``context()``

    async def _release_session(self) -> None:
        """Close the session if no other bot uses it (a bot's own always closes)."""
        users = _SESSION_USERS.get(self.session)
        if users is not None:
            users.pop(id(self), None)
        if self._own_session or not users:
            await self.session.close()

    @asynccontextmanager
    async def context(self, auto_close: bool = True) -> AsyncIterator[Bot]:
        """``async with bot.context(): ...``: the bot, its session closed on the way out
        if ``auto_close`` (aiogram's form of ``async with bot``)."""
        try:
            yield self
        finally:
            if auto_close:
                await self._release_session()

    async def __aenter__(self) -> Bot:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._release_session()


def _refuse(removed: dict[str, Any]) -> None:
    """aiogram 3.7 removed these from ``Bot()``; so does tgfast, with aiogram's advice."""
    unknown = sorted(set(removed) - set(_REMOVED))
    if unknown:
        raise TypeError(f"Bot() got unexpected keyword arguments: {', '.join(unknown)}")
    names = {"disable_web_page_preview": "link_preview_is_disabled"}
    spec = ", ".join(f"{names.get(k, k)}={v!r}" for k, v in removed.items())
    raise TypeError(
        f"Bot() does not take {', '.join(removed)}: use default=DefaultBotProperties({spec})"
    )
