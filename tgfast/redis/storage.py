"""``RedisStorage``: FSM records in Redis, shared by every worker process of a bot.

Layout, for a key ``k`` under ``key_prefix`` ``p``::

    p:<bot>:<chat>:<user>:<thread>:<business connection>:<destiny>:state   string
    p:<bot>:<chat>:<user>:<thread>:<business connection>:<destiny>:data    hash

(an absent thread or business connection is an empty part; ``:`` and ``%`` inside
the string parts are percent-escaped, so two keys never share a name). The data is
a hash with one field per top-level key, each value serialized with orjson.
``update_data`` is then a plain ``HSET`` of the changed fields: concurrent updates
of different keys from several processes cannot overwrite one another, and no JSON
is decoded and re-encoded inside Redis (Lua's cjson would turn ``[]`` into ``{}``
and round large integers). A small Lua script does ``HSET`` + ``PEXPIRE`` +
``HGETALL`` as one atomic step, in one round trip.

The commands go through a ``RespClient``: ``get_state`` runs for every update of a
bot with a conversation, and ``tgfast.redis.resp_client`` shows it costs a third of
redis-py's CPU (with or without hiredis). Every Redis failure is raised as
``RedisUnavailable`` (a ``StorageError``) naming the operation; the client's timeouts
decide how long a failure takes (``from_url``: 1 s to connect, 2 s for a reply), and
the next command after a lost connection connects again (after a Redis restart, say).
A command whose connection was lost while it was out, or that reached a replica (a
failover), is sent once more: through Sentinel that second one waits for the new master.

aiogram's layout, with ``key_builder`` (``DefaultKeyBuilder(...)``, as the aiogram bot
configured its own): the names the builder makes, the state a plain string and the
data one JSON string, as aiogram's ``RedisStorage`` keeps them, so a bot moving from
aiogram keeps its users' conversations. ``update_data`` there reads the JSON, merges
and writes it back only if it did not change meanwhile (a compare-and-set script),
retrying otherwise: atomic too, in two round trips instead of one.

At its first read the storage samples the record keys under its prefix (and aiogram's,
``fsm``) and logs a warning when some are in a layout it does not read, such as records
an aiogram bot wrote with another key builder (``tgfast.redis.layout``;
``check_layout=False`` skips it, ``await storage.check_layout()`` runs it on demand).

aiogram's path, ``tgfast.fsm.storage.redis.RedisStorage``, re-exports this class.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any, NoReturn

import orjson

from .._logging import get_logger
from ..fsm.storage.base import (
    BaseStorage,
    KeyBuilder,
    StateType,
    StorageDataError,
    StorageKey,
    data_mapping,
    state_string,
)
from .connect import AnyRedis, Script, client_for_url, close_client, ttl_ms, wire_for
from .errors import RedisConnectionLost, RedisUnavailable
from .resp_client import Arg, RespClient

if TYPE_CHECKING:
    from .album import RedisAlbumStore
    from .isolation import RedisEventIsolation

__all__ = ["RedisStorage", "record_key"]

log = get_logger("tgfast.redis")

# KEYS[1]: the data hash; ARGV[1]: TTL in ms (0: none); ARGV[2..]: field, value, ...
_UPDATE = """
for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
local ttl = tonumber(ARGV[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
return redis.call('HGETALL', KEYS[1])
"""

# The same arguments; the hash is replaced instead of merged into.
_REPLACE = """
redis.call('DEL', KEYS[1])
for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
local ttl = tonumber(ARGV[1])
if ttl > 0 and #ARGV > 1 then redis.call('PEXPIRE', KEYS[1], ttl) end
return 0
"""


# aiogram's layout. KEYS[1]: the data string; ARGV[1]: "1" when it existed, ARGV[2]
# its value then, ARGV[3] the new value, ARGV[4] TTL in ms (0: none). 1 if written.
_SWAP = """
local current = redis.call('GET', KEYS[1])
if (current == false and ARGV[1] == '1') or (current ~= false and
    (ARGV[1] == '0' or current ~= ARGV[2])) then return 0 end
local ttl = tonumber(ARGV[4])
if ttl > 0 then redis.call('SET', KEYS[1], ARGV[3], 'PX', ttl)
else redis.call('SET', KEYS[1], ARGV[3]) end
return 1
"""

_UPDATE_SCRIPT = Script(_UPDATE)
_REPLACE_SCRIPT = Script(_REPLACE)
_SWAP_SCRIPT = Script(_SWAP)
_SWAP_TRIES = 100


def _escape(part: str) -> str:
    return part.replace("%", "%25").replace(":", "%3A") if ("%" in part or ":" in part) else part


def _unavailable(what: str, exc: RedisUnavailable) -> NoReturn:
    raise RedisUnavailable(f"Redis FSM storage: {what} failed: {exc}") from exc


def _failing_over(exc: RedisUnavailable) -> bool:
    """Whether a command may be sent again (once): its connection went away with it, or
    it reached a server demoted by a failover. Every command of this storage has the
    same effect run twice (a SET, a DEL, a merge of the same fields; the compare-and-set
    of aiogram's layout reads again when it loses), so the update whose handler sent it
    goes on, on the new master, instead of failing."""
    return isinstance(exc, RedisConnectionLost) or str(exc).startswith(("READONLY", "MASTERDOWN"))


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _decoded(flat: list[bytes]) -> dict[str, Any]:
    """A hash as Redis sends it (field, value, field, value...) with values in orjson."""
    loads = orjson.loads
    return {flat[i].decode(): loads(flat[i + 1]) for i in range(0, len(flat), 2)}


def record_key(prefix: str, key: StorageKey, part: str) -> str:
    """tgfast's name of one part of a record (see the module docstring)."""
    bot_id, chat_id, user_id, thread_id, business, destiny = key
    thread = "" if thread_id is None else thread_id
    business = "" if business is None else _escape(business)
    return f"{prefix}:{bot_id}:{chat_id}:{user_id}:{thread}:{business}:{_escape(destiny)}:{part}"


class RedisStorage(BaseStorage):
    """FSM storage in Redis (see the module docstring).

    ``RedisStorage(redis)`` uses a client you made (and close): a redis-py asyncio
    client, whose settings a ``RespClient`` of this storage copies, or a ``RespClient``
    to share. ``from_url`` makes one with fail-fast timeouts and closes it in
    ``close()``. ``state_ttl`` and ``data_ttl`` (seconds or ``timedelta``) expire a
    state, or data, that has not been written for that long; None keeps it until it
    is cleared. ``key_builder`` selects aiogram's layout (see the module docstring);
    ``key_prefix`` is then the builder's business, and ``json_loads``/``json_dumps``
    (orjson's by default) encode its data string. The positional order is aiogram's.
    """

    __slots__ = (
        "_data_ttl", "_layout_checked", "_owns", "_owns_wire", "_prefix", "_redis",
        "_state_ttl", "_wire", "json_dumps", "json_loads", "key_builder",
    )  # fmt: skip

    def __init__(
        self,
        redis: AnyRedis,
        key_builder: KeyBuilder | None = None,
        state_ttl: float | timedelta | None = None,
        data_ttl: float | timedelta | None = None,
        json_loads: Callable[[Any], Any] = orjson.loads,
        json_dumps: Callable[[Any], bytes | str] = orjson.dumps,
        *,
        key_prefix: str = "fsm",
        check_layout: bool = True,
    ) -> None:
        if not key_prefix:
            raise ValueError("key_prefix must not be empty")
        self._prefix = key_prefix
        self._state_ttl = ttl_ms("state_ttl", state_ttl)
        self._data_ttl = ttl_ms("data_ttl", data_ttl)
        self._redis = redis
        self._wire, self._owns_wire = wire_for(redis)
        self._owns = False
        self.key_builder = key_builder
        """aiogram's layout when set, else tgfast's."""
        self.json_loads = json_loads
        self.json_dumps = json_dumps
        self._layout_checked = not check_layout

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        key_prefix: str = "fsm",
        state_ttl: float | timedelta | None = None,
        data_ttl: float | timedelta | None = None,
        key_builder: KeyBuilder | None = None,
        json_loads: Callable[[Any], Any] = orjson.loads,
        json_dumps: Callable[[Any], bytes | str] = orjson.dumps,
        connect_timeout: float = 1.0,
        timeout: float = 2.0,
        connection_kwargs: Mapping[str, Any] | None = None,
        check_layout: bool = True,
        **redis_kwargs: Any,
    ) -> RedisStorage:
        """A storage on a new client for ``url`` (``redis://host:6379/0``, or through
        Sentinel ``redis+sentinel://host:26379,host2:26379/mymaster/0``).

        While Redis is down an operation raises ``RedisUnavailable`` within about
        ``connect_timeout`` (``timeout`` when it stops answering mid-way; through
        Sentinel, after waiting up to 5 s for a new master); see ``client_for_url``,
        which gets ``redis_kwargs`` (and aiogram's ``connection_kwargs``): redis-py's
        options, the only reason to install it.
        """
        ttl_ms("state_ttl", state_ttl)  # refuse a bad TTL before making a client
        ttl_ms("data_ttl", data_ttl)
        client = client_for_url(
            url,
            connect_timeout=connect_timeout,
            timeout=timeout,
            what="RedisStorage.from_url",
            **{**(connection_kwargs or {}), **redis_kwargs},
        )
        storage = cls(
            client,
            key_prefix=key_prefix,
            state_ttl=state_ttl,
            data_ttl=data_ttl,
            key_builder=key_builder,
            check_layout=check_layout,
            json_loads=json_loads,
            json_dumps=json_dumps,
        )
        storage._owns = True
        return storage

    @property
    def redis(self) -> AnyRedis:
        """The client given (``from_url``: a redis-py client, or the ``RespClient`` when
        redis-py is not installed or the URL is a Sentinel one), for the bot's own use."""
        return self._redis

    @property
    def key_prefix(self) -> str:
        """The prefix of tgfast's layout (with a ``key_builder``, the builder's counts)."""
        return self._prefix

    async def check_layout(self) -> list[str]:
        """The record keys in Redis this storage does not read (a sample; see
        ``tgfast.redis.layout``), logged as a warning when there are any."""
        from .layout import foreign_records, layout_hint

        try:
            keys = await foreign_records(self)
        except RedisUnavailable as exc:
            _unavailable("check_layout", exc)
        if keys:
            log.warning("%s", layout_hint(self, keys))
        return keys

    async def _check_layout_once(self) -> None:
        self._layout_checked = True
        try:
            await self.check_layout()
        except RedisUnavailable:  # the read that asked will say so itself
            self._layout_checked = False

    @property
    def wire(self) -> RespClient:
        """The ``RespClient`` the commands go through, to share with ``RedisRateLimiter``
        or ``RedisSeenUpdates``."""
        return self._wire

    async def _execute(self, *args: Arg) -> Any:
        """``wire.execute``, sent once more after a failover took it (``_failing_over``)."""
        try:
            return await self._wire.execute(*args)
        except RedisUnavailable as exc:
            if not _failing_over(exc):
                raise
        return await self._wire.execute(*args)

    async def _run(self, script: Script, keys: Sequence[Arg], args: Sequence[Arg]) -> Any:
        try:
            return await script(self._wire, keys, args)
        except RedisUnavailable as exc:
            if not _failing_over(exc):
                raise
        return await script(self._wire, keys, args)

    def key_name(self, key: StorageKey, part: str) -> str:
        """The Redis key of one part (``"state"``, ``"data"``, ``"lock"``) of a record."""
        if self.key_builder is not None:
            return self.key_builder.build(key, part)  # type: ignore[arg-type]
        return record_key(self._prefix, key, part)

    async def set_state(self, key: StorageKey, state: StateType) -> None:
        state = state_string(state)
        name = self.key_name(key, "state")
        try:
            if state is None:
                await self._execute("DEL", name)
            elif self._state_ttl:
                await self._execute("SET", name, state, "PX", self._state_ttl)
            else:
                await self._execute("SET", name, state)
        except RedisUnavailable as exc:
            _unavailable("set_state", exc)

    async def get_state(self, key: StorageKey) -> StateType:
        if not self._layout_checked:
            await self._check_layout_once()
        name = self.key_name(key, "state")
        try:  # every update of a bot with conversations: no extra frame (see _execute)
            value = await self._wire.execute("GET", name)
        except RedisUnavailable as exc:
            if not _failing_over(exc):
                _unavailable("get_state", exc)
            try:
                value = await self._wire.execute("GET", name)
            except RedisUnavailable as again:
                _unavailable("get_state", again)
        return None if value is None else _text(value)

    async def set_data(self, key: StorageKey, data: Mapping[str, Any]) -> None:
        data_mapping(data)
        if self.key_builder is not None:
            return await self._set_json(key, data)
        args = self._encode(data)
        try:
            await self._run(_REPLACE_SCRIPT, (self.key_name(key, "data"),), args)
        except RedisUnavailable as exc:
            _unavailable("set_data", exc)

    async def get_data(self, key: StorageKey) -> dict[str, Any]:
        if self.key_builder is not None:
            return self._json_dict(await self._get_json(key))
        try:
            flat = await self._execute("HGETALL", self.key_name(key, "data"))
        except RedisUnavailable as exc:
            _unavailable("get_data", exc)
        return _decoded(flat)

    async def update_data(self, key: StorageKey, data: Mapping[str, Any]) -> dict[str, Any]:
        if not data_mapping(data):
            return await self.get_data(key)
        if self.key_builder is not None:
            return await self._update_json(key, data)
        args = self._encode(data)
        try:
            flat = await self._run(_UPDATE_SCRIPT, (self.key_name(key, "data"),), args)
        except RedisUnavailable as exc:
            _unavailable("update_data", exc)
        return _decoded(flat)

    async def clear(self, key: StorageKey) -> None:
        try:
            await self._execute("DEL", self.key_name(key, "state"), self.key_name(key, "data"))
        except RedisUnavailable as exc:
            _unavailable("clear", exc)

    async def close(self) -> None:
        """Close the clients this storage made (a client given stays open)."""
        if self._owns_wire:
            await self._wire.close()
        if self._owns:
            await close_client(self._redis)

    # -- aiogram's layout: the data as one JSON string --------------------------------

    async def _get_json(self, key: StorageKey) -> bytes | str | None:
        try:
            value: bytes | str | None = await self._execute("GET", self.key_name(key, "data"))
        except RedisUnavailable as exc:
            _unavailable("get_data", exc)
        return value

    async def _set_json(self, key: StorageKey, data: Mapping[str, Any]) -> None:
        name = self.key_name(key, "data")
        try:
            if not data:
                await self._execute("DEL", name)
            elif self._data_ttl:
                await self._execute("SET", name, self._json(data), "PX", self._data_ttl)
            else:
                await self._execute("SET", name, self._json(data))
        except RedisUnavailable as exc:
            _unavailable("set_data", exc)

    async def _update_json(self, key: StorageKey, data: Mapping[str, Any]) -> dict[str, Any]:
        name = self.key_name(key, "data")
        for _ in range(_SWAP_TRIES):
            old = await self._get_json(key)
            merged = {**self._json_dict(old), **data}
            args: list[Arg] = ["0" if old is None else "1", old or b"", self._json(merged)]
            args.append(self._data_ttl)
            try:
                if await self._run(_SWAP_SCRIPT, (name,), args):
                    return merged
            except RedisUnavailable as exc:
                _unavailable("update_data", exc)
        raise RedisUnavailable(
            f"Redis FSM storage: update_data of {name!r} kept losing to concurrent writers"
        )

    def _json(self, data: Mapping[str, Any]) -> bytes | str:
        try:
            return self.json_dumps(data)
        except TypeError as exc:
            raise StorageDataError(f"FSM data cannot be stored in Redis as JSON: {exc}") from exc

    def _json_dict(self, value: bytes | str | None) -> dict[str, Any]:
        if value is None:
            return {}
        data = self.json_loads(value)
        if not isinstance(data, dict):
            raise StorageDataError(f"the FSM data in Redis is not a JSON object: {value!r:.80}")
        return data

    def _encode(self, data: Mapping[str, Any]) -> list[Arg]:
        """``[data_ttl, field, value, ...]``: the script's arguments, values in orjson."""
        args: list[Arg] = [self._data_ttl]
        dumps = orjson.dumps
        for field, value in data.items():
            if not isinstance(field, str):
                raise StorageDataError(
                    f"FSM data keys must be str, got {field!r} ({type(field).__name__})"
                )
            try:
                encoded = dumps(value)
            except TypeError as exc:
                raise StorageDataError(
                    f"FSM data {field!r} cannot be stored in Redis: {exc} "
                    "(orjson serializes str, int, float, bool, None, dict, list, tuple, "
                    "dataclasses, datetime, enum, UUID)"
                ) from exc
            args.append(field)
            args.append(encoded)
        return args

    def create_isolation(self, **kwargs: Any) -> RedisEventIsolation:
        """A ``RedisEventIsolation`` on this storage's client and key names."""
        from .isolation import RedisEventIsolation

        return RedisEventIsolation(self._wire, key_builder=self.key_builder, storage=self,
                                   **kwargs)  # fmt: skip

    def album_store(self) -> RedisAlbumStore:
        """A ``RedisAlbumStore`` on this storage's client: ``AlbumMiddleware`` asks the
        dispatcher's storage for one, so the workers sharing FSM records share albums."""
        from .album import RedisAlbumStore  # it imports this module

        return RedisAlbumStore.sharing(self)

    def __repr__(self) -> str:
        layout = "" if self.key_builder is None else f", key_builder={self.key_builder!r}"
        return f"RedisStorage({self._redis!r}, key_prefix={self._prefix!r}{layout})"
