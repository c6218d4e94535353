"""The other users of the shared Redis, against a real redis-server: the client's
RedisRateLimiter (one budget for several processes) and the serving layer's
RedisSeenUpdates (update ids claimed once across workers)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from redis.asyncio import Redis
from redis_server import RedisServer, free_port

from tgfast.client.ratelimit import Limit, RateLimiter
from tgfast.fsm import StorageError
from tgfast.redis import RedisRateLimiter, RedisSeenUpdates, RedisUnavailable, connect_redis
from tgfast.server.seen import Claim, SeenUpdates
from tgfast.tasks import cancel_and_wait

STEP = 0.05  # 20 per second
SLACK = 0.005  # timer granularity


@pytest.fixture
async def clients(redis_server: RedisServer) -> AsyncIterator[list[Redis]]:
    """Three clients with their own connections, standing for three processes."""
    redis_server.flushall()
    made = [connect_redis(redis_server.url) for _ in range(3)]
    yield made
    while LIMITERS:
        await LIMITERS.pop().close()  # the RespClient each made like its redis-py client
    for client in made:
        await client.aclose()


LIMITERS: list[RedisRateLimiter] = []


def limiter(client: Redis, bot_id: int = 1, **limits: Limit | None) -> RedisRateLimiter:
    limits.setdefault("overall", None)
    limits.setdefault("private", None)
    limits.setdefault("group", None)
    made = RedisRateLimiter(client, bot_id=bot_id, **limits)
    LIMITERS.append(made)
    return made


async def timed_sends(sends: list[tuple[RedisRateLimiter, int | str | None]]) -> list[float]:
    start = time.monotonic()

    async def one(rl: RedisRateLimiter, chat: int | str | None) -> float:
        await rl.acquire("sendMessage", chat)
        return time.monotonic() - start

    return sorted(await asyncio.gather(*(one(rl, chat) for rl, chat in sends)))


def assert_spaced(times: list[float], burst: int) -> None:
    """The n-th send leaves no earlier than GCRA allows, and not much later."""
    for n, t in enumerate(times):
        assert t >= max(0, n - burst + 1) * STEP - SLACK, (n, times)
    assert times[-1] < (len(times) - burst) * STEP + 1.0, times


# -- RedisRateLimiter -----------------------------------------------------------------


async def test_two_processes_share_a_chat_budget(clients: list[Redis]) -> None:
    one = limiter(clients[0], private=Limit(1 / STEP, 1.0, burst=2))
    two = limiter(clients[1], private=Limit(1 / STEP, 1.0, burst=2))
    assert isinstance(one, RateLimiter)
    times = await timed_sends([(one, 7), (two, 7)] * 5)
    assert_spaced(times, burst=2)
    assert times[-1] >= 8 * STEP - SLACK  # one budget: 10 sends, not 2 x 5


async def test_the_overall_limit_spans_chats_and_processes(clients: list[Redis]) -> None:
    one = limiter(clients[0], overall=Limit(1 / STEP, 1.0))
    two = limiter(clients[1], overall=Limit(1 / STEP, 1.0))
    times = await timed_sends([(rl, chat) for chat in range(1, 6) for rl in (one, two)])
    assert_spaced(times, burst=1)


async def test_group_limit_and_usernames(clients: list[Redis]) -> None:
    one = limiter(clients[0], group=Limit(1 / STEP, 1.0))
    two = limiter(clients[1], group=Limit(1 / STEP, 1.0))
    # "@Chan" and "@chan" are one chat; a private chat has no limit here
    times = await timed_sends([(one, "@Chan"), (two, "@chan"), (one, "@CHAN"), (two, 5)])
    # the private send and the first channel send are not held back (a held one waits a STEP;
    # an absolute bound below that flaked under load at 0.03 s)
    assert times[1] < STEP - SLACK
    assert times[2] >= STEP - SLACK and times[3] >= 2 * STEP - SLACK
    assert await clients[2].exists("tgfast:ratelimit:1:chat:@chan") == 1


async def test_bots_and_chats_have_their_own_budgets(clients: list[Redis]) -> None:
    busy = limiter(clients[0], private=Limit(1.0, 10.0))  # one send per 10 s
    await busy.acquire("sendMessage", 7)
    other_bot = limiter(clients[1], bot_id=2, private=Limit(1.0, 10.0))
    other_chat = limiter(clients[1], private=Limit(1.0, 10.0))
    started = time.monotonic()
    await asyncio.wait_for(other_bot.acquire("sendMessage", 7), 1)
    await asyncio.wait_for(other_chat.acquire("sendMessage", 8), 1)
    assert time.monotonic() - started < 0.5
    with pytest.raises(asyncio.TimeoutError):  # the busy chat of bot 1 really waits
        await asyncio.wait_for(busy.acquire("sendMessage", 7), 0.3)


async def test_methods_not_counted_pass_without_redis(clients: list[Redis]) -> None:
    rl = limiter(clients[0], private=Limit(1.0, 10.0))
    for _ in range(5):
        await asyncio.wait_for(rl.acquire("editMessageText", 7), 0.2)
    assert await clients[2].keys("*") == []
    assert "sendMessage" in rl.methods and "editMessageText" not in rl.methods


async def test_chat_keys_expire_with_their_tat(clients: list[Redis]) -> None:
    rl = limiter(clients[0], private=Limit(1.0, 2.0))
    await rl.acquire("sendMessage", 7)
    ttl = await clients[2].pttl("tgfast:ratelimit:1:chat:7")
    assert 2000 < ttl <= 3000  # the TAT (2 s ahead) plus a second


async def test_penalize_is_sync_and_holds_every_process(clients: list[Redis]) -> None:
    one = limiter(clients[0], private=Limit(1 / STEP, 1.0, burst=3))
    two = limiter(clients[1], private=Limit(1 / STEP, 1.0, burst=3))
    assert one.penalize(7, 0.3) is None  # returns at once; the write runs in a task
    await one.flush()
    times = await timed_sends([(two, 7), (two, 8)])
    assert times[0] < 0.1  # chat 8 is free
    assert times[1] >= 0.3 - SLACK - 0.05  # chat 7 waits out the penalty (less the flush)
    one.penalize(None, 0.25)  # a global penalty: every chat, every process
    await one.flush()
    times = await timed_sends([(two, 9), (two, 10)])
    assert times[0] >= 0.2


async def test_an_endless_penalty_holds_the_chat(clients: list[Redis]) -> None:
    rl = limiter(clients[0], private=Limit(1 / STEP, 1.0))
    rl.penalize(7, float("inf"))
    rl.penalize(8, float("nan"))  # not a penalty: ignored
    await rl.flush()
    assert 86_000_000 < await clients[2].pttl("tgfast:ratelimit:1:chat:7") <= 86_401_000
    assert await clients[2].exists("tgfast:ratelimit:1:chat:8") == 0
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(rl.acquire("sendMessage", 7), 0.2)
    await asyncio.wait_for(rl.acquire("sendMessage", 8), 0.2)


async def test_redis_down_falls_back_to_local_limits(caplog: pytest.LogCaptureFixture) -> None:
    client = connect_redis(f"redis://127.0.0.1:{free_port()}/0", connect_timeout=0.2, retries=0)
    rl = limiter(client, private=Limit(1 / STEP, 1.0))
    caplog.set_level(logging.WARNING, logger="tgfast.client")
    try:
        times = await asyncio.wait_for(timed_sends([(rl, 7)] * 3), 5)
        rl.penalize(7, 0.01)  # never raises
        await rl.flush()
    finally:
        await LIMITERS.pop().close()
        await client.aclose()
    assert times[1] - times[0] >= STEP - SLACK  # still limited, by the local fallback
    warnings = [r.message for r in caplog.records if "Redis unreachable" in r.message]
    assert len(warnings) == 1, warnings  # once per outage, not per send


async def test_penalize_without_a_loop_does_not_raise(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    rl = limiter(connect_redis(redis_server.url))

    def outside_the_loop() -> None:
        rl.penalize(7, 1.0)

    caplog.set_level(logging.WARNING, logger="tgfast.client")
    await asyncio.to_thread(outside_the_loop)
    assert any("could not record" in r.message for r in caplog.records)
    await LIMITERS.pop().close()
    await rl._redis.aclose()  # type: ignore[union-attr]


# -- RedisSeenUpdates -----------------------------------------------------------------


NEW, DONE, BUSY = Claim.NEW, Claim.DONE, Claim.BUSY


async def test_claim_once_per_bot_and_update(clients: list[Redis]) -> None:
    seen = RedisSeenUpdates(clients[0], ttl=60)
    assert isinstance(seen, SeenUpdates)  # what the serving layer takes
    assert await seen.claim(1, 100) is NEW
    assert await seen.claim(1, 100) is BUSY  # ours, not done yet
    assert await seen.claim(2, 100) is NEW  # another bot
    assert 59_000 < await clients[2].pttl("tgfast:seen:1:100") <= 60_000
    await seen.done(1, [100])
    assert await seen.claim(1, 100) is DONE
    assert await clients[2].get("tgfast:seen:1:100") == b"done"
    assert 59_000 < await clients[2].pttl("tgfast:seen:1:100") <= 60_000
    await seen.release(1, 100)
    assert await seen.claim(1, 100) is NEW
    await seen.release(1, 999)  # forgetting what was never claimed is fine
    await seen.close()


async def test_workers_race_for_each_update(clients: list[Redis]) -> None:
    workers = [RedisSeenUpdates(client, key_prefix="race") for client in clients]
    results = await asyncio.gather(
        *(w.claim(1, update_id) for update_id in range(50) for w in workers)
    )
    per_update = [results[i : i + 3] for i in range(0, len(results), 3)]
    assert all(sorted(r, key=lambda c: c.value) == [BUSY, BUSY, NEW] for r in per_update)
    await workers[0].done(1, range(50))
    assert {await w.claim(1, u) for w in workers for u in range(50)} == {DONE}
    for w in workers:
        await w.close()


async def test_concurrent_first_claims_start_one_lease(clients: list[Redis]) -> None:
    seen = RedisSeenUpdates(clients[0], key_prefix="first")
    tasks_before = len(asyncio.all_tasks())
    claims = await asyncio.gather(*(seen.claim(1, u) for u in range(10)))
    assert claims == [NEW] * 10
    assert len(asyncio.all_tasks()) == tasks_before + 1  # one renewal task, not ten
    await seen.close()
    assert len(asyncio.all_tasks()) == tasks_before


async def test_a_dead_workers_unfinished_claims_are_taken_over(clients: list[Redis]) -> None:
    """A worker that dies mid-update leaves its claim behind: refused as busy while its
    lease lasts, taken over after, so the update is not dropped as a duplicate."""
    dying = RedisSeenUpdates(clients[0], key_prefix="lease", lease=0.3)
    alive = RedisSeenUpdates(clients[1], key_prefix="lease", lease=0.3)
    assert await dying.claim(1, 7) is NEW
    assert await dying.claim(1, 8) is NEW
    await dying.done(1, [8])
    await asyncio.sleep(0.5)  # renewed meanwhile: still alive
    assert await alive.claim(1, 7) is BUSY
    assert dying._renewing is not None
    await cancel_and_wait(dying._renewing)  # dies: its lease is no longer renewed
    started = time.monotonic()
    while (claim := await alive.claim(1, 7)) is BUSY:
        assert time.monotonic() - started < 2.0, "the dead worker's lease never lapsed"
        await asyncio.sleep(0.05)
    assert claim is NEW  # taken over: the next delivery handles it
    assert time.monotonic() - started < 1.0  # gone for a whole lease: dead
    assert await alive.claim(1, 8) is DONE  # what it finished stays done
    await alive.close()
    assert await clients[2].exists(f"lease:lease:{alive._token}") == 0  # closed: let go
    await dying._wire.close()  # what its process's death would have done


async def test_a_dead_workers_acknowledged_updates_are_adopted_with_their_bodies(
    clients: list[Redis],
) -> None:
    """A worker killed after acknowledging an update: Telegram never sends it again, so
    a live worker takes it over from the journal (body and claim) and handles it."""
    dying = RedisSeenUpdates(clients[0], key_prefix="j", lease=0.3)
    alive = RedisSeenUpdates(clients[1], key_prefix="j", lease=0.3)
    other_bot: list[list[bytes]] = []
    taken: list[list[bytes]] = []
    assert await dying.claim(1, 7, b'{"update_id": 7}') is NEW
    assert await dying.claim(1, 8, b'{"update_id": 8}') is NEW
    assert await dying.claim(2, 9, b'{"update_id": 9}') is NEW  # another bot's
    assert await dying.claim(1, 10) is NEW  # no body: nothing to hand over
    await dying.done(1, [8])
    await alive.adopt(1, taken.append)
    await asyncio.sleep(0.5)
    assert taken == []  # its lease is renewed: alive, nothing taken
    assert dying._renewing is not None
    await cancel_and_wait(dying._renewing)  # dies
    await eventually_true(lambda: taken != [], within=2.0)
    assert taken == [[b'{"update_id": 7}']]  # not 8 (done), not bot 2's, not 10 (no body)
    assert await clients[2].get("j:1:7") == alive._token.encode()  # the claim is alive's
    third = RedisSeenUpdates(clients[2], key_prefix="j", lease=0.3)
    assert await third.claim(1, 7) is BUSY  # a redelivery waits for alive to finish it
    await alive.done(1, [7])
    assert await third.claim(1, 7) is DONE
    assert await clients[2].hgetall(f"j:owned:{alive._token}") == {}
    # bot 2's update waits in the dead worker's journal for a worker of bot 2
    assert await clients[2].hgetall(f"j:owned:{dying._token}") == {b"2:9": b'{"update_id": 9}'}
    await third.adopt(2, other_bot.append)
    assert other_bot == [[b'{"update_id": 9}']]
    assert await clients[2].exists(f"j:owned:{dying._token}") == 0
    assert dying._token.encode() not in await clients[2].smembers("j:workers")
    await asyncio.sleep(0.3)
    assert taken == [[b'{"update_id": 7}']]  # taken over once, not at every renewal
    for seen in (alive, third):
        await seen.close()
    await dying._wire.close()  # what its process's death would have done


async def test_done_and_release_forget_the_body(clients: list[Redis]) -> None:
    seen = RedisSeenUpdates(clients[0], key_prefix="b")
    for update_id in (1, 2, 3):
        assert await seen.claim(5, update_id, b"body %d" % update_id) is NEW
    owned = f"b:owned:{seen._token}"
    assert await clients[2].hgetall(owned) == {b"5:1": b"body 1", b"5:2": b"body 2",
                                               b"5:3": b"body 3"}  # fmt: skip
    await seen.done(5, [1, 2])
    await seen.release(5, 3)
    assert await clients[2].hgetall(owned) == {}
    assert await seen.claim(5, 3, b"again") is NEW  # released: free again
    await seen.close()


async def test_a_finished_update_whose_done_mark_redis_lost_is_never_taken_over(
    clients: list[Redis],
) -> None:
    """A failover to a replica that missed the done mark brings the claim and its body
    back: the worker that handled it answers a redelivery as done, marks it done at its
    renewals, and a clean close leaves nothing of its own for another worker to adopt."""
    seen = RedisSeenUpdates(clients[0], key_prefix="f", lease=0.3)
    for update_id in (1, 2):
        assert await seen.claim(1, update_id, b"body %d" % update_id) is NEW
    await seen.done(1, [1, 2])
    owned = f"f:owned:{seen._token}"
    for update_id in (1, 2):  # what the promoted replica holds: the claims, not the marks
        await clients[2].set(f"f:1:{update_id}", seen._token)
        await clients[2].hset(owned, f"1:{update_id}", b"body %d" % update_id)
    other = RedisSeenUpdates(clients[1], key_prefix="f", lease=0.3)
    assert await other.claim(1, 1) is BUSY  # the worker that claimed it is alive
    assert await seen.claim(1, 1) is DONE  # and knows it handled it
    await seen.close()  # before a renewal could mark them: the close retires them
    assert await clients[2].exists(owned) == 0
    assert await clients[2].mget(["f:1:1", "f:1:2"]) == [b"done", b"done"]
    assert seen._token.encode() not in await clients[2].smembers("f:workers")
    taken: list[list[bytes]] = []
    await other.adopt(1, taken.append)
    assert taken == []
    assert await other.claim(1, 2) is DONE
    await other.close()


async def test_a_renewal_marks_done_what_redis_lost(clients: list[Redis]) -> None:
    seen = RedisSeenUpdates(clients[0], key_prefix="r", lease=0.3)
    assert await seen.claim(1, 1, b"one") is NEW
    assert await seen.claim(1, 2, b"two") is NEW  # still being handled
    await seen.done(1, [1])
    await clients[2].set("r:1:1", seen._token)  # the mark lost, the claim back
    await clients[2].hset(f"r:owned:{seen._token}", "1:1", b"one")
    await eventually_true_async(lambda: clients[2].get("r:1:1"), b"done", within=2.0)
    assert await clients[2].hgetall(f"r:owned:{seen._token}") == {b"1:2": b"two"}
    assert await clients[2].get("r:1:2") == seen._token.encode()  # live: left alone
    await seen.done(1, [2])
    await seen.close()


async def test_a_lease_that_expired_while_redis_was_away_is_not_taken_for_death(
    clients: list[Redis],
) -> None:
    """Redis back after an outage longer than the lease (with its data): every lease is
    expired. A worker that renews first must not take over the others' updates: a
    worker is dead only once its lease has been gone for a whole lease."""
    alive = RedisSeenUpdates(clients[0], key_prefix="o", lease=0.6)
    other = RedisSeenUpdates(clients[1], key_prefix="o", lease=0.6)
    taken: list[list[bytes]] = []
    assert await alive.claim(1, 1, b"one") is NEW  # being handled
    await other.adopt(1, taken.append)
    assert other._renewing is not None and alive._renewing is not None
    await cancel_and_wait(other._renewing)  # its ticks by hand below
    await clients[2].delete(f"o:lease:{alive._token}")  # expired while Redis was away
    await other._take_over()
    assert await other.claim(1, 1) is BUSY
    assert taken == []
    await alive._renew()  # its next tick, within a third of a lease
    await asyncio.sleep(0.7)
    await other._take_over()
    assert taken == []
    assert await other.claim(1, 1) is BUSY
    await cancel_and_wait(alive._renewing)  # now it dies
    started = time.monotonic()
    while not taken:
        assert time.monotonic() - started < 3.0, "a dead worker's updates were never taken"
        await other._take_over()
        await asyncio.sleep(0.05)
    assert taken == [[b"one"]]
    assert time.monotonic() - started > 0.6  # gone for a whole lease, not at first sight
    await other.done(1, [1])
    await alive._wire.close()
    await other.close()


async def eventually_true_async(get: Any, expected: Any, within: float) -> None:
    started = time.monotonic()
    while await get() != expected:
        assert time.monotonic() - started < within, "never happened"
        await asyncio.sleep(0.02)


async def eventually_true(check: Any, within: float) -> None:
    started = time.monotonic()
    while not check():
        assert time.monotonic() - started < within, "never happened"
        await asyncio.sleep(0.02)


async def test_seen_ids_expire(clients: list[Redis]) -> None:
    seen = RedisSeenUpdates(clients[0], ttl=0.2)
    assert await seen.claim(1, 5) is NEW
    await seen.done(1, [5])
    await asyncio.sleep(0.3)
    assert await seen.claim(1, 5) is NEW
    await seen.close()


async def test_seen_while_redis_is_down() -> None:
    seen = RedisSeenUpdates.from_url(
        f"redis://127.0.0.1:{free_port()}/0", connect_timeout=0.2, retries=0
    )
    started = time.monotonic()
    with pytest.raises(RedisUnavailable, match="seen updates: claim failed: cannot connect"):
        await seen.claim(1, 1)
    with pytest.raises(RedisUnavailable, match="release failed"):
        await seen.release(1, 1)
    with pytest.raises(StorageError, match="done failed"):  # RedisUnavailable is one
        await seen.done(1, [1])
    assert time.monotonic() - started < 2.0
    await seen.close()
    with pytest.raises(ValueError, match="ttl must be a positive"):
        RedisSeenUpdates.from_url("redis://127.0.0.1:1/0", ttl=0)


# -- RedisShared ------------------------------------------------------------------------


async def test_shared_parts_use_one_connection(redis_server: RedisServer) -> None:
    from tgfast import Bot
    from tgfast.dispatcher import Dispatcher
    from tgfast.fsm import StorageKey
    from tgfast.redis import RedisShared

    redis_server.flushall()
    observer = connect_redis(redis_server.url)
    before = len(await observer.client_list())
    shared = RedisShared.from_url(redis_server.url, bot_id=42, key_prefix="one")
    try:
        assert shared.storage.wire is shared.wire and shared.seen._wire is shared.wire
        assert shared.rate_limiter is not None and shared.rate_limiter._wire is shared.wire
        await shared.check()
        await shared.storage.set_state(StorageKey(42, 1, 1), "Form:name")
        assert await shared.seen.claim(42, 7) is Claim.NEW
        await shared.rate_limiter.acquire("sendMessage", 1)
        assert len(await observer.client_list()) == before + 1  # the three on one socket
        assert await observer.get("one:fsm:42:1:1:::default:state") == b"Form:name"
        assert await observer.exists("one:ratelimit:42:global") == 1
        dp = Dispatcher()
        bot = Bot("42:test-token")
        shared.install(dp, bot)
        assert dp.storage is shared.storage and bot.rate_limiter is shared.rate_limiter
        await bot.session.close()
    finally:
        await shared.close()
    for _ in range(100):  # closing is the server's news a moment later
        if len(await observer.client_list()) == before:
            break
        await asyncio.sleep(0.01)
    assert len(await observer.client_list()) == before
    await observer.aclose()


async def test_shared_check_fails_clearly_without_the_password_in_the_text() -> None:
    from tgfast.redis import RedisShared

    url = f"redis://:hunter2@127.0.0.1:{free_port()}/0"
    shared = RedisShared.from_url(url, bot_id=1, connect_timeout=0.2)
    try:
        with pytest.raises(
            RedisUnavailable, match="cannot reach Redis at redis://:\\*\\*\\*@"
        ) as e:
            await shared.check()
        assert "hunter2" not in str(e.value)
    finally:
        await shared.close()
