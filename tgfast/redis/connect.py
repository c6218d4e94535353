"""Making clients: ``connect_redis`` (redis-py, fail-fast settings), ``wire_for`` (the
``RespClient`` a part sends its commands through), ``Script`` (Lua by SHA1), and the
small helpers every part shares (``ttl_ms``, ``redacted_url``)."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeAlias
from urllib.parse import urlsplit, urlunsplit

from .errors import RedisUnavailable
from .resp_client import Arg, RespClient

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = ["AnyRedis", "Script", "connect_redis", "redacted_url", "ttl_ms", "wire_for"]

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
    """
    from redis.asyncio import Redis
    from redis.asyncio.retry import Retry
    from redis.backoff import ExponentialBackoff

    kwargs.setdefault("socket_connect_timeout", connect_timeout)
    kwargs.setdefault("socket_timeout", timeout)
    kwargs.setdefault("retry", Retry(ExponentialBackoff(cap=0.25, base=0.05), retries))
    return Redis.from_url(url, **kwargs)


def wire_for(redis: AnyRedis) -> tuple[RespClient, bool]:
    """The ``RespClient`` to send through, and whether the caller made it (and closes it)."""
    if isinstance(redis, RespClient):
        return redis, False
    return RespClient.like(redis), True


def redacted_url(url: str) -> str:
    """``url`` without its password, for logs and error messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    user = f"{parts.username}:***@" if parts.username else ":***@"
    return urlunsplit(parts._replace(netloc=user + host))


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
