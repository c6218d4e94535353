"""Making clients: ``client_for_url`` (what every ``from_url`` makes), ``connect_redis``
(redis-py, fail-fast settings), ``wire_for`` (the ``RespClient`` a part sends its
commands through), ``Script`` (Lua by SHA1), and the small helpers every part shares
(``ttl_ms``, ``redacted_url``, ``close_client``).

redis-py is optional (the ``tgfast[redis]`` extra): every command tgfast sends goes
through its own ``RespClient``, and without redis-py a ``from_url`` makes one of those
from the URL. A ``redis+sentinel://`` URL always makes a ``RespClient`` (redis-py has no
URL form for Sentinel)."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeAlias

from .errors import RedisUnavailable
from .resp_client import Arg, RespClient
from .sentinel import SENTINEL_SCHEMES, parse_sentinel_url

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = [
    "REDIS_EXTRA_HINT",
    "AnyRedis",
    "Script",
    "check_redis_url",
    "client_for_url",
    "close_client",
    "connect_redis",
    "redacted_url",
    "ttl_ms",
    "wire_for",
]

REDIS_EXTRA_HINT = "pip install 'tgfast[redis]'"
"""How to get redis-py, for the errors of what needs it."""

AnyRedis: TypeAlias = "Redis | RespClient"
"""What tgfast's Redis parts take: a redis-py asyncio client (its settings are copied
into a ``RespClient`` of the part's own) or a ``RespClient`` to share."""


def ttl_ms(name: str, ttl: float | timedelta | None) -> int:
    """A TTL in whole milliseconds (0 for none); a TTL that is not positive is an error."""
    if ttl is None:
        return 0
    seconds = ttl.total_seconds() if isinstance(ttl, timedelta) else float(ttl)
    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"{name} must be a positive number of seconds or None, got {ttl!r}")
    return max(1, round(seconds * 1000))


def connect_redis(
    url: str,
    *,
    connect_timeout: float = 1.0,
    timeout: float = 2.0,
    retries: int = 2,
    **kwargs: Any,
) -> Redis:
    """A redis-py asyncio client for ``url`` that fails fast while Redis is down.

    ``connect_timeout`` and ``timeout`` bound one connect and one reply (a
    ``RespClient.like`` it takes both); ``retries`` retry a command that met a dropped
    connection, waiting 50 ms, then 100 ms... at most 250 ms. Other keyword arguments
    go to ``Redis.from_url``. tgfast's parts send their commands through a
    ``RespClient`` made ``like`` it; the redis-py client is for the bot's own use.
    Without redis-py: ``ModuleNotFoundError`` naming the extra.
    """
    try:
        from redis.asyncio import Redis
    except ImportError:
        raise ModuleNotFoundError(
            f"connect_redis() makes a redis-py client, and redis-py is not installed "
            f"({REDIS_EXTRA_HINT}); tgfast's own parts take a URL without it",
            name="redis",
        ) from None
    from redis.asyncio.retry import Retry
    from redis.backoff import ExponentialBackoff

    kwargs.setdefault("socket_connect_timeout", connect_timeout)
    kwargs.setdefault("socket_timeout", timeout)
    kwargs.setdefault("retry", Retry(ExponentialBackoff(cap=0.25, base=0.05), retries))
    return Redis.from_url(url, **kwargs)


def client_for_url(
    url: str,
    *,
    connect_timeout: float = 1.0,
    timeout: float = 2.0,
    retries: int = 2,
    what: str = "from_url",
    **redis_kwargs: Any,
) -> AnyRedis:
    """The client a ``from_url`` makes for ``url``: a redis-py client (``connect_redis``)
    when redis-py is installed, else (and for ``redis+sentinel://``) a ``RespClient``
    with the same timeouts. ``redis_kwargs`` are redis-py's: without it they are an
    error naming the extra; ``what`` names the caller in that error."""
    sentinel = url.partition("://")[0].lower() in SENTINEL_SCHEMES
    if not sentinel:
        try:
            import redis.asyncio  # noqa: F401 - only whether it is there
        except ImportError:
            pass
        else:
            return connect_redis(
                url, connect_timeout=connect_timeout, timeout=timeout, retries=retries,
                **redis_kwargs,
            )  # fmt: skip
    if redis_kwargs:
        names = ", ".join(sorted(redis_kwargs))
        if sentinel:
            raise TypeError(f"{what}: a redis+sentinel:// URL takes no redis-py options "
                            f"({names}): build the client and pass it instead")  # fmt: skip
        raise ModuleNotFoundError(
            f"{what}: the options {names} are redis-py's, which is not installed "
            f"({REDIS_EXTRA_HINT})",
            name="redis",
        )
    return RespClient.from_url(url, timeout=timeout, connect_timeout=connect_timeout)


def check_redis_url(url: str) -> None:
    """``ValueError`` naming what is wrong with ``url`` (never quoting its password),
    without connecting: a usage error up front instead of a failure in every worker."""
    if url.partition("://")[0].lower() in SENTINEL_SCHEMES:
        parse_sentinel_url(url)
        return
    try:
        from redis.asyncio.connection import ConnectionPool
    except ImportError:
        RespClient.from_url(url)  # connects at its first command only
        return
    try:  # a connection object made, not connected: unknown options fail here
        pool = ConnectionPool.from_url(url)
        pool.connection_class(**pool.connection_kwargs)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"bad redis URL: {exc}") from None


async def close_client(client: AnyRedis) -> None:
    """Close a client a ``from_url`` made, whichever kind it is."""
    if isinstance(client, RespClient):
        await client.close()
    else:
        await client.aclose()  # redis-py >= 5.0.1


def wire_for(redis: AnyRedis) -> tuple[RespClient, bool]:
    """The ``RespClient`` to send through, and whether the caller made it (and closes it)."""
    if isinstance(redis, RespClient):
        return redis, False
    return RespClient.like(redis), True


def redacted_url(url: str) -> str:
    """``url`` without its passwords (the userinfo's, and any ``...password=`` option,
    ``sentinel_password`` too), for logs and error messages. The host list is left
    as written: a ``redis+sentinel://`` URL names several."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    cut = [i for i in (rest.find("/"), rest.find("?"), rest.find("#")) if i >= 0]
    netloc, tail = rest[: min(cut, default=len(rest))], rest[min(cut, default=len(rest)) :]
    userinfo, at, hosts = netloc.rpartition("@")
    user, colon, _ = userinfo.partition(":")
    if at and colon:
        netloc = f"{user}:***@{hosts}"
    path, question, query = tail.partition("?")
    if question:
        query, hash_mark, fragment = query.partition("#")
        options = []
        for option in query.split("&"):
            name, eq, _ = option.partition("=")
            options.append(f"{name}=***" if eq and "password" in name.lower() else option)
        tail = f"{path}?{'&'.join(options)}{hash_mark}{fragment}"
    return f"{scheme}://{netloc}{tail}"


class Script:
    """A Lua script run by its SHA1 (``EVALSHA``), sent whole (``EVAL``) only when the
    server does not have it yet: after a restart or a ``SCRIPT FLUSH``."""

    __slots__ = ("sha", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()

    async def __call__(self, wire: RespClient, keys: Sequence[Arg], args: Sequence[Arg]) -> Any:
        try:
            return await wire.execute("EVALSHA", self.sha, len(keys), *keys, *args)
        except RedisUnavailable as exc:
            if not str(exc).startswith("NOSCRIPT"):
                raise
        return await wire.execute("EVAL", self.source, len(keys), *keys, *args)
