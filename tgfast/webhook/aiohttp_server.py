"""aiogram's aiohttp request handlers, running on tgfast's webhook path.

```py
app = web.Application()
SimpleRequestHandler(dispatcher=dp, bot=bot, secret_token=SECRET).register(app, path="/webhook")
setup_application(app, dp, bot=bot)
web.run_app(app, host="127.0.0.1", port=8080)
```

Each bot's POSTs go to an ``UpdateIntake`` over an ``UpdateProcessor``, the same code
``tgfast webhook`` serves with: a chat's updates are handled in order, at most
``max_in_flight`` are taken at once (beyond, 503 and Telegram delivers again), a
redelivered update is handled once, the secret is compared in constant time and the
body is bounded. A wrong secret is 401, as in aiogram. With ``handle_in_background``
off the request waits for the handler (up to ``reply_timeout``) and answers with the
method object it returned, for Telegram to perform; an update taken without a method to
answer (in the background, or a handler that returned none) is answered ``{}``, as
aiogram answers. A method that uploads a file is not put in the answer (aiogram writes
a multipart one): tgfast calls it, so its result and any error are known and logged.

On the application's shutdown the handlers stop taking updates (503) and wait for the
ones taken, before ``setup_application``'s shutdown callbacks run; the bots' sessions
are closed on cleanup.
"""

from __future__ import annotations

import asyncio
import hmac
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, Literal

from aiohttp import web

from .._logging import get_logger
from ..client import Bot
from ..errors import TgfastError
from ..server.addresses import FORWARDED_FOR, AddressPolicy, IPNetwork
from ..server.intake import (
    DEFAULT_MAX_BODY_SIZE,
    SECRET_HEADER,
    UpdateIntake,
    valid_secret_token,
)
from ..server.processing import DEFAULT_MAX_IN_FLIGHT, Concurrency, UpdateProcessor
from ..server.seen import SeenUpdates
from .security import IPFilter

if TYPE_CHECKING:
    from ..dispatcher import Dispatcher

__all__ = [
    "DEFAULT_HANDLER_REPLY_TIMEOUT",
    "LOCAL_PROXIES",
    "BaseRequestHandler",
    "SimpleRequestHandler",
    "TokenBasedRequestHandler",
    "check_ip",
    "ip_filter_middleware",
    "setup_application",
]

log = get_logger("tgfast.webhook")

DEFAULT_HANDLER_REPLY_TIMEOUT = 55.0
"""Seconds a ``handle_in_background=False`` request waits for its handler (aiogram's
``feed_webhook_update`` timeout); a slower handler's method is sent by a normal call."""

LOCAL_PROXIES: tuple[str, ...] = (
    "127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7",
)  # fmt: skip
"""Peers whose ``X-Forwarded-For`` ``ip_filter_middleware`` believes by default: a
reverse proxy on this machine or on a private network."""

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


_HANDLERS: web.AppKey[list[BaseRequestHandler]] = web.AppKey("tgfast_webhook_handlers")


# -- application wiring -------------------------------------------------------------------


def setup_application(app: web.Application, dispatcher: Dispatcher, /, **kwargs: Any) -> None:
    """Run ``dispatcher``'s startup callbacks when ``app`` starts and its shutdown ones when
    it stops, with ``app`` and ``kwargs`` (``bot=bot``...) as workflow data.

    On shutdown the request handlers registered on ``app`` are drained first, so the
    shutdown callbacks see no update still running.
    """
    data = {"app": app, **kwargs}

    async def on_startup(app: web.Application) -> None:
        await dispatcher.emit_startup(**data)

    async def on_shutdown(app: web.Application) -> None:
        for handler in app.get(_HANDLERS, ()):
            await handler.drain()
        await dispatcher.emit_shutdown(**data)

    app.on_startup.append(on_startup)
    app.on_shutdown.append(on_shutdown)


def check_ip(
    ip_filter: IPFilter,
    request: web.BaseRequest,
    trusted_proxies: Iterable[str | IPNetwork] = LOCAL_PROXIES,
) -> tuple[str, bool]:
    """``(client address, allowed)`` for a request.

    The client is the peer, or, when the peer is one of ``trusted_proxies``, the
    right-most address in ``X-Forwarded-For`` that is not (what a proxy appends; the
    left end is whatever the client wrote).
    """
    policy = AddressPolicy(trusted_proxies)
    client = policy.client_address(request.remote, request.headers.getall(FORWARDED_FOR, ()))
    if client is None:
        return "", False
    return client, ip_filter.check(client)


def ip_filter_middleware(
    ip_filter: IPFilter, *, trusted_proxies: Iterable[str | IPNetwork] = LOCAL_PROXIES
) -> Callable[[web.Request, Handler], Awaitable[web.StreamResponse]]:
    """An aiohttp middleware answering 401 to a client ``ip_filter`` does not allow
    (``web.Application(middlewares=[ip_filter_middleware(IPFilter.default())])``).

    ``X-Forwarded-For`` is believed from ``trusted_proxies`` only (a proxy on this
    machine or a private network by default): from anyone else it could be forged.
    """
    policy = AddressPolicy(trusted_proxies)

    @web.middleware
    async def ip_filter_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        client = policy.client_address(request.remote, request.headers.getall(FORWARDED_FOR, ()))
        if client is None or not ip_filter.check(client):
            log.warning("webhook: refused a request from an address not allowed: %s", client)
            raise web.HTTPUnauthorized()
        return await handler(request)

    return ip_filter_middleware


# -- request handlers ---------------------------------------------------------------------


class BaseRequestHandler(ABC):
    """Takes a bot's webhook POSTs into ``dispatcher``; subclasses say which bot.

    ``handle_in_background`` (aiogram's switch): answer as soon as the update is taken,
    rather than waiting for the handler to answer with its method object. ``data`` is
    workflow data for every update. The keyword-only options are tgfast's processing
    model, per bot: ``concurrency``, ``max_in_flight``, ``seen`` (the dedup store),
    ``max_body_size``, ``reply_timeout``.
    """

    def __init__(
        self,
        dispatcher: Dispatcher,
        handle_in_background: bool = False,
        *,
        concurrency: Concurrency = "chat",
        max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
        seen: SeenUpdates | None | Literal["memory"] = "memory",
        max_body_size: int = DEFAULT_MAX_BODY_SIZE,
        reply_timeout: float = DEFAULT_HANDLER_REPLY_TIMEOUT,
        **data: Any,
    ) -> None:
        self.dispatcher = dispatcher
        self.handle_in_background = handle_in_background
        self.data = data
        self.concurrency: Concurrency = concurrency
        self.max_in_flight = max_in_flight
        self.seen = seen
        self.max_body_size = max_body_size
        self.reply_timeout = reply_timeout
        self._intakes: dict[Bot, UpdateIntake] = {}
        # a subclass with its own verify_secret is asked; ours check in the intake
        self._asks_verify_secret = type(self).verify_secret not in _OWN_SECRET_CHECKS

    def register(self, app: web.Application, /, path: str, **kwargs: Any) -> None:
        """Route POSTs to ``path`` here; drain on ``app``'s shutdown, close on cleanup."""
        if _HANDLERS not in app:
            app[_HANDLERS] = []
        app[_HANDLERS].append(self)
        app.on_shutdown.append(self._on_shutdown)
        app.on_cleanup.append(self._on_cleanup)
        app.router.add_route("POST", path, self.handle, **kwargs)

    @abstractmethod
    async def resolve_bot(self, request: web.Request) -> Bot:
        """The bot a request is for."""

    @abstractmethod
    def verify_secret(self, telegram_secret_token: str, bot: Bot) -> bool:
        """Whether the ``X-Telegram-Bot-Api-Secret-Token`` header is right for ``bot``."""

    @abstractmethod
    async def close(self) -> None:
        """Close the bots' sessions."""

    def secret_for(self, bot: Bot) -> str | None:
        """The secret the intake of ``bot`` checks (in constant time), None for none."""
        return None

    def intake(self, bot: Bot) -> UpdateIntake:
        """The intake (and processor) taking ``bot``'s updates, made on first use."""
        intake = self._intakes.get(bot)
        if intake is None:
            processor = UpdateProcessor(
                self.dispatcher, bot, concurrency=self.concurrency,
                max_in_flight=self.max_in_flight, seen=self.seen, data=self.data,
            )  # fmt: skip
            intake = self._intakes[bot] = UpdateIntake(
                processor, secret_token=self.secret_for(bot),
                reply_mode=not self.handle_in_background, reply_timeout=self.reply_timeout,
                max_body_size=self.max_body_size, secret_refused_status=401,
            )  # fmt: skip
        return intake

    async def handle(self, request: web.Request) -> web.StreamResponse:
        """The aiohttp route handler."""
        bot = await self.resolve_bot(request)
        if self._asks_verify_secret and not self.verify_secret(
            request.headers.get(SECRET_HEADER, ""), bot
        ):
            return web.Response(body="Unauthorized", status=401)
        intake = self._intakes.get(bot)
        if intake is None:
            intake = self.intake(bot)
            await intake.processor.start()
        response = await intake._on_update(request)
        if response.status == 200 and not getattr(response, "body", None):
            return web.Response(body=b"{}", content_type="application/json")  # as aiogram
        return response

    __call__ = handle

    async def drain(self) -> None:
        """Take no more updates (503) and wait for the ones taken."""
        await asyncio.gather(*(intake.processor.drain() for intake in self._intakes.values()))

    async def _on_shutdown(self, app: web.Application) -> None:
        await self.drain()

    async def _on_cleanup(self, app: web.Application) -> None:
        await self.close()


class SimpleRequestHandler(BaseRequestHandler):
    """One bot at one path; ``secret_token`` (if any) must come with every update."""

    def __init__(
        self,
        dispatcher: Dispatcher,
        bot: Bot,
        handle_in_background: bool = True,
        secret_token: str | None = None,
        **data: Any,
    ) -> None:
        if secret_token and not valid_secret_token(secret_token):
            raise ValueError("secret_token: 1-256 characters of A-Z, a-z, 0-9, _ and -")
        super().__init__(dispatcher, handle_in_background, **data)
        self.bot = bot
        self.secret_token = secret_token

    def verify_secret(self, telegram_secret_token: str, bot: Bot) -> bool:
        if not self.secret_token:
            return True
        return hmac.compare_digest(
            telegram_secret_token.encode("utf-8", "surrogateescape"), self.secret_token.encode()
        )

    def secret_for(self, bot: Bot) -> str | None:
        return self.secret_token or None

    async def resolve_bot(self, request: web.Request) -> Bot:
        return self.bot

    async def close(self) -> None:
        await self.bot.session.close()


class TokenBasedRequestHandler(BaseRequestHandler):
    """Many bots, one dispatcher: the token is in the path (``/webhook/{bot_token}``) and
    each token gets its own ``Bot(token, **bot_settings)``, made on its first update.

    The token in the URL can end up in a proxy's or aiohttp's access log: keep those
    off, or prefer one ``SimpleRequestHandler`` per bot.
    """

    def __init__(
        self,
        dispatcher: Dispatcher,
        handle_in_background: bool = True,
        bot_settings: dict[str, Any] | None = None,
        **data: Any,
    ) -> None:
        super().__init__(dispatcher, handle_in_background, **data)
        self.bot_settings: dict[str, Any] = {} if bot_settings is None else bot_settings
        self.bots: dict[str, Bot] = {}

    def register(self, app: web.Application, /, path: str, **kwargs: Any) -> None:
        if "{bot_token}" not in path:
            raise ValueError("the path must contain '{bot_token}'")
        super().register(app, path, **kwargs)

    def verify_secret(self, telegram_secret_token: str, bot: Bot) -> bool:
        return True

    async def resolve_bot(self, request: web.Request) -> Bot:
        token = request.match_info["bot_token"]
        bot = self.bots.get(token)
        if bot is None:
            try:
                bot = Bot(token, **self.bot_settings)
            except TgfastError:  # not a token: no such bot here
                raise web.HTTPNotFound() from None
            self.bots[token] = bot
        return bot

    async def close(self) -> None:
        for bot in self.bots.values():
            await bot.session.close()


_OWN_SECRET_CHECKS = (SimpleRequestHandler.verify_secret, TokenBasedRequestHandler.verify_secret)
