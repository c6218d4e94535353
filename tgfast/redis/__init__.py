"""Every part of tgfast that talks to Redis, and the one error they raise.

```py
from tgfast.redis import RedisShared, RedisUnavailable
```

- ``RespClient``: the pipelining RESP2 client all of them send through (redis-py is
  optional, only read for settings: ``RespClient.like(redis)``, ``connect_redis(url)``;
  every ``from_url`` works without it, ``client_for_url``);
- ``Sentinels``: the master of a Redis Sentinel deployment, found and followed across a
  failover by ``RespClient`` (``redis+sentinel://host:26379,host2:26379/mymaster/0``);
- ``RedisStorage``: FSM records (also at aiogram's ``tgfast.fsm.storage.redis``);
- ``RedisSeenUpdates``: the update ids recently taken, shared by the workers;
- ``RedisRateLimiter``: the client's flood control with one budget for all workers;
- ``RedisLeaderLock``: one long-poller among the workers;
- ``RedisAlbumStore``: the parts of albums waiting for ``AlbumMiddleware``
  (``tgfast.utils.album``), shared by the workers;
- ``RedisShared``: storage, seen ids and rate limiter of one bot on one connection
  (``tgfast webhook app:dp --workers N --redis URL``);
- ``RedisUnavailable``: every failure of any of them (a ``StorageError``);
  ``RedisConnectionLost`` when a command was out as its connection went away.

No module outside this package talks to Redis (``tests/test_layers.py``).
"""

from __future__ import annotations

from .album import RedisAlbumStore
from .connect import (
    AnyRedis,
    Script,
    check_redis_url,
    client_for_url,
    close_client,
    connect_redis,
    redacted_url,
    ttl_ms,
    wire_for,
)
from .errors import RedisConnectionLost, RedisUnavailable
from .leader import DEFAULT_LEADER_TTL, POLLER_KEY_PREFIX, RedisLeaderLock, poller_key
from .ratelimit import RedisRateLimiter
from .resp_client import RespClient
from .seen import RedisSeenUpdates
from .sentinel import Sentinels, parse_sentinel_url
from .shared import (
    DEFAULT_SEEN_LEASE,
    REDIS_URL_ENV,
    SEEN_LEASE_ENV,
    RedisShared,
)
from .storage import RedisStorage

__all__ = [
    "DEFAULT_LEADER_TTL",
    "DEFAULT_SEEN_LEASE",
    "POLLER_KEY_PREFIX",
    "REDIS_URL_ENV",
    "SEEN_LEASE_ENV",
    "AnyRedis",
    "RedisAlbumStore",
    "RedisConnectionLost",
    "RedisLeaderLock",
    "RedisRateLimiter",
    "RedisSeenUpdates",
    "RedisShared",
    "RedisStorage",
    "RedisUnavailable",
    "RespClient",
    "Script",
    "Sentinels",
    "check_redis_url",
    "client_for_url",
    "close_client",
    "connect_redis",
    "parse_sentinel_url",
    "poller_key",
    "redacted_url",
    "ttl_ms",
    "wire_for",
]
