"""What happened to each update of one run, indexed by its position in the run.

The generator writes when each update was due to be sent, whether it was
acknowledged (200 on the webhook, or confirmed by a later ``getUpdates``
offset) and whether it was ever refused (503/429); the sink writes when its
echo arrived.  Both live in the harness process and share one clock
(``time.perf_counter``), so a latency is a plain subtraction.

Update ids are global and increasing over a whole sweep (every run allocates
its own block), and the echo text carries the id, so an echo is matched to
its update exactly, whatever order the bot answers in.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

CHATS_BASE = 500_000_000  # chat (and user) ids: CHATS_BASE + update_id % chats
# Telegram's update ids are positive and increase; start somewhere unremarkable.
_next_base = 100_000_000


def _allocate(n: int) -> int:
    global _next_base
    base = _next_base
    _next_base += n
    return base


@dataclass
class Tracker:
    """Per-update records of one run (or of one warm-up)."""

    n: int
    chats: int
    base: int = 0
    date: int = field(default_factory=lambda: int(time.time()))  # message date of the block
    due: list[float] = field(default_factory=list)  # scheduled send time, 0.0 = not yet
    echoed: list[float] = field(default_factory=list)  # first echo's arrival, 0.0 = none
    acked: bytearray = field(default_factory=bytearray)
    refused: bytearray = field(default_factory=bytearray)
    duplicates: int = 0  # echoes beyond the first for one update
    wrong_chat: int = 0  # echo sent to another chat than the update came from
    statuses: Counter[int] = field(default_factory=Counter)  # webhook answers by status
    requests: int = 0  # webhook POSTs written (first sends and retries)
    retries: int = 0  # of which re-sends of a refused or failed update
    connection_errors: int = 0  # connect failures and connections lost mid-request
    connections: int = 0  # TCP connections the generator opened
    lags: list[float] = field(default_factory=list)  # harness lateness per scheduled send
    refusal_times: list[float] = field(default_factory=list)  # when each 503/429 came back
    retry_times: list[float] = field(default_factory=list)  # when each re-send was made
    echoes: int = 0  # every echo that matched this block, duplicates included
    unique: int = 0  # updates echoed at least once

    def __post_init__(self) -> None:
        self.base = _allocate(self.n)
        self.due = [0.0] * self.n
        self.echoed = [0.0] * self.n
        self.acked = bytearray(self.n)
        self.refused = bytearray(self.n)

    def update_id(self, i: int) -> int:
        return self.base + i

    def chat_id(self, i: int) -> int:
        return CHATS_BASE + (self.base + i) % self.chats

    def index(self, update_id: int) -> int:
        """Position of this update id in the block, -1 if it is not ours."""
        i = update_id - self.base
        return i if 0 <= i < self.n else -1

    def record_echo(self, i: int, chat_id: int | None, now: float) -> None:
        self.echoes += 1
        if self.echoed[i]:
            self.duplicates += 1
            return
        self.echoed[i] = now
        self.unique += 1
        if chat_id != self.chat_id(i):
            self.wrong_chat += 1

    # -- summaries -----------------------------------------------------------

    def sent(self) -> int:
        return sum(1 for t in self.due if t)

    def echoed_by(self, deadline: float) -> int:
        return sum(1 for t in self.echoed if t and t <= deadline)

    def all_echoed(self) -> bool:
        return self.unique == self.n

    def acked_not_echoed(self) -> int:
        return sum(1 for a, e in zip(self.acked, self.echoed, strict=True) if a and not e)

    def refused_not_echoed(self) -> int:
        return sum(1 for r, e in zip(self.refused, self.echoed, strict=True) if r and not e)

    def latencies(self, deadline: float) -> list[float]:
        """Send→echo seconds of every sent update, ``inf`` if not echoed by ``deadline``."""
        inf = float("inf")
        return sorted(
            (e - d) if e and e <= deadline else inf
            for d, e in zip(self.due, self.echoed, strict=True)
            if d
        )


def percentile(ordered: list[float], q: float) -> float:
    """Nearest-rank percentile of an ascending list (nan if empty)."""
    if not ordered:
        return float("nan")
    k = max(0, min(len(ordered) - 1, int(-(-q * len(ordered) // 1)) - 1))
    return ordered[k]
