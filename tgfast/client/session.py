"""Where calls go (``TelegramServer``) and the pooled HTTP session they go through."""

from __future__ import annotations

import os
from dataclasses import dataclass
from types import TracebackType

import aiohttp
from yarl import URL

__all__ = ["TELEGRAM", "BotSession", "TelegramServer", "check_base_url"]


def check_base_url(base: str) -> str:
    """``base`` if it can be a Bot API server's address; a ``ValueError`` saying why
    not otherwise (a bracket left open, a port out of range, no host, not http)."""
    try:
        url = URL(base)
        port = url.port
    except (ValueError, TypeError) as exc:
        raise ValueError(f"not a valid URL: {base!r} ({exc})") from None
    if url.scheme not in ("http", "https"):
        raise ValueError(f"not an http(s) URL: {base!r}")
    if not url.host:
        raise ValueError(f"no host in {base!r}")
    if port is not None and not 0 < port < 65536:
        raise ValueError(f"port out of range 1-65535 in {base!r}")
    if url.query_string or url.fragment:
        raise ValueError(f"a base URL has no query or fragment: {base!r}")
    return base


@dataclass(frozen=True, slots=True)
class TelegramServer:
    """A Bot API server: Telegram's, a local ``telegram-bot-api``, a balancer, a fake.

    With ``local=True`` (a local server started with ``--local``) ``getFile`` answers
    with absolute paths on this machine, and downloads read them from disk, but only
    inside ``local_dir`` (the server's ``--dir``): the answer alone does not decide
    which file of this machine is read. A ``base`` that is not an http(s) URL with a
    host and a valid port is a ``ValueError`` here, not a failure at the first call.
    """

    base: str = "https://api.telegram.org"
    local: bool = False
    local_dir: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "base", check_base_url(self.base).rstrip("/"))
        if self.local and not self.local_dir:
            raise ValueError(
                "TelegramServer(local=True) needs local_dir, the local Bot API server's "
                "--dir: files are read from there and nowhere else"
            )
        if self.local_dir is not None:
            object.__setattr__(self, "local_dir", os.fspath(self.local_dir))

    def api_url(self, token: str, method: str) -> str:
        return f"{self.base}/bot{token}/{method}"

    def file_url(self, token: str, file_path: str) -> str:
        return f"{self.base}/file/bot{token}/{file_path.lstrip('/')}"


TELEGRAM = TelegramServer()


class BotSession:
    """One aiohttp ``ClientSession`` with a keep-alive connection pool.

    A ``Bot`` makes its own unless given one; pass the same ``BotSession`` to several
    bots to share the pool, and close it yourself (a bot closes only a session it
    made). The aiohttp session is created on first use, inside the running loop.
    """

    def __init__(
        self,
        *,
        limit: int = 100,
        limit_per_host: int = 0,
        keepalive_timeout: float = 15.0,
        dns_ttl: int = 300,
        timeout: float = 60.0,
        proxy: str | None = None,
    ) -> None:
        self.limit = limit
        self.limit_per_host = limit_per_host
        self.keepalive_timeout = keepalive_timeout
        self.dns_ttl = dns_ttl
        self.timeout = aiohttp.ClientTimeout(total=timeout)
        self.proxy = proxy
        self._client: aiohttp.ClientSession | None = None

    @property
    def client(self) -> aiohttp.ClientSession:
        """The aiohttp session, opened now if it is not open yet."""
        client = self._client
        if client is None or client.closed:
            connector = aiohttp.TCPConnector(
                limit=self.limit,
                limit_per_host=self.limit_per_host,
                keepalive_timeout=self.keepalive_timeout,
                ttl_dns_cache=self.dns_ttl,
            )
            client = self._client = aiohttp.ClientSession(
                connector=connector, timeout=self.timeout, proxy=self.proxy
            )
        return client

    @property
    def closed(self) -> bool:
        return self._client is None or self._client.closed

    async def close(self) -> None:
        """Close the pool; a later call opens a new one."""
        client, self._client = self._client, None
        if client is not None and not client.closed:
            await client.close()

    async def __aenter__(self) -> BotSession:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
