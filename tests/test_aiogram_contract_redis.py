"""Moving a bot with users from aiogram's Redis storage (issue #25, "real bots").

The migration guide's recipe, run as written, reads what aiogram's own ``RedisStorage``
wrote with its defaults; with each of aiogram's key-builder settings the matching
builder reads everything and a mismatched one is loud (a warning naming the keys it
cannot read). A real redis-server; aiogram 3.31 from the bench extra.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

aio_base = pytest.importorskip("aiogram.fsm.storage.base")
aio_redis = pytest.importorskip("aiogram.fsm.storage.redis")
from redis.asyncio import Redis  # noqa: E402

from tgfast.fsm.storage.base import DefaultKeyBuilder, StorageKey  # noqa: E402
from tgfast.fsm.storage.redis import RedisStorage  # noqa: E402

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "migrating-from-aiogram.md"
KEY = (42, -100, 7)
DATA = {"name": "Ann", "items": [1, 2], "nested": {"a": None}}
SETTINGS: dict[str, dict[str, Any]] = {
    "default": {},
    "destiny": {"with_destiny": True},
    "bot-id": {"with_bot_id": True},
    "bot-id-destiny": {"with_bot_id": True, "with_destiny": True},
    "business": {"with_bot_id": True, "with_business_connection_id": True},
    "prefix": {"prefix": "mybot"},
}


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url)
    await client.flushdb()
    yield client
    await client.flushdb()
    await client.aclose()


async def aiogram_writes(redis: Redis, builder: dict[str, Any]) -> None:
    """What an aiogram bot with this key builder leaves: a state and data, in a chat,
    in a forum topic and (with a business builder) through a business connection."""
    storage = aio_redis.RedisStorage(redis, key_builder=aio_base.DefaultKeyBuilder(**builder))
    for thread in (None, 12):
        key = aio_base.StorageKey(*KEY, thread_id=thread, business_connection_id="bc")
        await storage.set_state(key, "Form:name")
        await storage.set_data(key, {**DATA, "thread": thread})


def recipe(url: str) -> RedisStorage:
    """The guide's code block for keeping aiogram's layout, run as written."""
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    block = next(b for b in blocks if "RedisStorage.from_url" in b and "key_builder" in b)
    code = re.sub(r"\n {2}", "\n", "\n" + block).replace("redis://localhost:6379/0", url)
    scope: dict[str, Any] = {}
    exec(compile(code, str(GUIDE), "exec"), scope)
    storage = scope["storage"]
    assert isinstance(storage, RedisStorage)
    return storage


async def test_the_guides_recipe_reads_aiogram_defaults(redis: Redis, redis_url: str) -> None:
    aiogram_default = aio_redis.RedisStorage(redis)  # no key builder: aiogram's default
    key = aio_base.StorageKey(*KEY)
    await aiogram_default.set_state(key, "Form:age")
    await aiogram_default.set_data(key, DATA)
    storage = recipe(redis_url)
    try:
        assert await storage.check_layout() == []
        assert await storage.get_state(StorageKey(*KEY)) == "Form:age"
        assert await storage.get_data(StorageKey(*KEY)) == DATA
    finally:
        await storage.close()


@pytest.mark.parametrize("setting", sorted(SETTINGS))
async def test_each_aiogram_builder_is_read_by_the_same_one(
    setting: str, redis: Redis, redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    builder = SETTINGS[setting]
    await aiogram_writes(redis, builder)
    storage = RedisStorage.from_url(redis_url, key_builder=DefaultKeyBuilder(**builder))
    try:
        with caplog.at_level(logging.WARNING, "tgfast.redis"):
            for thread in (None, 12):
                key = StorageKey(*KEY, thread_id=thread, business_connection_id="bc")
                assert await storage.get_state(key) == "Form:name"
                assert await storage.get_data(key) == {**DATA, "thread": thread}
        assert not [r for r in caplog.records if r.name == "tgfast.redis"]
    finally:
        await storage.close()


READERS: dict[str, dict[str, Any] | None] = {
    "tgfast-layout": None,
    "with-destiny": {"with_destiny": True},
    "default": {},
}
# every (aiogram's setting, tgfast's reader) that is a mismatch: not the same builder, and
# not a builder of another prefix (that is another bot's keys, not this one's)
MISMATCHES = [
    (setting, reader)
    for setting, builder in sorted(SETTINGS.items())
    for reader, chosen in READERS.items()
    if chosen != builder and not (chosen is not None and builder.get("prefix"))
]


@pytest.mark.parametrize(("setting", "reader"), MISMATCHES)
async def test_a_mismatched_layout_is_loud(
    setting: str, reader: str, redis: Redis, redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    builder = SETTINGS[setting]
    chosen = READERS[reader]
    await aiogram_writes(redis, builder)
    key_builder = None if chosen is None else DefaultKeyBuilder(**chosen)
    storage = RedisStorage.from_url(redis_url, key_builder=key_builder)
    try:
        with caplog.at_level(logging.WARNING, "tgfast.redis"):
            state = await storage.get_state(StorageKey(*KEY))  # the first read checks
        warnings = [r.getMessage() for r in caplog.records if r.name == "tgfast.redis"]
        prefix = builder.get("prefix", "fsm")
        if prefix != "fsm" and chosen is None:  # tgfast's storage looks under its own and fsm
            assert warnings == [] and state is None
            return
        assert state is None  # what the mismatch costs: it reads nothing
        assert len(warnings) == 1 and "does not read" in warnings[0]
        assert "key_builder=" in warnings[0] and prefix in warnings[0]
        assert len(await storage.check_layout()) == 4  # 2 states + 2 data, all foreign
    finally:
        await storage.close()


async def test_tgfast_layout_keys_are_foreign_to_an_aiogram_builder(
    redis_url: str, redis: Redis
) -> None:
    ours = RedisStorage.from_url(redis_url)
    await ours.set_state(StorageKey(*KEY), "Form:name")
    theirs_too = RedisStorage.from_url(redis_url, key_builder=DefaultKeyBuilder())
    try:
        assert await ours.check_layout() == []
        assert await theirs_too.check_layout() == ["fsm:42:-100:7:::default:state"]
        quiet = RedisStorage.from_url(redis_url, key_builder=DefaultKeyBuilder(),
                                      check_layout=False)  # fmt: skip
        assert await quiet.get_state(StorageKey(*KEY)) is None
        await quiet.close()
    finally:
        await ours.close()
        await theirs_too.close()


def test_redis_py_client_at_aiogrames_path() -> None:
    import redis.asyncio

    from tgfast.fsm.storage import redis as shim

    assert shim.Redis is redis.asyncio.Redis
    assert shim.ConnectionPool is redis.asyncio.ConnectionPool
    assert not hasattr(shim, "NotARedisName")
