"""Album aggregation in one process and over a shared redis-server: one handler call per
media group, complete and in order; redeliveries, failures and expiry leave nothing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from server_support import make_bot

from tgfast import Bot, Dispatcher, F, convert
from tgfast.redis import RespClient
from tgfast.redis.album import RedisAlbumStore
from tgfast.redis.storage import RedisStorage
from tgfast.server import UpdateProcessor
from tgfast.testing import FakeTelegram, updates
from tgfast.types import ErrorEvent, Message, Update
from tgfast.utils.album import Added, AlbumMiddleware, AlbumStore, MemoryAlbumStore, album_key

DELAY = 0.2  # far above a local Redis round trip, even on a busy machine
OFFLINE_BOT = True  # the ``bot`` fixture: these handlers call no API (one test has its own)


def part(update_id: int, message_id: int, group: str, chat_id: int = 1, **fields: Any) -> Update:
    """One part of album ``group``: a photo message with that media_group_id."""
    photo = [{"file_id": f"F{message_id}", "file_unique_id": f"u{message_id}", "width": 1,
              "height": 1}]  # fmt: skip
    body = updates.message(
        chat_id=chat_id, message_id=message_id, media_group_id=group, photo=photo, **fields
    )
    return convert(Update, updates.update(message=body, update_id=update_id))


def text(update_id: int, message_id: int, chat_id: int = 1) -> Update:
    body = updates.message("hello", chat_id=chat_id, message_id=message_id)
    return convert(Update, updates.update(message=body, update_id=update_id))


class Bench:
    """A dispatcher with an ``AlbumMiddleware`` and a handler that records what it got."""

    def __init__(self, store: AlbumStore | None = None, dp: Dispatcher | None = None) -> None:
        self.dp = dp or Dispatcher()
        self.albums = AlbumMiddleware(DELAY, store=store).setup(self.dp)
        self.calls: list[tuple[int, list[int] | None]] = []

        @self.dp.message()
        async def handle(message: Message, album: list[Message] | None = None) -> None:
            ids = None if album is None else [m.message_id for m in album]
            self.calls.append((message.message_id, ids))

    async def feed(self, bot: Bot, *batch: Update) -> None:
        """Through an UpdateProcessor: a chat's updates one at a time, as when serving."""
        processor = UpdateProcessor(self.dp, bot, seen=None)
        for update in batch:
            processor.put(update)
        await processor.drain()
        await self.albums.close()


async def test_album_parts_in_one_chat_queue_make_one_call_in_order(bot: Bot) -> None:
    bench = Bench()
    # a chat's updates are handled one at a time: a middleware that waited inside the
    # update would see part 2 only after giving up on part 1
    await bench.feed(bot, part(1, 12, "g"), text(2, 13), part(3, 10, "g"), part(4, 11, "g"))
    assert bench.calls == [(13, None), (10, [10, 11, 12])]


async def test_albums_of_two_to_ten_parts_interleaved_across_chats(bot: Bot) -> None:
    bench = Bench()
    batch, expected, update_id = [], [], 0
    for size in range(2, 11):
        ids = list(range(size * 100, size * 100 + size))
        expected.append((ids[0], ids))
        for message_id in ids:
            update_id += 1
            batch.append(part(update_id, message_id, f"g{size}", chat_id=size))
    batch.reverse()  # order of arrival does not matter
    await bench.feed(bot, *batch)
    assert sorted(bench.calls) == expected


async def test_redelivered_parts_are_stored_once_and_the_album_handed_once(bot: Bot) -> None:
    bench = Bench()
    first, second = part(1, 10, "g"), part(2, 11, "g")
    await bench.feed(bot, first, second, first, second)
    assert bench.calls == [(10, [10, 11])]
    await bench.feed(bot, second)  # again, after the album was handed over
    assert bench.calls == [(10, [10, 11])]


async def test_a_late_part_is_handled_alone_not_lost(bot: Bot) -> None:
    bench = Bench()
    await bench.feed(bot, part(1, 10, "g"), part(2, 11, "g"))
    await bench.feed(bot, part(3, 12, "g"))
    assert bench.calls == [(10, [10, 11]), (12, [12])]


async def test_edits_and_other_messages_pass_through(bot: Bot) -> None:
    bench = Bench()
    seen: list[Any] = []

    @bench.dp.edited_message()
    async def edited(message: Message, album: list[Message] | None = None) -> None:
        seen.append((message.message_id, album))

    edit = convert(Update, {"update_id": 5, "edited_message": part(9, 10, "g").message.to_dict()})  # type: ignore[union-attr]
    await bench.feed(bot, edit, text(6, 20))
    assert seen == [(10, None)]
    assert bench.calls == [(20, None)]
    assert bench.albums.store is None  # no album seen: no store made


async def test_failing_handler_goes_to_errors_and_leaves_only_the_expiring_record(
    bot: Bot,
) -> None:
    store = MemoryAlbumStore(ttl=1.0)
    dp = Dispatcher()
    errors: list[tuple[str, list[int]]] = []

    @dp.errors()
    async def on_error(event: ErrorEvent, album: list[Message]) -> None:
        errors.append((str(event.exception), [m.message_id for m in album]))

    albums = AlbumMiddleware(DELAY, store=store).setup(dp)

    @dp.message(F.media_group_id)
    async def broken(message: Message, album: list[Message]) -> None:
        raise RuntimeError("boom")

    processor = UpdateProcessor(dp, bot, seen=None)
    processor.put(part(1, 10, "g"))
    processor.put(part(2, 11, "g"))
    await processor.drain()
    await albums.close()
    assert errors == [("boom", [10, 11])]
    assert len(store) == 1  # the record that drops redeliveries of its parts
    await asyncio.sleep(1.1)
    assert len(store) == 0


async def test_memory_store_is_bounded() -> None:
    store = MemoryAlbumStore(max_albums=2)
    assert await store.add("a", 1, part(1, 1, "a")) is Added.NEW
    assert await store.add("b", 1, part(2, 1, "b")) is Added.NEW
    assert await store.add("c", 1, part(3, 1, "c")) is Added.FULL
    assert await store.add("a", 2, part(4, 2, "a")) is Added.NEW  # a waiting album: room


async def test_a_full_store_hands_parts_over_alone(bot: Bot) -> None:
    bench = Bench(MemoryAlbumStore(max_albums=1))
    await bench.feed(bot, part(1, 10, "g"), part(2, 20, "h", chat_id=2), part(3, 11, "g"))
    assert sorted(bench.calls) == [(10, [10, 11]), (20, [20])]


class DownStore(MemoryAlbumStore):
    async def add(self, key: str, message_id: int, update: Update) -> Added:
        raise ConnectionError("store down")


async def test_a_store_that_fails_hands_the_part_over_alone(bot: Bot) -> None:
    bench = Bench(DownStore())
    await bench.feed(bot, part(1, 10, "g"), part(2, 11, "g"))
    assert bench.calls == [(10, [10]), (11, [11])]


async def test_returned_method_is_sent(fake: FakeTelegram) -> None:
    dp = Dispatcher()
    albums = AlbumMiddleware(DELAY).setup(dp)

    @dp.message()
    async def answer(message: Message, album: list[Message]) -> Any:
        return message.answer(f"{len(album)} parts")

    async with make_bot(fake) as bot:
        for update in (part(1, 10, "g"), part(2, 11, "g"), part(3, 12, "g")):
            await dp.feed_update(bot, update)
        await albums.close()
    (call,) = fake.calls_to("sendMessage")
    assert call.params["text"] == "3 parts"


# -- over a shared redis-server ----------------------------------------------------------


@pytest.fixture
async def wire(redis_url: str) -> AsyncIterator[RespClient]:
    client = RespClient.from_url(redis_url)
    yield client
    await client.close()


async def test_two_workers_sharing_redis_hand_each_album_over_once(
    bot: Bot, wire: RespClient
) -> None:
    one, two = Bench(RedisAlbumStore(wire)), Bench(RedisAlbumStore(wire))
    albums = {f"g{size}": list(range(size * 100, size * 100 + size)) for size in range(2, 11)}
    batches: tuple[list[Update], list[Update]] = ([], [])
    update_id = 0
    for size, (group, ids) in enumerate(albums.items(), 2):
        for n, message_id in enumerate(ids):
            update_id += 1
            update = part(update_id, message_id, group, chat_id=size)
            batches[n % 2].append(update)
            # each part redelivered: the first to the other worker, the rest to the same
            batches[(n + 1) % 2 if n == 0 else n % 2].append(update)
    await asyncio.gather(one.feed(bot, *batches[0]), two.feed(bot, *batches[1]))
    handed = sorted(one.calls + two.calls)
    assert handed == sorted((ids[0], ids) for ids in albums.values())
    # from 3 parts on neither worker got them all: complete albums were shared


async def test_redis_keys_expire_and_a_taken_album_keeps_only_its_record(
    bot: Bot, wire: RespClient
) -> None:
    bench = Bench(RedisAlbumStore(wire, key_prefix="t", ttl=5))
    await bench.feed(bot, part(1, 10, "g"))
    keys = await wire.execute("KEYS", "t:*")
    assert keys == [f"t:{bot.id}:1:g:handed".encode()]
    assert 0 < await wire.execute("PTTL", keys[0]) <= 5000
    store = RedisAlbumStore(wire, key_prefix="t", ttl=5)
    assert await store.add("k", 1, part(2, 1, "k")) is Added.NEW
    assert await store.add("k", 1, part(2, 1, "k")) is Added.STORED
    assert 0 < await wire.execute("PTTL", "t:k:parts") <= 5000
    assert isinstance(await store.take("k", 30), float)  # not quiet for 30 s yet
    assert [u.update_id for u in await store.take("k", 0) or []] == [2]  # type: ignore[union-attr]
    assert await store.take("k", 0) is None
    assert await store.add("k", 1, part(2, 1, "k")) is Added.HANDED
    assert await store.add("k", 2, part(3, 2, "k")) is Added.LATE


async def test_redis_storage_brings_the_redis_album_store(bot: Bot, redis_url: str) -> None:
    storage = RedisStorage.from_url(redis_url)
    try:
        bench = Bench(dp=Dispatcher(storage=storage))
        await bench.feed(bot, part(1, 10, "g"), part(2, 11, "g"))
        assert isinstance(bench.albums.store, RedisAlbumStore)
        assert bench.calls == [(10, [10, 11])]
    finally:
        await storage.close()


async def test_the_sweep_takes_over_an_album_nobody_waits_for(bot: Bot, wire: RespClient) -> None:
    store = RedisAlbumStore(wire)
    key = album_key(bot.id, 1, "g")
    for message_id in (11, 10):  # stored by a worker that died before its check
        assert await store.add(key, message_id, part(message_id, message_id, "g")) is Added.NEW
    dp = Dispatcher()
    got: list[list[int]] = []
    albums = AlbumMiddleware(DELAY, store=RedisAlbumStore(wire), sweep_every=0.02).setup(dp)

    @dp.message()
    async def handle(message: Message, album: list[Message]) -> None:
        got.append([m.message_id for m in album])

    await dp.emit_startup(bot=bot)
    for _ in range(200):
        if got:
            break
        await asyncio.sleep(0.01)
    await dp.emit_shutdown(bot=bot)
    assert got == [[10, 11]]
    assert albums.waiting == 0
    assert await wire.execute("KEYS", "*pending") == []  # taken: no longer pending


async def test_a_worker_without_redis_says_its_albums_are_not_shared(
    bot: Bot, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from tgfast.server.supervisor import WORKER_ID_ENV

    monkeypatch.setenv(WORKER_ID_ENV, "1")
    bench = Bench()
    with caplog.at_level("WARNING", logger="tgfast.album"):
        await bench.feed(bot, part(1, 10, "g"), part(2, 11, "g"))
    assert isinstance(bench.albums.store, MemoryAlbumStore)
    assert "run with --redis" in caplog.text
    assert bench.calls == [(10, [10, 11])]
