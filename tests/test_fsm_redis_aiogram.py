"""A bot moving from aiogram keeps its users' conversations: tgfast's ``RedisStorage``
with ``key_builder=DefaultKeyBuilder(...)`` reads what aiogram's ``RedisStorage`` wrote
in a real redis-server, and aiogram's reads what tgfast's wrote, key for key. Also
the event isolations (memory and Redis) through the dispatcher."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import aiogram
import aiogram.fsm.storage.base as aio_base
import aiogram.fsm.storage.redis as aio_redis
import pytest
from redis.asyncio import Redis

from tgfast import Bot, Dispatcher
from tgfast.fsm.context import FSMContext
from tgfast.fsm.state import State, StatesGroup
from tgfast.fsm.storage.base import DEFAULT_DESTINY, DefaultKeyBuilder, StorageKey
from tgfast.fsm.storage.memory import DisabledEventIsolation, SimpleEventIsolation
from tgfast.fsm.storage.redis import RedisEventIsolation, RedisStorage
from tgfast.testing import updates as build
from tgfast.types import Message

OFFLINE_BOT = True

BUILDERS: dict[str, dict[str, Any]] = {
    "default": {},
    "bot-and-destiny": {"with_bot_id": True, "with_destiny": True},
    "business": {"with_business_connection_id": True, "with_bot_id": True},
    "prefix-separator": {"prefix": "my_bot", "separator": "/"},
}
KEYS = [
    (42, -100, 7, None, None, DEFAULT_DESTINY),
    (42, -100, 7, 12, None, DEFAULT_DESTINY),  # a forum topic
    (42, 7, 7, None, "bc-1", DEFAULT_DESTINY),  # a business connection
    (43, 7, 7, None, None, "scene"),  # another bot, another destiny
]
DATA = {"name": "Ånn ✓", "n": 2**62, "items": [], "nested": {"a": [1, {"b": None}]}, "f": 0.5}


def usable(builder: dict[str, Any], key: tuple[Any, ...]) -> bool:
    return key[5] == DEFAULT_DESTINY or builder.get("with_destiny", False)


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url)
    yield client
    await client.aclose()


@pytest.mark.parametrize("builder", sorted(BUILDERS))
@pytest.mark.parametrize("key", KEYS, ids=["chat", "topic", "business", "destiny"])
def test_default_key_builder_names_keys_as_aiogram(builder: str, key: tuple[Any, ...]) -> None:
    ours, theirs = (
        DefaultKeyBuilder(**BUILDERS[builder]),
        aio_base.DefaultKeyBuilder(**BUILDERS[builder]),
    )
    if not usable(BUILDERS[builder], key):
        with pytest.raises(ValueError, match="with_destiny"):
            ours.build(StorageKey(*key), "state")
        with pytest.raises(ValueError):
            theirs.build(aio_base.StorageKey(*key), "state")
        return
    for part in ("state", "data", "lock", None):
        assert ours.build(StorageKey(*key), part) == theirs.build(aio_base.StorageKey(*key), part)


@pytest.mark.parametrize("builder", sorted(BUILDERS))
async def test_aiogram_writes_tgfast_reads_and_back(
    builder: str, redis: Redis, redis_url: str
) -> None:
    theirs = aio_redis.RedisStorage(
        redis, key_builder=aio_base.DefaultKeyBuilder(**BUILDERS[builder])
    )
    ours = RedisStorage.from_url(redis_url, key_builder=DefaultKeyBuilder(**BUILDERS[builder]))
    try:
        for n, raw in enumerate(k for k in KEYS if usable(BUILDERS[builder], k)):
            key, aio_key = StorageKey(*raw), aio_base.StorageKey(*raw)
            # aiogram -> tgfast
            await theirs.set_state(aio_key, f"Form:step{n}")
            await theirs.set_data(aio_key, {**DATA, "n": n})
            assert await ours.get_state(key) == f"Form:step{n}"
            assert await ours.get_data(key) == {**DATA, "n": n}
            assert await ours.get_value(key, "name") == DATA["name"]
            # tgfast -> aiogram
            await ours.set_state(key, "Other:x")
            await ours.update_data(key, {"added": True, "n": -n})
            assert await theirs.get_state(aio_key) == "Other:x"
            assert await theirs.get_data(aio_key) == {**DATA, "added": True, "n": -n}
            await ours.set_data(key, {"only": 1})
            assert await theirs.get_data(aio_key) == {"only": 1}
            await ours.clear(key)
            assert await theirs.get_state(aio_key) is None
            assert await theirs.get_data(aio_key) == {}
            await theirs.update_data(aio_key, {"again": [1, 2]})
            assert await ours.get_data(key) == {"again": [1, 2]}
            await ours.set_data(key, {})  # an empty dict removes the key, as aiogram
        assert await redis.keys("*") == []
    finally:
        await ours.close()


async def test_ttl_and_atomic_update_in_aiogram_layout(redis: Redis, redis_url: str) -> None:
    ours = RedisStorage.from_url(
        redis_url, key_builder=DefaultKeyBuilder(), state_ttl=60, data_ttl=30
    )
    key = StorageKey(1, 2, 3)
    try:
        await ours.set_state(key, "S:a")
        await ours.update_data(key, {"x": 1})
        assert 0 < await redis.ttl("fsm:2:3:state") <= 60
        assert 0 < await redis.ttl("fsm:2:3:data") <= 30
        # concurrent updates of different keys all survive (compare-and-set retries)
        await asyncio.gather(*(ours.update_data(key, {f"k{i}": i}) for i in range(50)))
        data = await ours.get_data(key)
        assert data == {"x": 1, **{f"k{i}": i for i in range(50)}}
        await redis.set("fsm:2:3:data", b"[1, 2]")
        from tgfast.fsm import StorageDataError

        with pytest.raises(StorageDataError, match="not a JSON object"):
            await ours.get_data(key)
    finally:
        await ours.close()


class Form(StatesGroup):
    name = State()


# the same group in the aiogram bot's code: same class name, same state strings
AioForm: Any = type("Form", (aiogram.fsm.state.StatesGroup,), {"name": aiogram.fsm.state.State()})


async def test_a_conversation_started_on_aiogram_ends_on_tgfast(
    redis: Redis, redis_url: str, bot: Bot
) -> None:
    """The migration itself: step one handled by an aiogram bot, step two by the same
    bot on tgfast (same Redis, aiogram's layout), each with its framework's dispatcher."""
    theirs = aiogram.Dispatcher(storage=aio_redis.RedisStorage(redis))

    @theirs.message(aiogram.filters.StateFilter(None))
    async def first(message: Any, state: Any) -> None:
        await state.set_state(AioForm.name)
        await state.update_data(greeting=message.text)

    ours = Dispatcher(storage=RedisStorage.from_url(redis_url, key_builder=DefaultKeyBuilder()))
    got: list[Any] = []

    @ours.message(Form.name)
    async def second(message: Message, state: FSMContext) -> None:
        got.append((await state.get_data(), message.text))
        await state.clear()

    abot = aiogram.Bot("42:test-token")
    try:
        await theirs.feed_raw_update(abot, build.update(message=build.message("hello", chat_id=5)))
        await ours.feed_raw_update(bot, build.update(message=build.message("Ann", chat_id=5)))
    finally:
        await abot.session.close()
        await ours.storage.close()
    assert got == [({"greeting": "hello"}, "Ann")]
    assert await redis.keys("*") == []


# -- event isolation ---------------------------------------------------------------------


async def overlap(isolation: Any) -> int:
    """How many updates of one user ran at once, fed concurrently."""
    dp = Dispatcher(events_isolation=isolation)
    running = peak = 0

    @dp.message()
    async def slow(message: Message) -> None:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.01)
        running -= 1

    async with Bot("42:test-token", rate_limiter=None) as bot:
        raw = [build.update(message=build.message(str(n), chat_id=5)) for n in range(4)]
        await asyncio.gather(*(dp.feed_raw_update(bot, r) for r in raw))
        await dp.emit_shutdown(bot=bot)
    return peak


async def test_isolation_handles_one_record_at_a_time(redis_url: str) -> None:
    assert await overlap(None) == 4
    assert await overlap(DisabledEventIsolation()) == 4
    assert await overlap(SimpleEventIsolation()) == 1
    storage = RedisStorage.from_url(redis_url)
    try:
        assert await overlap(storage.create_isolation()) == 1
        assert (
            await overlap(RedisEventIsolation.from_url(redis_url, key_builder=DefaultKeyBuilder()))
            == 1
        )
    finally:
        await storage.close()


async def test_redis_lock_gives_up_after_blocking_timeout(redis: Redis, redis_url: str) -> None:
    isolation = RedisEventIsolation(redis, key_builder=DefaultKeyBuilder(),
                                    lock_kwargs={"blocking_timeout": 0.05, "sleep": 0.01})  # fmt: skip
    key = StorageKey(1, 2, 3)
    from tgfast.redis import RedisUnavailable

    async with isolation.lock(key):
        assert await redis.get("fsm:2:3:lock") is not None
        with pytest.raises(RedisUnavailable, match="in time"):
            async with isolation.lock(key):
                pass
    assert await redis.get("fsm:2:3:lock") is None
    await isolation.close()


async def test_a_storage_written_for_aiogram_runs(bot: Bot) -> None:
    """A custom storage implementing only aiogram's abstract methods is usable: tgfast's
    BaseStorage provides update_data (and get_value) the way aiogram's does."""
    from tgfast.fsm.storage.base import BaseStorage

    class DictStorage(BaseStorage):
        def __init__(self) -> None:
            self.states: dict[Any, Any] = {}
            self.data: dict[Any, dict[str, Any]] = {}

        async def set_state(self, key: StorageKey, state: Any = None) -> None:
            self.states[key] = state

        async def get_state(self, key: StorageKey) -> Any:
            return self.states.get(key)

        async def set_data(self, key: StorageKey, data: Any) -> None:
            self.data[key] = dict(data)

        async def get_data(self, key: StorageKey) -> dict[str, Any]:
            return dict(self.data.get(key, {}))

        async def close(self) -> None:
            pass

    storage = DictStorage()
    dp = Dispatcher(storage=storage)

    @dp.message()
    async def step(message: Message, state: FSMContext) -> Any:
        await state.update_data(a=1)
        data = await state.update_data({"b": 2})
        return data, await state.get_value("a"), await state.get_value("zz", "default")

    result = await dp.feed_raw_update(bot, build.update(message=build.message("x", chat_id=4)))
    assert result == ({"a": 1, "b": 2}, 1, "default")


async def test_aiogram_positional_arguments_and_json_functions(redis: Redis) -> None:
    """``RedisStorage(redis, key_builder, state_ttl, data_ttl, json_loads, json_dumps)``
    in aiogram's order; with aiogram's json functions the bytes in Redis are identical."""
    import json

    ours = RedisStorage(redis, DefaultKeyBuilder(prefix="ours"), 60, None, json.loads, json.dumps)
    theirs = aio_redis.RedisStorage(redis, aio_base.DefaultKeyBuilder(prefix="theirs"), 60)
    key, aio_key = StorageKey(1, 2, 3), aio_base.StorageKey(1, 2, 3)
    await ours.set_data(key, DATA)
    await theirs.set_data(aio_key, DATA)
    assert await redis.get("ours:2:3:data") == await redis.get("theirs:2:3:data")
    await ours.set_state(key, "S:a")
    assert 0 < await redis.ttl("ours:2:3:state") <= 60
    assert await ours.get_data(key) == DATA
    await ours.close()  # a client given stays open
    assert await redis.ping()
