"""RedisStorage against a real redis-server: round trips, key layout, TTLs, data that
does not serialize, atomic update_data (in one process and across two), a conversation
whose steps run in different worker processes, and Redis stopped mid-conversation."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from redis_server import RedisServer

import tgfast
from tgfast import Bot
from tgfast.dispatcher import Dispatcher
from tgfast.fsm import (
    FSMContext,
    FSMContextMiddleware,
    State,
    StatesGroup,
    StorageDataError,
    StorageError,
    StorageKey,
)
from tgfast.fsm.storage.redis import RedisStorage
from tgfast.redis import RedisUnavailable, RespClient
from tgfast.types import Message

TGFAST_HOME = Path(tgfast.__file__).resolve().parents[1]  # the tgfast under test
KEY = StorageKey(1, 2, 3)


@pytest.fixture
async def storage(redis_server: RedisServer) -> AsyncIterator[RedisStorage]:
    redis_server.flushall()
    store = RedisStorage.from_url(redis_server.url)
    yield store
    await store.close()


def worker_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(TGFAST_HOME), "PYTHONDONTWRITEBYTECODE": "1"}


async def run_worker(code: str, *args: str) -> dict[str, Any]:
    """Run ``code`` in a new Python process; the JSON object it prints last."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-W", "error", "-c", code, *args,
        env=worker_env(), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, err.decode()
    result: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    return result


# -- one process ----------------------------------------------------------------------


async def test_round_trip(storage: RedisStorage) -> None:
    assert await storage.get_state(KEY) is None and await storage.get_data(KEY) == {}
    await storage.set_state(KEY, "Form:name")
    assert await storage.get_state(KEY) == "Form:name"
    assert await storage.get_state(KEY._replace(bot_id=9)) is None  # another bot
    assert await storage.update_data(KEY, {"a": 1}) == {"a": 1}
    assert await storage.update_data(KEY, {"b": "two"}) == {"a": 1, "b": "two"}
    assert await storage.update_data(KEY, {}) == {"a": 1, "b": "two"}
    await storage.set_data(KEY, {"c": [3]})
    assert await storage.get_data(KEY) == {"c": [3]}
    await storage.set_data(KEY, {})
    assert await storage.get_data(KEY) == {}
    await storage.update_data(KEY, {"d": 4})
    await storage.set_state(KEY, None)
    assert await storage.get_state(KEY) is None and await storage.get_data(KEY) == {"d": 4}
    await storage.set_state(KEY, "Form:age")
    await storage.clear(KEY)
    assert await storage.get_state(KEY) is None and await storage.get_data(KEY) == {}
    assert await storage.redis.keys("*") == []


async def test_values_round_trip_exactly(storage: RedisStorage) -> None:
    data = {
        "empty_list": [], "empty_dict": {}, "big": 2**62 + 1, "negative": -(2**53) - 3,
        "float": 0.1 + 0.2, "text": "привет 👋", "none": None, "nested": {"a": [1, {"b": []}]},
        "flag": True,
    }  # fmt: skip
    assert await storage.update_data(KEY, data) == data
    assert await storage.get_data(KEY) == data
    assert await storage.update_data(KEY, {"tuple": (1, 2)}) == {**data, "tuple": [1, 2]}


async def test_key_layout_keeps_every_part_apart(storage: RedisStorage) -> None:
    assert storage.key_name(KEY, "state") == "fsm:1:2:3:::default:state"
    full = StorageKey(1, -100, 3, 7, "bc", "quiz")
    assert storage.key_name(full, "data") == "fsm:1:-100:3:7:bc:quiz:data"
    # a ':' inside a string part cannot make two keys collide
    one = StorageKey(1, 2, 3, None, "a:b", "c")
    two = StorageKey(1, 2, 3, None, "a", "b:c")
    assert storage.key_name(one, "state") != storage.key_name(two, "state")
    await storage.set_state(one, "S:one")
    await storage.set_state(two, "S:two")
    assert await storage.get_state(one) == "S:one" and await storage.get_state(two) == "S:two"
    prefixed = RedisStorage(storage.wire, key_prefix="bot42")
    await prefixed.set_state(KEY, "P:x")
    assert await storage.get_state(KEY) is None
    assert sorted(await storage.redis.keys("bot42:*")) == [b"bot42:1:2:3:::default:state"]


async def test_ttl_expiry(redis_server: RedisServer, storage: RedisStorage) -> None:
    timed = RedisStorage(storage.wire, state_ttl=0.3, data_ttl=0.6)
    await timed.set_state(KEY, "Form:name")
    await timed.update_data(KEY, {"a": 1})
    assert 0 < await storage.redis.pttl(timed.key_name(KEY, "state")) <= 300
    assert 300 < await storage.redis.pttl(timed.key_name(KEY, "data")) <= 600
    await asyncio.sleep(0.4)
    assert await timed.get_state(KEY) is None
    assert await timed.update_data(KEY, {"b": 2}) == {"a": 1, "b": 2}  # a write renews it
    assert 500 < await storage.redis.pttl(timed.key_name(KEY, "data")) <= 600
    await asyncio.sleep(0.65)
    assert await timed.get_data(KEY) == {}
    forever = RedisStorage(storage.wire)
    await forever.set_state(KEY, "Form:name")
    await forever.set_data(KEY, {"a": 1})
    assert await storage.redis.pttl(forever.key_name(KEY, "state")) == -1
    assert await storage.redis.pttl(forever.key_name(KEY, "data")) == -1


def test_bad_ttl_and_prefix_are_refused(redis_server: RedisServer) -> None:
    from redis.asyncio import Redis

    client = Redis.from_url(redis_server.url)
    with pytest.raises(ValueError, match="state_ttl must be a positive"):
        RedisStorage(client, state_ttl=0)
    with pytest.raises(ValueError, match="data_ttl must be a positive"):
        RedisStorage(client, data_ttl=float("nan"))
    with pytest.raises(ValueError, match="key_prefix"):
        RedisStorage(client, key_prefix="")


async def test_data_that_does_not_serialize(storage: RedisStorage) -> None:
    await storage.set_data(KEY, {"kept": 1})
    with pytest.raises(StorageDataError, match=r"FSM data 'tags' cannot be stored.*set") as info:
        await storage.update_data(KEY, {"fine": 2, "tags": {"a", "b"}})
    assert isinstance(info.value, TypeError) and isinstance(info.value, StorageError)
    with pytest.raises(StorageDataError, match="'when'.*not JSON serializable: object"):
        await storage.set_data(KEY, {"when": object()})
    with pytest.raises(StorageDataError, match="keys must be str, got 5"):
        await storage.update_data(KEY, {5: "five"})  # type: ignore[dict-item]
    with pytest.raises(StorageDataError, match="'huge'"):
        await storage.update_data(KEY, {"huge": 2**70})
    assert await storage.get_data(KEY) == {"kept": 1}  # nothing of a refused write landed


async def test_update_data_is_atomic_between_clients(redis_server: RedisServer) -> None:
    one = RedisStorage.from_url(redis_server.url, key_prefix="atomic")
    two = RedisStorage.from_url(redis_server.url, key_prefix="atomic")
    try:
        await asyncio.gather(
            *(
                s.update_data(KEY, {f"{n}:{i}": i})
                for i in range(100)
                for n, s in enumerate((one, two))
            )
        )
        data = await one.get_data(KEY)
        assert data == {f"{n}:{i}": i for i in range(100) for n in range(2)}
    finally:
        await one.close()
        await two.close()


async def test_a_client_you_pass_stays_open(redis_server: RedisServer) -> None:
    from redis.asyncio import Redis

    client = Redis.from_url(redis_server.url)
    store = RedisStorage(client)
    await store.close()
    assert await client.ping() is True  # not ours to close
    await client.aclose()
    wire = RespClient.from_url(redis_server.url)
    shared = RedisStorage(wire)
    assert shared.wire is wire and shared.redis is wire
    await shared.set_state(KEY, "Form:name")
    await shared.close()
    assert await wire.execute("GET", shared.key_name(KEY, "state")) == b"Form:name"
    await wire.close()


# -- several processes ----------------------------------------------------------------

CONVERSATION_WORKER = r"""
import asyncio, json, os, sys

import orjson

from tgfast import Bot, Dispatcher
from tgfast.filters import Command
from tgfast.fsm import FSMContext, FSMContextMiddleware, State, StatesGroup
from tgfast.fsm.storage.redis import RedisStorage


class Order(StatesGroup):
    dish = State()
    size = State()


dp = Dispatcher()


@dp.message(Command("order"))
async def start(message, state: FSMContext):
    await state.set_state(Order.dish)
    return {"asked": "dish"}


@dp.message(Order.dish)
async def dish(message, state: FSMContext):
    await state.update_data(dish=message.text, dish_pid=os.getpid())
    await state.set_state(Order.size)
    return {"asked": "size"}


@dp.message(Order.size)
async def size(message, state: FSMContext):
    data = await state.update_data(size=message.text, size_pid=os.getpid())
    await state.clear()
    return {"done": data}


@dp.message()
async def idle(message, raw_state):
    return {"idle": raw_state}


async def main(url, text, update_id):
    storage = RedisStorage.from_url(url, key_prefix="conv")
    dp.update.outer_middleware(FSMContextMiddleware(storage))
    message = {"message_id": update_id, "date": 1, "text": text,
               "chat": {"id": -100, "type": "supergroup", "title": "Cafe"},
               "from": {"id": 7, "is_bot": False, "first_name": "Ann"}}
    body = orjson.dumps({"update_id": update_id, "message": message})
    async with Bot("123456:ABC-worker", rate_limiter=None) as bot:
        result = await dp.feed_raw_update(bot, body)
    await storage.close()
    print(json.dumps({"pid": os.getpid(), "result": result}))


asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
"""


async def test_conversation_across_worker_processes(redis_server: RedisServer) -> None:
    redis_server.flushall()
    observer = RedisStorage.from_url(redis_server.url, key_prefix="conv")
    key = StorageKey(123456, -100, 7)
    states = []
    replies = []
    try:
        for update_id, text in enumerate(["/order", "pizza", "large", "thanks"], 1):
            replies.append(
                await run_worker(CONVERSATION_WORKER, redis_server.url, text, str(update_id))
            )
            states.append(await observer.get_state(key))
    finally:
        await observer.close()
    pids = [r["pid"] for r in replies]
    assert len(set(pids)) == 4, "each step in a process of its own"
    assert [r["result"] for r in replies[:2]] == [{"asked": "dish"}, {"asked": "size"}]
    assert replies[2]["result"] == {
        "done": {"dish": "pizza", "dish_pid": pids[1], "size": "large", "size_pid": pids[2]}
    }
    assert replies[3]["result"] == {"idle": None}
    assert states == ["Order:dish", "Order:size", None, None]


RACE_WORKER = r"""
import asyncio, json, sys

from tgfast.fsm import StorageKey
from tgfast.fsm.storage.redis import RedisStorage


async def main(url, worker, rounds):
    storage = RedisStorage.from_url(url, key_prefix="race")
    key = StorageKey(1, 2, 3)
    other = "b" if worker == "a" else "a"
    assert await storage.redis.blpop(["race:go"], timeout=30) is not None
    missing = 0
    others_seen = []
    for i in range(rounds):
        data = await storage.update_data(key, {f"{worker}:{i}": i})
        missing += sum(f"{worker}:{j}" not in data for j in range(i + 1))
        others_seen.append(sum(k.startswith(other) for k in data))
        if i % 4 == 0:
            await asyncio.sleep(0.001)  # spread the rounds so both processes overlap
    await storage.close()
    interleaved = sum(1 for x, y in zip(others_seen, others_seen[1:]) if y != x)
    print(json.dumps({"missing": missing, "interleaved": interleaved}))


asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
"""


async def test_concurrent_update_data_from_two_processes(redis_server: RedisServer) -> None:
    redis_server.flushall()
    rounds = 400
    storage = RedisStorage.from_url(redis_server.url, key_prefix="race")
    try:
        workers = [
            asyncio.ensure_future(run_worker(RACE_WORKER, redis_server.url, name, str(rounds)))
            for name in "ab"
        ]
        deadline = time.monotonic() + 30
        while sum(c.get("cmd") == "blpop" for c in await storage.redis.client_list()) < 2:
            assert time.monotonic() < deadline, "workers did not reach the start line"
            await asyncio.sleep(0.02)
        await storage.redis.rpush("race:go", "go", "go")  # both start at once
        results = await asyncio.gather(*workers)
        data = await storage.get_data(KEY)
    finally:
        await storage.close()
    assert data == {f"{w}:{i}": i for w in "ab" for i in range(rounds)}
    assert [r["missing"] for r in results] == [0, 0]
    # the two really wrote at the same time: each saw the other's keys arrive meanwhile
    assert max(r["interleaved"] for r in results) > 0, results


# -- Redis going away -----------------------------------------------------------------


class Form(StatesGroup):
    name = State()
    age = State()


def form_dispatcher(storage: RedisStorage) -> Dispatcher:
    dp = Dispatcher()
    dp.update.outer_middleware(FSMContextMiddleware(storage))

    @dp.message(Form.name)
    async def got_name(message: Message, state: FSMContext) -> str:
        await state.update_data(name=message.text)
        await state.set_state(Form.age)
        return "asked age"

    @dp.message(Form.age)
    async def got_age(message: Message, state: FSMContext) -> dict[str, Any]:
        data = await state.update_data(age=message.text)
        await state.clear()
        return data

    @dp.message()
    async def start(message: Message, state: FSMContext) -> str:
        await state.set_state(Form.name)
        return "asked name"

    return dp


def body(update_id: int, text: str) -> bytes:
    message = {"message_id": update_id, "date": 1, "text": text,
               "chat": {"id": 5, "type": "private"},
               "from": {"id": 5, "is_bot": False, "first_name": "Ann"}}  # fmt: skip
    return orjson.dumps({"update_id": update_id, "message": message})


async def test_redis_restarted_mid_conversation() -> None:
    with RedisServer() as redis_server:
        storage = RedisStorage.from_url(redis_server.url, connect_timeout=0.5, timeout=1.0)
        dp = form_dispatcher(storage)
        key = StorageKey(42, 5, 5)
        async with Bot("42:test-token", rate_limiter=None) as bot:
            assert await dp.feed_raw_update(bot, body(1, "hi")) == "asked name"
            assert await dp.feed_raw_update(bot, body(2, "Ann")) == "asked age"

            redis_server.stop(save=True)
            for call in (storage.get_state(key), storage.update_data(key, {"x": 1})):
                started = time.monotonic()
                with pytest.raises(
                    RedisUnavailable,
                    match="Redis FSM storage: .* failed: (connection to redis lost|cannot connect)",
                ):
                    await call
                assert time.monotonic() - started < 3.0
            started = time.monotonic()
            with pytest.raises(RedisUnavailable):  # raised at once, not hung
                await dp.feed_raw_update(bot, body(3, "33"))
            assert time.monotonic() - started < 3.0

            redis_server.start()  # the same storage and client, no rebuild
            assert await storage.get_state(key) == "Form:age"
            assert await dp.feed_raw_update(bot, body(4, "33")) == {"name": "Ann", "age": "33"}
            assert await storage.get_state(key) is None
        await storage.close()


async def test_a_server_that_never_answers_times_out() -> None:
    writers: list[asyncio.StreamWriter] = []

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)
        await reader.read()  # accept, read, never answer
        writer.close()

    listener = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    storage = RedisStorage.from_url(f"redis://127.0.0.1:{port}/0", timeout=0.2, retries=1)
    try:
        started = time.monotonic()
        with pytest.raises(
            RedisUnavailable, match="get_state failed: no reply from redis within 0.2 s"
        ):
            await storage.get_state(KEY)
        assert time.monotonic() - started < 2.0
    finally:
        await storage.close()
        listener.close()
        await listener.wait_closed()
        for writer in writers:  # the client hung up; do not leave our side to the GC
            writer.close()
            await writer.wait_closed()
