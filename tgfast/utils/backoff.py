"""aiogram's ``aiogram.utils.backoff``: a ``BackoffConfig`` (what ``start_polling(
backoff_config=...)`` takes) and ``Backoff``, an iterator over the delays it gives.

tgfast's own retry policies use ``tgfast.Backoff`` (jitter as a share of the delay);
these keep aiogram's meaning: each delay is the previous one times ``factor``, capped at
``max_delay``, plus Gaussian noise of standard deviation ``jitter`` seconds.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass

__all__ = ["Backoff", "BackoffConfig"]


@dataclass(frozen=True)
class BackoffConfig:
    """Delays from ``min_delay`` growing by ``factor`` up to ``max_delay`` (seconds)."""

    min_delay: float
    max_delay: float
    factor: float
    jitter: float

    def __post_init__(self) -> None:
        if self.max_delay <= self.min_delay:
            raise ValueError("`max_delay` should be greater than `min_delay`")
        if self.factor <= 1:
            raise ValueError("`factor` should be greater than 1")


class Backoff:
    """``next(backoff)``: the delay to wait now; ``reset()`` after a success."""

    def __init__(self, config: BackoffConfig) -> None:
        self.config = config
        self._current_delay = 0.0
        self._next_delay = config.min_delay
        self._counter = 0

    @property
    def min_delay(self) -> float:
        return self.config.min_delay

    @property
    def max_delay(self) -> float:
        return self.config.max_delay

    @property
    def factor(self) -> float:
        return self.config.factor

    @property
    def jitter(self) -> float:
        return self.config.jitter

    @property
    def current_delay(self) -> float:
        """The delay ``next`` gave last (0 before the first)."""
        return self._current_delay

    @property
    def next_delay(self) -> float:
        """The delay ``next`` gives next."""
        return self._next_delay

    @property
    def counter(self) -> int:
        """How many delays were given since the start or the last ``reset``."""
        return self._counter

    def __iter__(self) -> Backoff:
        return self

    def __next__(self) -> float:
        delay = self._next_delay
        grown = min(delay * self.factor, self.max_delay)
        self._next_delay = random.gauss(grown, self.jitter) if self.jitter else grown
        self._current_delay = delay
        self._counter += 1
        return delay

    def reset(self) -> None:
        self._current_delay = 0.0
        self._next_delay = self.min_delay
        self._counter = 0

    def sleep(self) -> None:
        """Block for the next delay (outside an event loop)."""
        time.sleep(next(self))

    async def asleep(self) -> None:
        """Wait for the next delay."""
        await asyncio.sleep(next(self))

    def __str__(self) -> str:
        return (
            f"Backoff(tryings={self._counter}, current_delay={self._current_delay}, "
            f"next_delay={self._next_delay})"
        )
