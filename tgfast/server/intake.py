"""``UpdateIntake``: one webhook POST, from the request to the answer.

The path is kept short: address check, secret check, body read, decode,
``UpdateProcessor.submit``, answer. By default the answer is an empty 200 as soon as
the update is queued (Telegram sends the next one without waiting for the handler).
In reply mode the request waits for the handler and answers with the method object it
returned, so that Telegram performs the call; a handler slower than ``reply_timeout``
gets an empty 200 and its method is sent by a normal call when it is done.

What is refused, and why Telegram behaves well with it: 403 for a client outside
``allowed_ips`` (its real address: see ``addresses``) or a wrong secret, 413 for a
body over ``max_body_size``, 400 for a body that is not an update or cannot be read,
say a wrong ``Content-Encoding`` (logged with the reason, once a minute per cause),
408 for a body slower than ``body_timeout``, 405 for a method other than POST, and
503 with ``Retry-After`` while the processor is full or draining, or while the bodies
being read hold ``read_budget`` bytes: Telegram delivers that update again later. The
503s name ``retry_after`` to twice it in turn (``retry_after_spread``), so that what is
refused together does not come back together.

One class for every way tgfast takes webhooks: ``WebhookServer`` (the ``tgfast``
command's server) is one, and the aiogram-shaped request handlers of
``tgfast.webhook.aiohttp_server`` route their POSTs to one, so that both get the
same bounds, ordering and dedup.
"""

from __future__ import annotations

import asyncio
import hmac
import re
from typing import TYPE_CHECKING, Any

from aiohttp import web
from aiohttp.web_protocol import RequestPayloadError

from .._logging import get_logger
from ..client.encoding import dumps
from ..decoding import decode_update
from .addresses import AddressPolicy
from .connections import LogLimiter, MemoryReclaimer, one_line
from .metrics import Rejected
from .processing import Admission, UpdateProcessor

if TYPE_CHECKING:
    from ..client import Bot
    from ..methods.base import TelegramMethod

__all__ = [
    "DEFAULT_BODY_TIMEOUT",
    "DEFAULT_MAX_BODY_SIZE",
    "DEFAULT_READ_BUDGET",
    "DEFAULT_REPLY_TIMEOUT",
    "SECRET_HEADER",
    "UpdateIntake",
    "retry_after_spread",
    "valid_secret_token",
]

log = get_logger("tgfast.server")

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
DEFAULT_MAX_BODY_SIZE = 1024 * 1024
"""Bytes. An update is a few kilobytes; the largest (a long text quoting another) far
below this."""
DEFAULT_BODY_TIMEOUT = 30.0
"""Seconds a body may take to arrive once its head has (nginx: 60 s between two reads)."""
DEFAULT_READ_BUDGET = 8 * 1024 * 1024
"""Bytes of bodies being read at once (announced length, or ``max_body_size``); beyond,
503. A body already received whole costs nothing against it."""
DEFAULT_REPLY_TIMEOUT = 2.0
"""Seconds a reply-mode request waits for its handler before answering without a method."""

# Telegram's rule for secret_token: 1-256 characters A-Z, a-z, 0-9, _ and -.
_SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")


def retry_after_spread(least: int) -> tuple[int, ...]:
    """The ``Retry-After`` values (whole seconds: HTTP has no others) that 503s name in
    turn: from ``least`` to twice it, at most four of them, ``least`` first.

    Under overload a server refuses a whole second's surplus; naming one wait would
    bring it all back in one wave a second later, to be refused again with the next
    second's. Spread over ``least``..``2 * least`` the refused updates come back a few
    at a time, and a third fewer of them a second (a mean wait of 1.5 ``least``).
    """
    if least < 1:
        return (max(0, least),)
    steps = min(least, 3)
    return tuple(sorted({least + round(i * least / steps) for i in range(steps + 1)}))


def valid_secret_token(secret: str) -> bool:
    """Whether Telegram's setWebhook would take ``secret`` as a ``secret_token``."""
    return _SECRET.fullmatch(secret) is not None


class UpdateIntake:
    """Take webhook POSTs for ``processor`` (and its bot); ``_on_update`` is the route
    handler. See the module docstring for what is answered when.

    ``addresses`` (an ``AddressPolicy`` with ``allowed_ips``) restricts who may post;
    ``secret_refused_status`` is the status of a wrong secret (403; aiogram's handlers
    answer 401).
    """

    def __init__(
        self,
        processor: UpdateProcessor,
        *,
        secret_token: str | None = None,
        reply_mode: bool = False,
        reply_timeout: float = DEFAULT_REPLY_TIMEOUT,
        max_body_size: int = DEFAULT_MAX_BODY_SIZE,
        retry_after: int = 1,
        body_timeout: float = DEFAULT_BODY_TIMEOUT,
        read_budget: int = DEFAULT_READ_BUDGET,
        addresses: AddressPolicy | None = None,
        secret_refused_status: int = 403,
    ) -> None:
        if secret_token is not None and not valid_secret_token(secret_token):
            raise ValueError("secret_token: 1-256 characters of A-Z, a-z, 0-9, _ and -")
        self.processor = processor
        self.bot: Bot = processor.bot
        self.metrics = processor.metrics
        self.reply_mode = reply_mode
        self.reply_timeout = reply_timeout
        self.max_body_size = max_body_size
        self.body_timeout = body_timeout
        self.read_budget = max(read_budget, max_body_size)
        self._reading = 0  # bytes reserved by the bodies being read
        self._limiter = LogLimiter(log)
        self._reclaimer = MemoryReclaimer()
        self.retry_after = str(int(retry_after))
        self.retry_after_values = tuple(str(w) for w in retry_after_spread(int(retry_after)))
        """What the 503s' ``Retry-After`` names in turn: ``retry_after_spread``."""
        self._turn = 0
        self.secret_token = secret_token
        self._secret = None if secret_token is None else secret_token.encode()
        self._secret_refused = secret_refused_status
        self.addresses = addresses or AddressPolicy()
        """Who a request's client is (``client_of``) and the allow-list."""
        allowed = self.addresses.allowed_ips
        self._allows = None if allowed is None else self.addresses.allows_request
        self._forbidden_logged = False

    # -- requests ----------------------------------------------------------------------

    async def _on_update(self, request: web.Request) -> web.StreamResponse:
        rejected = self.metrics.rejected
        allows = self._allows
        if allows is not None and not allows(request):
            return self._forbidden(request)
        if request.method != "POST":
            rejected[Rejected.METHOD] += 1
            return web.Response(status=405, headers={"Allow": "POST"})
        secret = self._secret
        if secret is not None:
            given = request.headers.get(SECRET_HEADER)
            if given is None or not hmac.compare_digest(
                given.encode("utf-8", "surrogateescape"), secret
            ):
                rejected[Rejected.SECRET] += 1
                return web.Response(status=self._secret_refused)
        processor = self.processor
        if processor.closed:
            refused = Rejected.DRAINING
        elif processor.lagging:  # the loop runs late: the CPU is not keeping up
            refused = Rejected.LAGGING
        elif processor.in_flight >= processor.in_flight_limit:
            refused = Rejected.OVERLOADED
        else:
            refused = None
        if refused is not None:
            rejected[refused] += 1
            return self._unavailable()
        length = request.content_length
        if length is not None and length > self.max_body_size:
            rejected[Rejected.TOO_LARGE] += 1
            self._reclaimer.note(length)  # aiohttp drains it after the answer
            return web.Response(status=413)
        if request.content.is_eof():  # the whole body came with the head: the usual case
            try:
                body = await request.read()
            except Exception as exc:  # noqa: BLE001 - every failure to read a body is a 4xx
                return self._unreadable(request, exc)
        else:
            reserved = self.max_body_size if length is None else length
            if self._reading + reserved > self.read_budget:
                rejected[Rejected.READ_BUDGET] += 1
                self._reclaimer.note(reserved)
                return self._unavailable()
            self._reading += reserved
            try:
                body = await asyncio.wait_for(self._read_in_chunks(request), self.body_timeout)
            except Exception as exc:  # noqa: BLE001 - every failure to read a body is a 4xx
                self._reclaimer.note(reserved)
                return self._unreadable(request, exc)
            finally:
                self._reading -= reserved
        try:
            update = decode_update(body)
        except Exception as exc:  # noqa: BLE001 - DecodeError, or anything odd: a 400, never a 500
            rejected[Rejected.BAD_BODY] += 1
            log.warning("webhook: refused a body that is not an update (%d bytes): %s",
                        len(body), exc)  # fmt: skip
            return web.Response(status=400, text=f"not an update: {exc}")
        if not self.reply_mode:
            if (await processor.submit(update, None, body)).taken:
                return web.Response()
            return self._unavailable()
        waiter: asyncio.Future[TelegramMethod[Any] | None] = (
            asyncio.get_running_loop().create_future()
        )
        admission = await processor.submit(update, waiter, body)
        if admission is not Admission.ACCEPTED:
            return web.Response() if admission.taken else self._unavailable()
        await asyncio.wait((waiter,), timeout=self.reply_timeout)
        if not waiter.done():
            waiter.cancel()  # the processor sends the method itself when it comes
            return web.Response()
        method = waiter.result()
        if method is None:
            return web.Response()
        defaults = self.bot.defaults
        reply = dumps(method.as_webhook_reply(defaults), defaults)
        return web.Response(body=reply, content_type="application/json")

    async def _read_in_chunks(self, request: web.Request) -> bytes:
        """The body of a request that did not come whole with its head.

        Unlike ``request.read()`` this keeps aiohttp's read-ahead at its default (the
        connection is paused beyond a few chunks) and grows no contiguous buffer: the
        chunks are joined once, at the end, so an aborted upload leaves only
        chunk-sized blocks to the allocator, which it can reuse.
        """
        content = request.content
        chunks: list[bytes] = []
        size, limit = 0, self.max_body_size
        while chunk := await content.readany():
            size += len(chunk)
            if size > limit:
                raise web.HTTPRequestEntityTooLarge(limit, size)
            chunks.append(chunk)
        return b"".join(chunks)

    def _unreadable(self, request: web.Request, exc: Exception) -> web.Response:
        """The answer to a body that could not be read, counted and logged (rate-limited)."""
        # The exception is also kept by the request's payload, and its traceback holds
        # the frames (and the partial body) of the read: a cycle that would keep up to
        # max_body_size alive until a full collection. Dropping the traceback breaks it.
        exc.__traceback__ = None
        rejected = self.metrics.rejected
        if isinstance(exc, web.HTTPRequestEntityTooLarge):
            rejected[Rejected.TOO_LARGE] += 1
            return web.Response(status=413)
        if isinstance(exc, asyncio.TimeoutError):
            rejected[Rejected.BODY_TIMEOUT] += 1
            self._limiter.warning(
                "body_timeout", "webhook: a body from %s did not arrive within %ss "
                "(body_timeout), answered 408", request.remote, self.body_timeout,
            )  # fmt: skip
            response = web.Response(status=408)
            response.force_close()
            return response
        if isinstance(exc, RequestPayloadError) or request.transport is not None:
            rejected[Rejected.BAD_BODY] += 1
            cause = exc.__cause__ or exc
            self._limiter.warning(
                f"bad_body:{type(cause).__name__}", "webhook: refused a body that cannot "
                "be read (Content-Encoding %s): %s", one_line(
                    request.headers.get("Content-Encoding", "none")), one_line(str(cause)),
            )  # fmt: skip
            response = web.Response(status=400, text="the body cannot be read")
        else:
            rejected[Rejected.ABORTED] += 1  # the client is gone: nobody reads the answer
            response = web.Response(status=400)
        response.force_close()  # what is left of the body cannot be skipped reliably
        return response

    def _forbidden(self, request: web.Request) -> web.Response:
        self.metrics.rejected[Rejected.FORBIDDEN_IP] += 1
        if not self._forbidden_logged:  # once: a missing --trusted-proxy refuses everything
            self._forbidden_logged = True
            log.warning("webhook: refused a request from %s (peer %s), not in allowed_ips; "
                        "further refusals are only counted in /metrics",
                        self.addresses.client_of(request), request.remote)  # fmt: skip
        return web.Response(status=403)

    def _refusal_turn(self) -> int:
        """Which of ``retry_after_values`` the next 503 names."""
        turn = self._turn
        self._turn = (turn + 1) % len(self.retry_after_values)
        return turn

    def _unavailable(self) -> web.Response:
        wait = self.retry_after_values[self._refusal_turn()]
        return web.Response(status=503, headers={"Retry-After": wait})
