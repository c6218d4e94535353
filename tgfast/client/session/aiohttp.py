"""``AiohttpSession`` (tgfast's ``BotSession``): one aiohttp ``ClientSession`` with a
keep-alive connection pool, behind an optional proxy or proxy chain."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

import aiohttp
from aiohttp import BasicAuth
from yarl import URL

from ..telegram import TelegramAPIServer
from .base import DEFAULT_TIMEOUT, BaseSession, TelegramType

if TYPE_CHECKING:
    from ...methods.base import TelegramMethod
    from ..bot import Bot

__all__ = ["AiohttpSession", "BotSession", "ProxyType"]

_S = TypeVar("_S", bound="AiohttpSession")

_ProxyBasic: TypeAlias = "str | tuple[str, BasicAuth]"
ProxyType: TypeAlias = "_ProxyBasic | Iterable[_ProxyBasic]"
"""A proxy URL, a URL with its ``BasicAuth``, or a chain of them (tried in order)."""

_NATIVE = ("http", "https")
_SOCKS_EXTRA = "SOCKS proxies and proxy chains need aiohttp-socks: pip install 'tgfast[socks]'"


class AiohttpSession(BaseSession):
    """The pool a ``Bot`` sends through: ``Bot(token, session=AiohttpSession(...))``.

    A ``Bot`` makes its own unless given one; several bots may share one (the pool
    is closed when the last bot using it closes, or by ``close()``). The aiohttp
    session is created on first use, inside the running loop, and again after a
    ``close()``.

    ``proxy`` is an ``http(s)://`` URL (handled by aiohttp itself), a ``socks4://`` /
    ``socks5://`` URL, either with its ``BasicAuth`` as a ``(url, auth)`` pair, or a
    list of them for a chain; SOCKS and chains need the ``socks`` extra
    (aiohttp-socks). ``limit`` bounds the open connections; ``timeout`` is in seconds.

    A ``Bot`` sends through the pool directly; once a request middleware is added
    (``session.middleware(...)``), or in a subclass that overrides ``make_request``,
    every call goes through ``make_request`` as a method object instead.
    """

    def __init__(
        self,
        proxy: ProxyType | None = None,
        limit: int = 100,
        *,
        api: TelegramAPIServer | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        limit_per_host: int = 0,
        keepalive_timeout: float = 15.0,
        dns_ttl: int = 300,
        json_loads: Callable[..., Any] | None = None,
        json_dumps: Callable[..., Any] | None = None,
    ) -> None:
        super().__init__(
            api=api,
            json_loads=json.loads if json_loads is None else json_loads,
            json_dumps=json.dumps if json_dumps is None else json_dumps,
            timeout=timeout,
        )
        self.limit = limit
        self.limit_per_host = limit_per_host
        self.keepalive_timeout = keepalive_timeout
        self.dns_ttl = dns_ttl
        self._client: aiohttp.ClientSession | None = None
        self._closing: set[asyncio.Task[None]] = set()
        self._proxy: ProxyType | None = None
        self._connector: Callable[..., aiohttp.BaseConnector] = aiohttp.TCPConnector
        self._connector_args: dict[str, Any] = {}
        self._native_proxy: str | None = None
        self._native_auth: BasicAuth | None = None
        if proxy is not None:
            self._set_proxy(proxy)

    # -- timeout: seconds as aiogram has it, an aiohttp ClientTimeout for the requests ----

    @property
    def timeout(self) -> float:
        """Seconds a call may take (a long poll adds its own ``timeout``)."""
        return self._timeout

    @timeout.setter
    def timeout(self, seconds: float) -> None:
        self._timeout = seconds
        self.client_timeout = aiohttp.ClientTimeout(total=seconds)

    # -- proxy ----------------------------------------------------------------------------

    @property
    def proxy(self) -> ProxyType | None:
        return self._proxy

    @proxy.setter
    def proxy(self, proxy: ProxyType | None) -> None:
        """A new proxy applies to the next request: the open pool is closed."""
        self._connector, self._connector_args = aiohttp.TCPConnector, {}
        self._native_proxy = self._native_auth = None
        self._proxy = None
        if proxy is not None:
            self._set_proxy(proxy)
        self._retire()

    def _set_proxy(self, proxy: ProxyType) -> None:
        if isinstance(proxy, str) or (
            isinstance(proxy, tuple) and len(proxy) == 2 and isinstance(proxy[1], BasicAuth)
        ):
            url, auth = (proxy, None) if isinstance(proxy, str) else proxy
            if URL(url).scheme in _NATIVE:
                self._native_proxy, self._native_auth = url, auth
            else:
                socks = _socks()
                self._connector = socks.ProxyConnector
                self._connector_args = _proxy_info(url, auth)
        else:
            socks = _socks()
            chain = [(p, None) if isinstance(p, str) else p for p in proxy]
            if not chain:
                raise ValueError("an empty proxy chain")
            self._connector = socks.ChainProxyConnector
            infos = [socks.ProxyInfo(**_proxy_info(url, auth)) for url, auth in chain]
            self._connector_args = {"proxy_infos": infos}
        self._proxy = proxy

    # -- the pool -------------------------------------------------------------------------

    @property
    def client(self) -> aiohttp.ClientSession:
        """The aiohttp session, opened now if it is not open yet."""
        client = self._client
        if client is None or client.closed:
            connector = self._connector(
                limit=self.limit,
                limit_per_host=self.limit_per_host,
                keepalive_timeout=self.keepalive_timeout,
                ttl_dns_cache=self.dns_ttl,
                **self._connector_args,
            )
            client = self._client = aiohttp.ClientSession(
                connector=connector,
                timeout=self.client_timeout,
                proxy=self._native_proxy,
                proxy_auth=self._native_auth,
            )
        return client

    async def create_session(self) -> aiohttp.ClientSession:
        """The aiohttp session (aiogram's name for ``client``)."""
        return self.client

    @property
    def closed(self) -> bool:
        return self._client is None or self._client.closed

    async def __aenter__(self: _S) -> _S:
        """``async with AiohttpSession() as session``: the pool opens here, as aiogram's
        does (``create_session``), and closes on the way out."""
        await self.create_session()
        return self

    async def close(self) -> None:
        """Close the pool; a later call opens a new one."""
        client, self._client = self._client, None
        if client is not None and not client.closed:
            await client.close()
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)

    def _retire(self) -> None:
        """Close the open pool in the background: the next request opens a new one."""
        client, self._client = self._client, None
        if client is None or client.closed:
            return
        try:
            task = asyncio.get_running_loop().create_task(client.close())
        except RuntimeError:  # no loop: nothing can be open in it; drop the reference
            return
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def make_request(
        self, bot: Bot, method: TelegramMethod[TelegramType], timeout: float | None = None
    ) -> TelegramType:
        """Send ``method`` through this pool with ``bot``'s pipeline (rate limits,
        retries, decoding): what ``await bot(method)`` does without middlewares."""
        return await bot._call(
            method.__api_method__,
            method.build(bot.defaults),
            method.__tg_returns__,
            timeout,
            method.__uploads__,
            direct=True,
            via=self,
        )

    async def stream_content(
        self,
        url: str,
        headers: dict[str, Any] | None = None,
        timeout: float = 30,
        chunk_size: int = 65536,
        raise_for_status: bool = True,
    ) -> AsyncGenerator[bytes, None]:
        """The body at ``url``, in chunks (aiogram's download primitive)."""
        async with self.client.get(
            url,
            headers=headers,
            timeout=aiohttp.ClientTimeout(total=timeout),
            raise_for_status=raise_for_status,
        ) as response:
            async for chunk in response.content.iter_chunked(chunk_size):
                yield chunk

    def __repr__(self) -> str:
        proxy = "" if self._proxy is None else ", proxy=<set>"
        return f"{type(self).__name__}(limit={self.limit}, timeout={self.timeout}{proxy})"


_MAKE_REQUEST = AiohttpSession.make_request

BotSession = AiohttpSession
"""tgfast's earlier name for the session."""


def _socks() -> Any:
    try:
        import aiohttp_socks
    except ImportError:
        raise ImportError(_SOCKS_EXTRA, name="aiohttp_socks") from None
    return aiohttp_socks


def _proxy_info(url: str, auth: BasicAuth | None) -> dict[str, Any]:
    """aiohttp-socks' connector arguments for one proxy; names resolved by the proxy."""
    proxy_type, host, port, username, password = _socks().utils.parse_proxy_url(url)
    if auth is not None:
        username, password = auth.login, auth.password
    return {
        "proxy_type": proxy_type,
        "host": host,
        "port": port,
        "username": username,
        "password": password,
        "rdns": True,
    }
