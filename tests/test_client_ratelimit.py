"""The client's rate limiter, in virtual time (exact and instant) plus one real-time check.

Most tests run the limiter on ``VirtualTimeLoop``: an asyncio event loop whose clock only
moves when every task is asleep, jumping straight to the next timer. The limiter gets
``clock=loop.time`` and the real ``asyncio.sleep``, so the times a send leaves are exact.
"""

from __future__ import annotations

import asyncio
import itertools
import math
import selectors
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tgfast.client.ratelimit import (
    DEFAULT_GROUP,
    DEFAULT_METHODS,
    DEFAULT_OVERALL,
    DEFAULT_PRIVATE,
    Limit,
    LocalRateLimiter,
    RateLimiter,
)
from tgfast.methods import METHODS

T = TypeVar("T")
EPS = 1e-6
CHATS_OF_EVERY_KIND: list[int | str | None] = [7, 7, -7, "@x", "-100123", None]


class _VirtualSelector(selectors.BaseSelector):
    """A selector that never waits: a select with a timeout moves the virtual clock instead."""

    def __init__(self) -> None:
        self.now = 0.0
        self._keys: dict[Any, selectors.SelectorKey] = {}

    def register(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        fd = fileobj if isinstance(fileobj, int) else fileobj.fileno()
        key = selectors.SelectorKey(fileobj, fd, events, data)
        self._keys[fileobj] = key
        return key

    def unregister(self, fileobj: Any) -> selectors.SelectorKey:
        return self._keys.pop(fileobj)

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        if timeout is None:
            raise RuntimeError("deadlock: every task waits and no timer is due")
        self.now += timeout
        return []

    def get_map(self) -> Mapping[Any, selectors.SelectorKey]:
        return self._keys

    def close(self) -> None:
        self._keys.clear()


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """An event loop in virtual time: sleeping costs nothing and lasts exactly as asked."""

    def __init__(self) -> None:
        self._virtual = _VirtualSelector()
        super().__init__(self._virtual)

    def time(self) -> float:
        return self._virtual.now


@pytest.fixture
def vloop() -> Iterator[VirtualTimeLoop]:
    loop = VirtualTimeLoop()
    yield loop
    loop.close()


def run(loop: VirtualTimeLoop, main: Coroutine[Any, Any, T]) -> T:
    return loop.run_until_complete(main)


# The mechanics below are shown on private chats with bursts of 3 (tgfast's default
# before it grew to 6): short sequences reach the paced part. The defaults' own
# behaviour has tests of its own ("the defaults" below).
PRIVATE_3 = Limit(1, 1.0, 3)
GROUP_3 = Limit(20, 60.0, 3)  # the mechanics tests' group: a small burst, 3 s apart


def limiter_on(loop: asyncio.AbstractEventLoop, **limits: Any) -> LocalRateLimiter:
    limits.setdefault("private", PRIVATE_3)
    limits.setdefault("group", GROUP_3)
    return LocalRateLimiter(clock=loop.time, sleep=asyncio.sleep, **limits)


async def leave_time(
    limiter: LocalRateLimiter, chat_id: int | str | None, at: float = 0.0
) -> float:
    """Call acquire at virtual time ``at``; return the time it let the send go."""
    loop = asyncio.get_running_loop()
    if at:
        await asyncio.sleep(at - loop.time())
    await limiter.acquire("sendMessage", chat_id)
    return loop.time()


async def leave_times(limiter: LocalRateLimiter, chats: Sequence[int | str | None]) -> list[float]:
    """Send to ``chats`` all at once (acquire called in list order); when each one left."""
    tasks = [asyncio.create_task(leave_time(limiter, chat)) for chat in chats]
    return list(await asyncio.gather(*tasks))


def gcra_conforms(times: list[float], limit: Limit) -> bool:
    """Whether sends at ``times`` (in order) stay within ``limit``."""
    interval = limit.per / limit.rate
    tolerance = (limit.burst - 1) * interval
    tat = -math.inf
    for t in times:
        if t < tat - tolerance - EPS:
            return False
        tat = max(tat, t) + interval
    return True


def oversleep_once(extra: float) -> Callable[[float], Awaitable[None]]:
    """A sleep whose first call lasts ``extra`` seconds too long, as a busy loop can."""
    lags = [extra]

    async def sleep(delay: float) -> None:
        await asyncio.sleep(delay + (lags.pop() if lags else 0.0))

    return sleep


def finishes_without_suspending(awaitable: Awaitable[None]) -> bool:
    """Whether awaiting this coroutine completes in one step, never yielding to the loop."""
    coro = awaitable.__await__()
    try:
        coro.send(None)
    except StopIteration:
        return True
    coro.close()
    return False


# -- the interface ------------------------------------------------------------------------


def test_local_limiter_satisfies_the_protocol() -> None:
    class AcquireOnly:
        async def acquire(self, method: str, chat_id: int | str | None) -> None: ...

    assert isinstance(LocalRateLimiter(), RateLimiter)
    assert not isinstance(AcquireOnly(), RateLimiter)
    assert not isinstance(object(), RateLimiter)


def test_default_methods_are_the_sending_methods_of_the_spec() -> None:
    sending = {name for name in METHODS if name.startswith(("send", "copy", "forward"))}
    assert set(DEFAULT_METHODS) <= set(METHODS)
    # a new send* method in the spec fails here until someone decides whether it counts
    assert sending - DEFAULT_METHODS == {
        "sendChatAction",
        "sendChatJoinRequestWebApp",
        "sendMessageDraft",
        "sendRichMessageDraft",
    }
    assert {"sendMediaGroup", "copyMessages", "forwardMessages"} <= DEFAULT_METHODS
    assert not {name for name in DEFAULT_METHODS if name.startswith("edit")}
    assert LocalRateLimiter().methods is DEFAULT_METHODS
    assert LocalRateLimiter(methods=frozenset({"sendMessage"})).methods == {"sendMessage"}


def test_defaults_are_telegrams_published_limits() -> None:
    assert DEFAULT_OVERALL == Limit(30, 1.0, 30)
    assert DEFAULT_PRIVATE == Limit(1, 1.0, 6)
    assert DEFAULT_GROUP == Limit(20, 60.0, 20)
    assert Limit(5, 1.0).burst == 1
    assert repr(LocalRateLimiter()) == (
        "LocalRateLimiter(overall=Limit(rate=30, per=1.0, burst=30), "
        "private=Limit(rate=1, per=1.0, burst=6), group=Limit(rate=20, per=60.0, burst=20), "
        f"methods=<{len(DEFAULT_METHODS)} methods>)"
    )


@pytest.mark.parametrize(
    "limit",
    [
        Limit(0, 1.0, 1),
        Limit(-1, 1.0, 1),
        Limit(1, 0.0, 1),
        Limit(1, math.inf, 1),
        Limit(math.nan, 1.0, 1),
        Limit(1, 1.0, 0),
        Limit(1, 1.0, 1.5),  # type: ignore[arg-type]
        Limit(1, 1.0, True),
    ],
)
@pytest.mark.parametrize("which", ["overall", "private", "group"])
def test_invalid_limits_are_refused(which: str, limit: Limit) -> None:
    arguments: dict[str, Any] = {which: limit}
    with pytest.raises(ValueError, match=which):
        LocalRateLimiter(**arguments)


# -- the defaults: a conversation is not paced, a stream is --------------------------------


def default_limiter(loop: asyncio.AbstractEventLoop) -> LocalRateLimiter:
    return LocalRateLimiter(clock=loop.time, sleep=asyncio.sleep)


def test_an_answer_of_six_messages_leaves_at_once(vloop: VirtualTimeLoop) -> None:
    limiter = default_limiter(vloop)

    async def conversation() -> list[list[float]]:
        # a user writes every 8 s; the bot answers each message with 2 to 6 messages
        answers = []
        for turn, size in enumerate([6, 2, 5, 6, 3]):
            await asyncio.sleep(8 * turn - vloop.time())
            answers.append(await leave_times(limiter, [42] * size))
        return answers

    for turn, times in enumerate(run(vloop, conversation())):
        assert times == [8 * turn] * len(times)  # not one of them waited


def test_a_stream_to_one_private_chat_is_held_to_one_per_second(vloop: VirtualTimeLoop) -> None:
    limiter = default_limiter(vloop)
    times = run(vloop, leave_times(limiter, [42] * 100))
    assert times == [0.0] * 6 + [float(k) for k in range(1, 95)]
    assert gcra_conforms(times, DEFAULT_PRIVATE)
    # sustained: 60 in any later minute, 65 at most right after an idle spell
    assert max(sum(1 for t in times if s <= t < s + 60) for s in range(40)) == 65
    assert sum(1 for t in times if 10 <= t < 70) == 60


def test_a_group_conversation_is_not_paced(vloop: VirtualTimeLoop) -> None:
    limiter = default_limiter(vloop)

    async def conversation() -> list[float]:
        # an active group: a reply every 2 s for a minute, two at once now and then
        times: list[float] = []
        for turn in range(12):
            await asyncio.sleep(2 * turn - vloop.time())
            times += await leave_times(limiter, [-100] * (2 if turn % 3 == 0 else 1))
        return times

    times = run(vloop, conversation())
    assert len(times) == 16 and times == sorted(times)
    sent_at = [2.0 * t for t in range(12) for _ in range(2 if t % 3 == 0 else 1)]
    assert times == sent_at  # not one reply waited


def test_a_stream_to_a_group_is_held_to_twenty_per_minute(vloop: VirtualTimeLoop) -> None:
    limiter = default_limiter(vloop)
    times = run(vloop, leave_times(limiter, [-100] * 60))
    assert times == [0.0] * 20 + [3.0 * k for k in range(1, 41)]
    assert gcra_conforms(times, DEFAULT_GROUP)
    # sustained: 20 in any minute once the burst is spent; 39 at most in the first one
    assert sum(1 for t in times if 3 <= t < 63) == 20
    assert max(sum(1 for t in times if s <= t < s + 60) for s in range(0, 121, 3)) == 39


def test_answers_to_many_users_are_held_to_thirty_per_second(vloop: VirtualTimeLoop) -> None:
    limiter = default_limiter(vloop)
    # 60 users each get an answer of 5 messages at the same moment: 300 sends
    chats = [user for user in range(1, 61) for _ in range(5)]
    times = run(vloop, leave_times(limiter, chats))
    assert gcra_conforms(sorted(times), DEFAULT_OVERALL)
    assert max(times) == pytest.approx((300 - 30) / 30)  # the overall burst, then 30/s
    for user in range(1, 61):
        assert gcra_conforms(
            [t for c, t in zip(chats, times, strict=True) if c == user], DEFAULT_PRIVATE
        )


# -- the limits ---------------------------------------------------------------------------


def test_private_chat_bursts_then_one_per_second(vloop: VirtualTimeLoop) -> None:
    limiter = limiter_on(vloop)

    async def main() -> tuple[list[float], list[float]]:
        first = await leave_times(limiter, [42] * 6)
        await asyncio.sleep(10 - vloop.time())  # idle: the burst is back
        return first, await leave_times(limiter, [42] * 4)

    first, later = run(vloop, main())
    assert first == [0, 0, 0, 1, 2, 3]
    assert later == [10, 10, 10, 11]


def test_group_twenty_per_minute(vloop: VirtualTimeLoop) -> None:
    limiter = limiter_on(vloop)
    times = run(vloop, leave_times(limiter, [-1001234] * 25))
    assert times == [0, 0, 0] + [3.0 * k for k in range(1, 23)]
    assert gcra_conforms(times, GROUP_3)
    # the long-run rate: 20 in any minute once the burst is spent
    assert sum(1 for t in times if 3 <= t < 63) == 20


@pytest.mark.parametrize(
    ("first", "second"),
    [("@MyChannel", "@mychannel"), ("-100777", -100777), (-5, "-5")],
)
def test_spellings_of_one_group_share_its_bucket(
    vloop: VirtualTimeLoop, first: int | str, second: int | str
) -> None:
    limiter = limiter_on(vloop)
    assert run(vloop, leave_times(limiter, [first, second, first, second])) == [0, 0, 0, 3]


def test_positive_string_id_is_a_private_chat(vloop: VirtualTimeLoop) -> None:
    limiter = limiter_on(vloop)
    assert run(vloop, leave_times(limiter, ["77", 77, "77", 77])) == [0, 0, 0, 1]


def test_overall_thirty_per_second_across_chats(vloop: VirtualTimeLoop) -> None:
    limiter = limiter_on(vloop)
    times = run(vloop, leave_times(limiter, list(range(1, 91))))
    assert times[:30] == [0] * 30
    assert times[30:] == pytest.approx([k / 30 for k in range(1, 61)])
    assert gcra_conforms(times, DEFAULT_OVERALL)
    assert not gcra_conforms([0.0] * 31, DEFAULT_OVERALL)  # the check itself can fail


def test_a_send_without_chat_counts_overall_only(vloop: VirtualTimeLoop) -> None:
    limiter = limiter_on(vloop, overall=Limit(2, 1.0, 2), private=Limit(1, 10.0, 1))
    assert run(vloop, leave_times(limiter, [None] * 5)) == [0, 0, 0.5, 1.0, 1.5]


def test_a_busy_chat_does_not_hold_back_other_chats(vloop: VirtualTimeLoop) -> None:
    limiter = limiter_on(vloop)

    async def main() -> tuple[list[float], list[float]]:
        busy = [asyncio.create_task(leave_time(limiter, 1)) for _ in range(10)]
        others = [
            asyncio.create_task(leave_time(limiter, chat, at))
            for chat, at in [(2, 0.0), (3, 0.5), (-4, 2.25)]
        ]
        return list(await asyncio.gather(*busy)), list(await asyncio.gather(*others))

    busy, others = run(vloop, main())
    assert busy == [0, 0, 0, 1, 2, 3, 4, 5, 6, 7]
    assert others == [0, 0.5, 2.25]


def test_overall_slots_go_to_sends_their_chat_allows_first(vloop: VirtualTimeLoop) -> None:
    # Chat 1's second send may only leave at 1.0; chat 2's, asked at 0.5, is free then.
    # Booking chat 1's overall slot ahead (at 1.0) would push chat 2 back to 2.0.
    limiter = limiter_on(vloop, overall=Limit(1, 1.0, 1), private=Limit(1, 1.0, 1))

    async def main() -> list[float]:
        tasks = [
            asyncio.create_task(leave_time(limiter, 1)),
            asyncio.create_task(leave_time(limiter, 1)),
            asyncio.create_task(leave_time(limiter, 2, 0.5)),
        ]
        return list(await asyncio.gather(*tasks))

    assert run(vloop, main()) == [0, 2, 1]


def test_chat_is_charged_when_its_send_really_leaves(vloop: VirtualTimeLoop) -> None:
    # Chat 1's second send is free by its chat at 3.0, but four sends to other chats took
    # the overall slots up to 4.9 meanwhile: it leaves at 4.9, so its third send may only
    # leave a second after that, not at 4.0 as a booking made at 3.0 would have it.
    limiter = limiter_on(vloop, overall=Limit(2, 1.0, 1), private=Limit(1, 1.0, 1))

    async def main() -> list[float]:
        fillers = [asyncio.create_task(leave_time(limiter, chat)) for chat in range(100, 104)]
        mine = [asyncio.create_task(leave_time(limiter, 1)) for _ in range(3)]
        fillers += [asyncio.create_task(leave_time(limiter, c, 2.9)) for c in range(200, 204)]
        await asyncio.gather(*fillers)
        return list(await asyncio.gather(*mine))

    times = run(vloop, main())
    assert times == pytest.approx([2.0, 4.9, 5.9])
    assert gcra_conforms(times, Limit(1, 1.0, 1))


def test_methods_not_counted_never_wait(vloop: VirtualTimeLoop) -> None:
    limiter = limiter_on(vloop)

    async def main() -> None:
        limiter.penalize(None, 100.0)
        limiter.penalize(7, 100.0)
        for method in [
            "editMessageText",
            "sendChatAction",
            "sendMessageDraft",
            "getMe",
            "deleteMessage",
            "answerCallbackQuery",
        ]:
            for chat in CHATS_OF_EVERY_KIND:
                assert finishes_without_suspending(limiter.acquire(method, chat))
        assert not finishes_without_suspending(limiter.acquire("sendMessage", 7))
        assert not finishes_without_suspending(limiter.acquire("sendMessage", 8))

    run(vloop, main())


def test_free_sends_do_not_suspend_and_others_do_not_count(vloop: VirtualTimeLoop) -> None:
    limiter = limiter_on(vloop)

    async def main() -> None:
        for _ in range(100):
            assert finishes_without_suspending(limiter.acquire("editMessageText", 5))
        assert finishes_without_suspending(limiter.acquire("sendMessage", 5))
        assert finishes_without_suspending(limiter.acquire("sendPhoto", 5))
        assert finishes_without_suspending(limiter.acquire("copyMessage", 5))
        assert not finishes_without_suspending(limiter.acquire("sendMessage", 5))

    run(vloop, main())


def test_custom_methods_choose_what_counts(vloop: VirtualTimeLoop) -> None:
    limiter = limiter_on(vloop, methods=frozenset({"editMessageText"}))

    async def main() -> None:
        for _ in range(10):
            assert finishes_without_suspending(limiter.acquire("sendMessage", 5))
        for _ in range(3):
            assert finishes_without_suspending(limiter.acquire("editMessageText", 5))
        assert not finishes_without_suspending(limiter.acquire("editMessageText", 5))

    run(vloop, main())


def test_none_switches_every_limit_off() -> None:
    sleeps: list[float] = []

    async def sleep(delay: float) -> None:
        sleeps.append(delay)

    limiter = LocalRateLimiter(overall=None, private=None, group=None, sleep=sleep)
    for chat in CHATS_OF_EVERY_KIND * 500:
        assert finishes_without_suspending(limiter.acquire("sendMessage", chat))
    assert sleeps == []
    assert limiter.tracked_chats == 0


def test_private_none_leaves_the_overall_limit(vloop: VirtualTimeLoop) -> None:
    limiter = limiter_on(vloop, private=None)
    times = run(vloop, leave_times(limiter, [5] * 32 + [-6] * 4))
    assert times[:30] == [0] * 30
    # the group's first send left at 0.1 (overall), so its fourth may leave at 3.1
    assert times[30:] == pytest.approx([1 / 30, 2 / 30, 3 / 30, 4 / 30, 5 / 30, 3.1])


def test_group_none_and_overall_none(vloop: VirtualTimeLoop) -> None:
    limiter = limiter_on(vloop, overall=None, group=None)
    times = run(vloop, leave_times(limiter, [-6] * 50 + list(range(1, 51)) * 3 + [1]))
    assert times == [0] * 200 + [1]


# -- penalties ----------------------------------------------------------------------------


def test_penalize_a_chat(vloop: VirtualTimeLoop) -> None:
    limiter = limiter_on(vloop)

    async def main() -> tuple[list[float], list[float]]:
        await limiter.acquire("sendMessage", 5)
        limiter.penalize(5, 10.0)
        times = await leave_times(limiter, [5, 5, 5, 6, -6])
        return times[:3], times[3:]

    penalized, others = run(vloop, main())
    assert penalized == [10, 11, 12]  # then at the chat's rate, no burst
    assert others == [0, 0]


def test_penalize_moves_queued_sends_in_order(vloop: VirtualTimeLoop) -> None:
    limiter = limiter_on(vloop)
    order: list[int] = []

    async def send(i: int) -> float:
        t = await leave_time(limiter, 5)
        order.append(i)
        return t

    async def main() -> list[float]:
        tasks = [asyncio.create_task(send(i)) for i in range(6)]
        await asyncio.sleep(1.5)
        limiter.penalize(5, 10.0)
        return list(await asyncio.gather(*tasks))

    assert run(vloop, main()) == [0, 0, 0, 1, 12, 13]
    assert order == list(range(6))


def test_penalize_moves_sends_holding_a_slot(vloop: VirtualTimeLoop) -> None:
    # overall 1/s: sends to chats 1..5 at once hold the slots 0, 1, 2, 3, 4
    limiter = limiter_on(vloop, overall=Limit(1, 1.0, 1), private=None)

    async def main() -> list[float]:
        tasks = [asyncio.create_task(leave_time(limiter, chat)) for chat in range(1, 6)]
        await asyncio.sleep(0.5)
        limiter.penalize(3, 10.0)
        return list(await asyncio.gather(*tasks))

    assert run(vloop, main()) == [0, 1, 12, 3, 4]


def test_after_a_penalty_the_next_send_follows_the_moved_ones(vloop: VirtualTimeLoop) -> None:
    # chat 1's first send holds the overall slot 1.0 when the chat is penalized until 1.5:
    # it moves to 2.0, and the chat's next send comes a full interval after it
    limiter = limiter_on(vloop, overall=Limit(1, 1.0, 1), private=Limit(1, 1.0, 3))

    async def main() -> list[float]:
        tasks = [asyncio.create_task(leave_time(limiter, chat)) for chat in [9, 1]]
        await asyncio.sleep(0.5)
        limiter.penalize(1, 1.0)
        tasks.append(asyncio.create_task(leave_time(limiter, 1)))
        return list(await asyncio.gather(*tasks))

    assert run(vloop, main()) == [0, 2, 3]


def test_penalize_everything(vloop: VirtualTimeLoop) -> None:
    limiter = limiter_on(vloop, overall=Limit(1, 1.0, 1))

    async def main() -> list[float]:
        tasks = [asyncio.create_task(leave_time(limiter, chat)) for chat in range(1, 6)]
        tasks += [asyncio.create_task(leave_time(limiter, 1))]  # chat 1's burst: slot 5
        await asyncio.sleep(0.5)
        limiter.penalize(None, 10.0)
        tasks += [asyncio.create_task(leave_time(limiter, chat)) for chat in [9, None]]
        return list(await asyncio.gather(*tasks))

    times = run(vloop, main())
    assert times == pytest.approx([0, 11, 12, 13, 14, 15, 16, 17])
    assert gcra_conforms(sorted(times), Limit(1, 1.0, 1))


def test_penalize_everything_moves_chat_buckets_too(vloop: VirtualTimeLoop) -> None:
    # chat 1's first send holds the overall slot 0.5; the global penalty moves it to 1.5,
    # so chat 1's next send, asked right after the penalty, may only leave at 2.5
    limiter = limiter_on(vloop, overall=Limit(2, 1.0, 1), private=Limit(1, 1.0, 1))

    async def main() -> list[float]:
        tasks = [asyncio.create_task(leave_time(limiter, chat)) for chat in [9, 1]]
        await asyncio.sleep(0.25)
        limiter.penalize(None, 1.0)
        tasks.append(asyncio.create_task(leave_time(limiter, 1)))
        return list(await asyncio.gather(*tasks))

    times = run(vloop, main())
    assert times == pytest.approx([0, 1.5, 2.5])
    assert gcra_conforms(times[1:], Limit(1, 1.0, 1))


def test_penalize_a_chat_whose_limit_is_off(vloop: VirtualTimeLoop) -> None:
    limiter = limiter_on(vloop, private=None, group=None)
    limiter.penalize(5, 3.0)
    limiter.penalize("@Chan", 4.0)
    times = run(vloop, leave_times(limiter, [5, 5, 6, "@chan"]))
    assert times == [3, 3, 0, 4]


@pytest.mark.parametrize("chat", [2, None])
def test_a_send_that_wakes_late_still_honours_a_penalty(
    vloop: VirtualTimeLoop, chat: int | None
) -> None:
    # the send to chat 2 holds the overall slot 1.0 but its first sleep overruns to 3.0;
    # a penalty given at 2.0 until 7.0 must hold it, though 1.0 + 5 s is only 6.0
    limiter = LocalRateLimiter(
        overall=Limit(1, 1.0, 1), private=None, clock=vloop.time, sleep=oversleep_once(2.0)
    )

    async def main() -> list[float]:
        tasks = [asyncio.create_task(leave_time(limiter, c)) for c in [1, 2]]
        await asyncio.sleep(2.0)
        limiter.penalize(chat, 5.0)
        return list(await asyncio.gather(*tasks))

    assert run(vloop, main()) == [0, 7]


@pytest.mark.parametrize("seconds", [0.0, -1.0, math.nan])
def test_penalize_without_a_positive_time_does_nothing(seconds: float) -> None:
    limiter = LocalRateLimiter(clock=lambda: 0.0)
    limiter.penalize(5, seconds)
    limiter.penalize(None, seconds)
    assert finishes_without_suspending(limiter.acquire("sendMessage", 5))
    assert limiter.tracked_chats == 1


# -- order, cancellation, memory ----------------------------------------------------------


def test_waiters_for_one_chat_leave_in_call_order(vloop: VirtualTimeLoop) -> None:
    limiter = limiter_on(vloop, overall=Limit(3, 1.0, 2))
    order: list[tuple[int | str, int]] = []

    async def send(chat: int | str, i: int, at: float) -> None:
        await leave_time(limiter, chat, at)
        order.append((chat, i))

    async def main() -> None:
        calls = [(-9, i, i * 0.4) for i in range(12)] + [(c, 0, 0.1 * c) for c in range(1, 20)]
        await asyncio.gather(*(send(chat, i, at) for chat, i, at in calls))

    run(vloop, main())
    assert [i for chat, i in order if chat == -9] == list(range(12))
    assert len(order) == 12 + 19


def test_a_late_head_keeps_its_place(vloop: VirtualTimeLoop) -> None:
    # the second send may leave at 1.0 but oversleeps to 3.0; the third, asked at 2.0
    # when the chat's bucket alone would let it go, still leaves after it
    limiter = LocalRateLimiter(
        overall=None, private=Limit(1, 1.0, 1), clock=vloop.time, sleep=oversleep_once(2.0)
    )
    order: list[int] = []

    async def send(i: int, at: float) -> float:
        t = await leave_time(limiter, 5, at)
        order.append(i)
        return t

    async def main() -> list[float]:
        tasks = [asyncio.create_task(send(i, at)) for i, at in enumerate([0.0, 0.0, 2.0])]
        return list(await asyncio.gather(*tasks))

    assert run(vloop, main()) == [0, 3, 4]
    assert order == [0, 1, 2]


def test_sends_due_at_one_instant_leave_in_call_order(vloop: VirtualTimeLoop) -> None:
    # Without an overall limit a global penalty makes chat 1's first three sends due at
    # 5.0. Timers due at one instant may fire in any order: this sleep fires later
    # timers first (a picosecond early), and the sends must still leave in call order.
    calls = itertools.count()

    async def later_first(delay: float) -> None:
        await asyncio.sleep(delay - next(calls) * 1e-12)

    limiter = LocalRateLimiter(overall=None, private=PRIVATE_3, clock=vloop.time, sleep=later_first)
    order: list[int] = []

    async def send(i: int) -> float:
        t = await leave_time(limiter, 1)
        order.append(i)
        return t

    async def main() -> list[float]:
        limiter.penalize(None, 5.0)
        return list(await asyncio.gather(*(send(i) for i in range(4))))

    assert run(vloop, main()) == pytest.approx([5, 5, 5, 6])
    assert order == [0, 1, 2, 3]


def test_a_late_send_holding_a_slot_keeps_its_place(vloop: VirtualTimeLoop) -> None:
    # the first send is due at 5.0 (global penalty) but oversleeps to 6.0; the second,
    # asked at 5.5 when the chat and the overall budget would let it go, waits for it
    limiter = LocalRateLimiter(
        overall=None, private=PRIVATE_3, clock=vloop.time, sleep=oversleep_once(1.0)
    )
    order: list[int] = []

    async def send(i: int, at: float) -> float:
        t = await leave_time(limiter, 1, at)
        order.append(i)
        return t

    async def main() -> list[float]:
        limiter.penalize(None, 5.0)
        return list(await asyncio.gather(send(0, 0.0), send(1, 5.5)))

    assert run(vloop, main()) == [6, 6]
    assert order == [0, 1]


@pytest.mark.parametrize(("cancelled", "expected"), [(3, [0, 0, 0, 1, 2]), (4, [0, 0, 0, 1, 2])])
def test_a_cancelled_queued_waiter_gives_its_place_back(
    vloop: VirtualTimeLoop, cancelled: int, expected: list[float]
) -> None:
    # at 0.5: waiter 3 is the queue's head (sleeping until 1.0), waiter 4 is behind it
    limiter = limiter_on(vloop)

    async def main() -> list[float]:
        tasks = [asyncio.create_task(leave_time(limiter, 5)) for _ in range(6)]
        await asyncio.sleep(0.5)
        tasks.pop(cancelled).cancel()
        return list(await asyncio.gather(*tasks))

    assert run(vloop, main()) == expected


def test_a_cancelled_waiter_holding_a_slot_keeps_it(vloop: VirtualTimeLoop) -> None:
    limiter = limiter_on(vloop, overall=Limit(1, 1.0, 1))

    async def main() -> list[float]:
        tasks = [asyncio.create_task(leave_time(limiter, chat)) for chat in [1, 2, 3]]
        await asyncio.sleep(0.5)
        tasks.pop(1).cancel()  # held the overall slot at 1.0
        return list(await asyncio.gather(*tasks))

    assert run(vloop, main()) == [0, 2]


def test_memory_stays_bounded_over_100k_chats() -> None:
    clock = [0.0]
    sleeps: list[float] = []

    async def sleep(delay: float) -> None:
        sleeps.append(delay)
        clock[0] += delay

    limiter = LocalRateLimiter(overall=None, private=PRIVATE_3, clock=lambda: clock[0], sleep=sleep)

    async def main() -> tuple[int, int]:
        largest = sweeps = 0
        tracked = 0
        for i in range(1, 100_001):
            clock[0] += 0.001  # 1000 chats a second: ~3000 private, ~3000 groups constrained
            for _ in range(3):
                await limiter.acquire("sendMessage", i)  # the private chat's burst, spent
            await limiter.acquire("sendMessage", -i)
            if i % 7 == 0:
                limiter.penalize(i * 1000, 0.5)
            assert sleeps == []
            if limiter.tracked_chats < tracked:
                # just swept: the chat filled a millisecond ago is remembered and waits
                sweeps += 1
                await limiter.acquire("sendMessage", i - 1)
                assert sleeps == [pytest.approx(0.999)]
                sleeps.clear()
            tracked = limiter.tracked_chats
            largest = max(largest, tracked)
        return largest, sweeps

    largest, sweeps = asyncio.run(main())
    assert sweeps >= 10
    assert largest <= 2 * 7000  # twice the chats that still constrain anything


# -- properties ---------------------------------------------------------------------------

CHATS: list[int | str | None] = [1, 2, 3, -1, -2, "@c", None]
PROPERTY_LIMITS: list[dict[str, Limit | None]] = [
    {"overall": Limit(4, 1.0, 3), "private": Limit(1, 1.0, 2), "group": Limit(1, 3.0, 2)},
    {"overall": Limit(2, 1.0, 1), "private": Limit(1, 1.0, 3), "group": Limit(1, 2.0, 1)},
    {"overall": None, "private": Limit(1, 1.0, 3), "group": Limit(1, 3.0, 2)},
    {"overall": Limit(3, 1.0, 2), "private": None, "group": Limit(1, 2.0, 2)},
]


@given(
    st.sampled_from(PROPERTY_LIMITS),
    st.lists(
        st.tuples(
            st.integers(0, 16).map(lambda q: q / 4),
            st.sampled_from(CHATS),
            st.sampled_from([None, None, None, None, 0.5, 1.0, 2.5, -1.0]),
        ),
        max_size=40,
    ),
)
def test_any_mix_of_sends_and_penalties_keeps_every_promise(
    limits: dict[str, Limit | None],
    script: list[tuple[float, int | str | None, float | None]],
) -> None:
    """Each item: at time ``at``, send to ``chat`` (``seconds`` None) or penalize it.

    Promises: every send leaves; a chat's sends leave in call order; no send leaves during
    a penalty given before it left; the chat limits always hold, and the overall limit
    holds unless a single chat was penalized (its sends holding slots move, see module).
    """
    loop = VirtualTimeLoop()
    limiter = limiter_on(loop, **limits)
    # (kind, chat, call number, time, until)
    log: list[tuple[str, int | str | None, int, float, float]] = []

    async def act(number: int, at: float, chat: int | str | None, seconds: float | None) -> None:
        await asyncio.sleep(at)
        if seconds is None:
            log.append(("call", chat, number, loop.time(), 0.0))
            await limiter.acquire("sendMessage", chat)
            log.append(("leave", chat, number, loop.time(), 0.0))
        else:
            limiter.penalize(chat, seconds)
            if seconds > 0:
                log.append(("penalty", chat, number, loop.time(), loop.time() + seconds))

    async def main() -> None:
        await asyncio.gather(*(act(number, *item) for number, item in enumerate(script)))

    try:
        loop.run_until_complete(main())
    finally:
        loop.close()

    calls = [(chat, number) for kind, chat, number, _, _ in log if kind == "call"]
    leaves = [(chat, number, t) for kind, chat, number, t, _ in log if kind == "leave"]
    assert sorted(number for _, number, _ in leaves) == sorted(number for _, number in calls)
    for chat in CHATS:
        if chat is None:
            continue
        called = [number for c, number in calls if c == chat]
        assert [number for c, number, _ in leaves if c == chat] == called
        times = [t for c, _, t in leaves if c == chat]
        limit = limits["private" if isinstance(chat, int) and chat > 0 else "group"]
        assert limit is None or gcra_conforms(times, limit), (chat, times)
    for index, (kind, chat, _, at, until) in enumerate(log):
        if kind != "penalty":
            continue
        for later_kind, later_chat, _, t, _ in log[index + 1 :]:
            if later_kind == "leave" and (chat is None or later_chat == chat):
                assert t >= until - EPS, (chat, at, until, later_chat, t)
    overall = limits["overall"]
    if overall and not any(kind == "penalty" and chat is not None for kind, chat, *_ in log):
        assert gcra_conforms(sorted(t for *_, t in leaves), overall)


# -- real time ----------------------------------------------------------------------------


async def test_it_really_waits() -> None:
    limiter = LocalRateLimiter()
    started = time.monotonic()
    await asyncio.gather(*(limiter.acquire("sendMessage", 1) for _ in range(7)))  # burst + 1
    one_chat = time.monotonic() - started
    started = time.monotonic()
    await asyncio.gather(*(limiter.acquire("sendMessage", chat) for chat in range(2, 6)))
    four_chats = time.monotonic() - started
    assert one_chat >= 0.95
    assert four_chats < 0.5
