"""``Backoff``, the one back-off of the package, and what each of its users relies on:
the Bot's retries (half of the delay jitter), the poller (a quarter), the leader lock,
and the supervisor (exact delays, forgotten after a run of ``reset_after``)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from tgfast import Bot, Dispatcher, RetryPolicy
from tgfast.backoff import Backoff
from tgfast.server import POLL_BACKOFF, RESTART_BACKOFF, Poller, Supervisor
from tgfast.server.supervisor import _Slot


def test_delays_grow_by_factor_up_to_the_cap_less_jitter() -> None:
    backoff = Backoff(min_delay=0.5, max_delay=4.0, factor=3.0, jitter=0.5)
    for failures, cap in [(0, 0.5), (1, 1.5), (2, 4.0), (3, 4.0), (10_000, 4.0)]:
        assert backoff.cap(failures) == cap
        delays = {backoff.delay(failures) for _ in range(50)}
        assert all(cap / 2 <= d <= cap for d in delays)
        assert len(delays) > 1  # jittered


def test_no_jitter_is_exact_and_reset_after_is_a_length_of_run() -> None:
    exact = Backoff(min_delay=0.25, max_delay=1.0, jitter=0.0, reset_after=5.0)
    assert [exact.delay(n) for n in range(5)] == [0.25, 0.5, 1.0, 1.0, 1.0]
    assert exact.resets(5.0) and not exact.resets(4.99)
    assert not Backoff().resets(1e9)  # without reset_after only a success resets


@pytest.mark.parametrize(
    "options",
    [{"min_delay": -1.0}, {"min_delay": 2.0, "max_delay": 1.0}, {"factor": 0.5}, {"jitter": 1.5}],
)
def test_a_backoff_that_cannot_work_is_refused(options: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="need"):
        Backoff(**options)


def test_a_retry_policy_that_cannot_back_off_is_refused_when_made() -> None:
    with pytest.raises(ValueError, match="min_delay <= max_delay"):
        RetryPolicy(backoff=5.0, max_backoff=1.0)


def test_the_bot_retries_wait_half_fixed_half_jitter() -> None:
    policy = RetryPolicy(backoff=0.5, max_backoff=10.0)
    assert isinstance(policy.backoff_policy, Backoff)
    for failures, cap in [(0, 0.5), (1, 1.0), (4, 8.0), (5, 10.0), (200, 10.0)]:
        delays = {policy.delay(failures) for _ in range(50)}
        assert all(cap / 2 <= d <= cap for d in delays)
        assert len(delays) > 1


async def test_the_poller_and_the_supervisor_take_a_backoff(bot: Bot) -> None:
    poller = Poller(Dispatcher(), bot)
    assert poller.backoff is POLL_BACKOFF
    assert (POLL_BACKOFF.min_delay, POLL_BACKOFF.max_delay, POLL_BACKOFF.jitter) == (
        0.5,
        30.0,
        0.25,
    )
    assert Supervisor(["true"], 1).backoff is RESTART_BACKOFF
    assert [RESTART_BACKOFF.delay(n) for n in range(7)] == [0.5, 1, 2, 4, 8, 16, 30]
    assert RESTART_BACKOFF.resets(10.0) and not RESTART_BACKOFF.resets(9.0)


class _Exited:
    """A worker process that has already exited."""

    pid = 4242

    async def wait(self) -> int:
        return 1


async def test_the_supervisor_waits_longer_for_each_young_death_and_forgets_after_a_long_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker that dies young waits longer each time; one that ran ``reset_after``
    seconds is restarted at once, and its next young death waits the least again."""
    backoff = Backoff(min_delay=0.001, max_delay=0.004, jitter=0.0, reset_after=10.0)
    supervisor = Supervisor(["true"], 1, backoff=backoff)
    runs = [1.0, 1.0, 1.0, 1.0, 60.0, 1.0, 1.0]  # seconds each process "ran"
    delays: list[float] = []

    async def spawn(slot: _Slot) -> Any:
        started = len(delays) + (slot.process is not None)
        if slot.process is not None:  # a restart: record the delay it waited
            delays.append(slot.delay)
        if started == len(runs):  # the last one: stop instead of dying
            supervisor._stopping.set()
        slot.started_at = time.monotonic() - runs[min(started, len(runs) - 1)]
        slot.ready = slot.served = True
        process: Any = _Exited()
        slot.process = process
        return process

    monkeypatch.setattr(supervisor, "_spawn", spawn)
    await asyncio.wait_for(supervisor._keep(supervisor._slots[0]), 10)
    assert delays == [0.001, 0.002, 0.004, 0.004, 0.0, 0.001, 0.002]
