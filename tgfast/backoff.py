"""``Backoff``: how long to wait after failures in a row, for everything that retries.

One policy for the Bot's ambiguous retries (``RetryPolicy``), the poller's failed
getUpdates and the supervisor's restarts of a worker that keeps dying young: the
delay starts at ``min_delay``, grows by ``factor`` per failure up to ``max_delay``,
and loses up to ``jitter`` of itself at random, so that many workers failing together
do not retry in step. The caller counts the failures and puts the count back to 0
after a success; ``reset_after`` says when a run that lasted counts as one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["Backoff"]

_MAX_EXPONENT = 64  # past this the cap has long been reached; keeps factor ** n finite


@dataclass(frozen=True, slots=True)
class Backoff:
    """Delays after failures: ``min_delay * factor ** failures``, at most ``max_delay``,
    less a random part of up to ``jitter`` of it (0: exact; 0.5: between half and all).

    ``reset_after``, for something that runs between failures (a worker process):
    seconds of running after which the failures so far are forgotten
    (``resets(ran)``); None when only a success resets the count.
    """

    min_delay: float = 0.5
    max_delay: float = 30.0
    factor: float = 2.0
    jitter: float = 0.25
    reset_after: float | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.min_delay <= self.max_delay:
            raise ValueError(f"need 0 <= min_delay <= max_delay, got {self}")
        if self.factor < 1 or not 0 <= self.jitter <= 1:
            raise ValueError(f"need factor >= 1 and 0 <= jitter <= 1, got {self}")

    def cap(self, failures: int) -> float:
        """The delay after ``failures`` failures in a row before jitter."""
        grown: float = self.min_delay * self.factor ** min(failures, _MAX_EXPONENT)
        return min(self.max_delay, grown)

    def delay(self, failures: int) -> float:
        """Seconds to wait after ``failures`` failures in a row (0: after the first)."""
        cap = self.cap(failures)
        if not self.jitter:
            return cap
        return cap * (1 - self.jitter * random.random())  # jitter, not crypto

    def resets(self, ran: float) -> bool:
        """Whether a run of ``ran`` seconds was long enough to forget earlier failures."""
        return self.reset_after is not None and ran >= self.reset_after
