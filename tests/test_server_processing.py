"""The processing model over real sockets: per-chat order, bounds, dedup, concurrency."""

from __future__ import annotations

import asyncio
import random
from collections import defaultdict
from collections.abc import Callable, Sequence

import aiohttp
import pytest
from server_support import deliver_like_telegram, message, post, served

from tgfast import Bot, Dispatcher, convert
from tgfast.server import Claim, MemorySeenUpdates, UpdateProcessor, update_key
from tgfast.testing import FakeTelegram
from tgfast.types import Message, Update

# -- ordering ---------------------------------------------------------------------------


async def test_fifty_interleaved_chats_each_in_order_and_chats_concurrently(
    bot: Bot, fake: FakeTelegram, http: aiohttp.ClientSession
) -> None:
    chats, per_chat = 50, 8
    dp = Dispatcher()
    handled: dict[int, list[int]] = defaultdict(list)
    running: dict[int, int] = defaultdict(int)
    most_in_a_chat = most_overall = 0
    rng = random.Random(6)

    @dp.message()
    async def work(message: Message) -> None:
        nonlocal most_in_a_chat, most_overall
        chat = message.chat.id
        running[chat] += 1
        most_in_a_chat = max(most_in_a_chat, running[chat])
        most_overall = max(most_overall, sum(running.values()))
        await asyncio.sleep(rng.uniform(0, 0.004))  # finish out of order, if allowed to
        handled[chat].append(int(message.text or ""))
        await message.answer(message.text or "")
        running[chat] -= 1

    async with served(dp, bot) as server:
        update_id = 0
        for n in range(per_chat):  # round robin: chat 1 #0, chat 2 #0, ..., chat 1 #1, ...
            for chat in range(1, chats + 1):
                update_id += 1
                assert (await post(http, server.url or "", message(update_id, chat, str(n))))[
                    0
                ] == 200
        await server.drain()

    assert sorted(handled) == list(range(1, chats + 1))
    for chat in range(1, chats + 1):
        assert handled[chat] == list(range(per_chat)), chat
        assert [m["text"] for m in fake.sent_messages(chat)] == [str(n) for n in range(per_chat)]
    assert most_in_a_chat == 1  # never two updates of one chat at once
    assert most_overall > 1  # but chats ran side by side


async def _two_of_one_chat_overlap(bot: Bot, concurrency: str) -> bool:
    """Whether the second update of a chat starts before the first one ends."""
    dp = Dispatcher()
    second_started = asyncio.Event()

    @dp.message()
    async def work(message: Message) -> bool:
        if message.text == "first":
            try:
                await asyncio.wait_for(second_started.wait(), 0.3)
            except asyncio.TimeoutError:
                return False
            return True
        second_started.set()
        return True

    processor = UpdateProcessor(dp, bot, concurrency=concurrency)  # type: ignore[arg-type]
    for update_id, text in ((1, "first"), (2, "second")):
        await processor.submit(convert(Update, message(update_id, 9, text)))
    await processor.drain()
    return (
        second_started.is_set()
        and processor.metrics.handled["message"] == 2
        and (processor.metrics.latency.count == 2)
        and processor.metrics.latency.sum < 0.25
    )


async def test_chat_mode_serializes_a_chat_and_full_mode_does_not(bot: Bot) -> None:
    assert await _two_of_one_chat_overlap(bot, "full") is True
    assert await _two_of_one_chat_overlap(bot, "chat") is False
    assert await _two_of_one_chat_overlap(bot, "sequential") is False


async def test_sequential_mode_runs_one_update_at_a_time_across_chats(bot: Bot) -> None:
    dp = Dispatcher()
    order: list[int] = []
    running = most = 0

    @dp.message()
    async def work(message: Message) -> None:
        nonlocal running, most
        running += 1
        most = max(most, running)
        await asyncio.sleep(0)
        order.append(message.message_id)
        running -= 1

    processor = UpdateProcessor(dp, bot, concurrency="sequential")
    for i in range(1, 21):
        await processor.submit(convert(Update, message(i, i % 5 + 1, "x")))
    await processor.drain()
    assert order == list(range(1, 21)) and most == 1


def test_ordering_keys() -> None:
    user = {"id": 7, "is_bot": False, "first_name": "Ann"}
    group = {"id": -100, "type": "supergroup", "title": "G"}
    on_message = {"message_id": 3, "date": 1, "chat": group}
    cases = [
        ({"message": {"message_id": 1, "date": 1, "chat": group}}, ("message", -100)),
        ({"callback_query": {"id": "q", "from": user, "chat_instance": "c", "message": on_message}},
         ("callback_query", -100)),
        ({"callback_query": {"id": "q", "from": user, "chat_instance": "c",
                             "inline_message_id": "i"}}, ("callback_query", 7)),
        ({"inline_query": {"id": "i", "from": user, "query": "", "offset": ""}},
         ("inline_query", 7)),
        ({"poll": {"id": "p", "question": "?", "options": [], "total_voter_count": 0,
                   "is_closed": False, "is_anonymous": True, "type": "regular",
                   "allows_multiple_answers": False, "allows_revoting": False,
                   "members_only": False}},
         ("poll", None)),
        ({"poll_answer": {"poll_id": "p", "user": user, "option_ids": [0],
                          "option_persistent_ids": ["a"]}}, ("poll_answer", 7)),
        ({"some_future_kind": {"x": 1}}, ("unknown", None)),
    ]  # fmt: skip
    for payload, expected in cases:
        assert update_key(convert(Update, {"update_id": 1, **payload})) == expected


# -- bounds -----------------------------------------------------------------------------


async def test_overload_is_refused_with_503_and_redelivery_handles_everything_once(
    bot: Bot, fake: FakeTelegram, http: aiohttp.ClientSession
) -> None:
    bound = 8
    dp = Dispatcher()
    handled: list[int] = []
    gate = asyncio.Event()
    highest_in_flight = 0

    async with served(dp, bot, max_in_flight=bound) as server:

        @dp.message()
        async def work(message: Message) -> None:
            nonlocal highest_in_flight
            highest_in_flight = max(highest_in_flight, server.processor.in_flight)
            await gate.wait()  # held until the client has been refused at least once
            await asyncio.sleep(0.001)
            handled.append(message.message_id)
            await message.answer(message.text or "")

        statuses: list[int] = []
        refused = asyncio.Event()

        async def telegram(update_id: int) -> int:
            chat = update_id % 12 + 1
            attempts = await deliver_like_telegram(
                http, server.url or "", message(update_id, chat, str(update_id)),
                statuses=statuses,
            )  # fmt: skip
            return attempts

        async def open_the_gate() -> None:
            while 503 not in statuses:
                await asyncio.sleep(0.001)
            refused.set()
            gate.set()

        opener = asyncio.ensure_future(open_the_gate())
        attempts = await asyncio.gather(*(telegram(i) for i in range(1, 121)))
        await opener
        await server.processor.join()  # all handled: a redelivery now is not "busy"
        # Telegram-style redelivery of updates already acknowledged: dropped as duplicates
        for update_id in (5, 50, 100):
            await deliver_like_telegram(
                http, server.url or "", message(update_id, 1, "again"), statuses=statuses
            )
        await server.drain()

    assert refused.is_set() and sum(attempts) > 120
    assert statuses.count(200) == 120 + 3
    assert sorted(handled) == list(range(1, 121))  # every update exactly once
    assert len(fake.sent_messages()) == 120
    assert highest_in_flight <= bound
    assert server.metrics.rejected["overloaded"] == statuses.count(503)
    assert server.metrics.rejected["duplicate"] == 3


async def test_a_redelivery_is_busy_while_the_first_copy_runs_and_a_duplicate_after(
    bot: Bot,
) -> None:
    dp = Dispatcher()
    handled: list[int] = []

    @dp.message()
    async def work(message: Message) -> None:
        handled.append(message.message_id)

    seen = MemorySeenUpdates()
    processor = UpdateProcessor(dp, bot, seen=seen)

    async def submit(update_id: int) -> str:
        return (await processor.submit(convert(Update, message(update_id, 4, "x")))).value

    admissions = [await submit(update_id) for update_id in (1, 2, 1, 3, 2)]
    # not handled yet: refused (503) so that the redelivery comes back, rather than
    # acknowledged on the word of a copy that may yet be lost
    assert admissions == ["accepted", "accepted", "busy", "accepted", "busy"]
    assert processor.in_flight == 3  # a refused redelivery holds no slot
    await processor.join()  # handled, and marked done
    assert handled == [1, 2, 3]
    assert [await submit(update_id) for update_id in (1, 2)] == ["duplicate"] * 2
    await processor.drain()
    assert processor.metrics.rejected["busy"] == 2
    assert processor.metrics.rejected["duplicate"] == 2
    assert processor.in_flight == 0

    # without dedup, a redelivery is handled again
    processor = UpdateProcessor(dp, bot, seen=None)
    handled.clear()
    for update_id in (1, 1):
        await processor.submit(convert(Update, message(update_id, 4, "x")))
    await processor.drain()
    assert handled == [1, 1]


class BrokenSeen:
    """A shared store that cannot be reached."""

    def __init__(self) -> None:
        self.claims = 0

    async def claim(self, bot_id: int, update_id: int) -> Claim:
        self.claims += 1
        raise ConnectionError("redis is down")

    async def done(self, bot_id: int, update_ids: Sequence[int]) -> None:
        raise ConnectionError("redis is down")

    async def release(self, bot_id: int, update_id: int) -> None:
        raise ConnectionError("redis is down")


async def test_a_failing_seen_store_refuses_with_503_and_takes_nothing(
    bot: Bot, http: aiohttp.ClientSession
) -> None:
    dp = Dispatcher()
    handled: list[int] = []

    @dp.message()
    async def work(message: Message) -> None:
        handled.append(message.message_id)

    broken = BrokenSeen()
    async with served(dp, bot, seen=broken) as server:
        status, _, headers = await post(http, server.url or "", message(1, 1, "x"))
        assert status == 503 and headers["Retry-After"] == "1"
        assert server.processor.in_flight == 0
        await server.drain()
    assert broken.claims == 1 and handled == []
    assert server.metrics.rejected["unavailable"] == 1


async def test_the_bound_is_checked_before_the_shared_store_is_asked(bot: Bot) -> None:
    dp = Dispatcher()
    gate = asyncio.Event()

    @dp.message()
    async def work(message: Message) -> None:
        await gate.wait()

    class CountingSeen(MemorySeenUpdates):
        claims = 0

        async def claim(self, bot_id: int, update_id: int) -> Claim:
            self.claims += 1
            await asyncio.sleep(0)  # a round trip: other submits run meanwhile
            return await super().claim(bot_id, update_id)

    seen = CountingSeen()
    processor = UpdateProcessor(dp, bot, seen=seen, max_in_flight=3)
    results = await asyncio.gather(
        *(processor.submit(convert(Update, message(i, i, "x"))) for i in range(1, 7))
    )
    assert [r.value for r in results].count("accepted") == 3
    assert [r.value for r in results].count("full") == 3
    assert seen.claims == 3  # a refused update costs no claim, so needs no release
    gate.set()
    await processor.drain()


async def test_seen_updates_are_bounded_per_bot_and_released_on_request() -> None:
    new, done, busy = Claim.NEW, Claim.DONE, Claim.BUSY
    seen = MemorySeenUpdates(size=3)
    assert [await seen.claim(1, i) for i in (1, 2, 3, 1)] == [new, new, new, busy]
    await seen.done(1, [1, 3, 99])  # 99 was never claimed: nothing to mark
    assert [await seen.claim(1, i) for i in (1, 2, 3)] == [done, busy, done]
    assert await seen.claim(2, 1) is new  # another bot: its own ids
    assert await seen.claim(1, 4) is new  # 1 is forgotten now: the oldest of bot 1
    assert await seen.claim(1, 1) is new
    assert len(seen) == 4  # three of bot 1, one of bot 2
    await seen.release(1, 4)
    assert await seen.claim(1, 4) is new
    await seen.release(9, 9)  # nothing to forget: no error
    await seen.done(9, [9])
    with pytest.raises(ValueError):
        MemorySeenUpdates(size=0)


async def test_abort_drops_what_is_in_flight_and_releases_its_claims(bot: Bot) -> None:
    dp = Dispatcher()
    started = asyncio.Event()

    @dp.message()
    async def stuck(message: Message) -> None:
        started.set()
        await asyncio.Event().wait()

    seen = MemorySeenUpdates()
    processor = UpdateProcessor(dp, bot, seen=seen)
    for update_id in (1, 2):  # one chat: 1 runs, 2 waits behind it
        await processor.submit(convert(Update, message(update_id, 4, "x")))
    await processor.submit(convert(Update, message(3, 5, "x")))
    await processor.submit(convert(Update, message(5, 6, "x")))
    await started.wait()
    await asyncio.sleep(0)
    assert processor.in_flight == 4
    assert await processor.abort() == 4
    assert processor.in_flight == 0 and processor.closed
    # the abandoned claims are gone (running and queued): a redelivery would be handled
    assert [await seen.claim(bot.id, i) for i in (1, 2, 3, 5)] == [Claim.NEW] * 4
    assert await seen.claim(bot.id, 4) is Claim.NEW  # never claimed at all
    assert (await processor.submit(convert(Update, message(6, 4, "x")))).value == "closed"


async def test_put_refuses_at_the_bound_and_wait_for_room_wakes_when_one_finishes(
    bot: Bot,
) -> None:
    dp = Dispatcher()
    gates = {1: asyncio.Event(), 2: asyncio.Event()}

    @dp.message()
    async def work(message: Message) -> None:
        await gates[message.message_id].wait()

    processor = UpdateProcessor(dp, bot, max_in_flight=2)
    assert processor.put(convert(Update, message(1, 1, "x"))).value == "accepted"
    assert processor.put(convert(Update, message(2, 2, "x"))).value == "accepted"
    assert processor.put(convert(Update, message(3, 3, "x"))).value == "full"
    assert processor.room == 0
    waiting = asyncio.ensure_future(processor.wait_for_room())
    await asyncio.sleep(0.01)
    assert not waiting.done()
    gates[2].set()
    assert await waiting == 1
    gates[1].set()
    await processor.drain()
    assert processor.metrics.rejected["overloaded"] == 1


async def test_a_saturated_loop_holds_the_in_flight_count_and_lets_it_grow_when_not(
    bot: Bot,
) -> None:
    """While the loop's thread is busy (its CPU time keeps up with the wall clock) two
    ticks in a row, updates are taken only as others finish: the bound in force comes down
    to what is in flight (not below a floor), and follows it down. A tick with idle time
    raises it back by half, up to ``max_in_flight``."""
    dp = Dispatcher()
    gate = asyncio.Event()

    @dp.message()
    async def work(message: Message) -> None:
        await gate.wait()

    loop = asyncio.get_running_loop()
    busy = True
    cpu = 0.0
    last = loop.time()

    def cpu_clock() -> float:  # the loop thread's CPU seconds: all of the wall time, or none
        nonlocal cpu, last
        now = loop.time()
        cpu += (now - last) if busy else 0.0
        last = now
        return cpu

    processor = UpdateProcessor(dp, bot, max_in_flight=1000)
    processor._cpu_clock = cpu_clock  # type: ignore[method-assign]
    for n in range(1, 201):
        assert processor.put(convert(Update, message(n, n, "x"))).value == "accepted"
    assert processor.in_flight_limit == 1000

    async def until(condition: Callable[[], bool]) -> None:
        for _ in range(200):
            if condition():
                return
            await asyncio.sleep(0.005)
        raise AssertionError("the watch did not get there")

    await processor.start()
    await until(lambda: processor.in_flight_limit == 200)  # held where it was
    assert processor.room == 0 and processor.full
    assert processor.put(convert(Update, message(201, 201, "x"))).value == "full"
    assert processor.metrics.rejected["overloaded"] == 1
    metrics = processor.metrics.render()
    assert "tgfast_updates_in_flight_limit 200" in metrics
    gate.set()  # all of them finish: the bound follows them down, to the floor
    await until(lambda: processor.in_flight == 0)
    await until(lambda: processor.in_flight_limit == 64)
    busy = False  # idle time: the bound grows back by half a tick
    await until(lambda: processor.in_flight_limit == 96)
    await until(lambda: processor.in_flight_limit == 1000)
    assert processor.put(convert(Update, message(202, 202, "x"))).value == "accepted"
    await processor.drain()
    assert processor._lag_timer is None and processor.in_flight_limit == 1000

    small = UpdateProcessor(dp, bot, max_in_flight=2)  # a bound below the floor holds
    small._cpu_clock = cpu_clock  # type: ignore[method-assign]
    busy = True
    await small.start()
    await until(lambda: small._busy_ticks >= 3)
    assert small.in_flight_limit == 2
    await small.drain()
