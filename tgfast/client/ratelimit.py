"""Client-side flood control: wait before a send instead of collecting 429s from Telegram.

The defaults follow Telegram's Bots FAQ, "My bot is hitting limits, how do I avoid this?"
(https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this):

* "avoid sending more than one message per second" in a particular chat; "we may allow
  short bursts that go over this limit" -> ``DEFAULT_PRIVATE``: 1 per second, bursts of 6
  (a bot answering one message with up to six sends them at once: a conversation is
  not paced, a sustained stream to one chat is);
* "not able to send more than 20 messages per minute to the same group" ->
  ``DEFAULT_GROUP``: 20 per minute sustained (one every 3 s), bursts of 20: a minute's
  allowance may be spent at once, so an interactive group conversation is not paced
  (issue #25: with bursts of 3, the fourth quick reply in an active group waited 3 s);
* bulk notifications: "not more than 30 messages per second or so" -> ``DEFAULT_OVERALL``:
  30 per second across all chats, bursts of 30. A bot with paid broadcasts enabled
  (``allow_paid_broadcast``, up to 1000 per second) passes a higher ``overall``.

Each limit is a GCRA (generic cell rate algorithm, virtual-scheduling form): a bucket keeps
one float, the theoretical arrival time (TAT); a send at ``t`` conforms while
``t >= TAT - (burst - 1) * interval`` and moves TAT to ``max(TAT, t) + interval``. That is
O(1) time and one float per chat, with no lock: asyncio runs one task at a time, and no
``await`` ever sits between reading a bucket and committing to it.

A send passes two buckets: its chat's, then the overall one. A send whose chat is free
takes an overall slot at once. Sends to a busy chat queue per chat (FIFO); only the head
of a queue computes its time, sleeps until its chat allows it and only then takes an
overall slot. An overall slot is therefore never booked ahead for a chat that could not
use it yet, so one busy chat delays other chats by nothing beyond the overall limit.
Both buckets are charged with the time the send really leaves, so the sends honour every
chat's limit and the overall limit exactly, whatever the mix of chats. A chat's sends leave
in the order ``acquire`` was called: besides the queue, a send holding a slot leaves only
after the chat's previous one, so sends due at the same instant cannot swap.

``penalize`` (after a 429) moves the schedule later: the chat's bucket (every bucket, for
a global penalty) and the sends that already hold a slot shift by the penalty, keeping
their order and spacing, and nothing leaves before the penalty ends. Chat TATs are stored
relative to the sum of global penalties, so a global penalty shifts all of them in O(1).
The one approximation: sends of a penalized chat that held an overall slot keep that slot
in the overall bucket, so right after a chat penalty the overall limit can be exceeded by
those few sends (at most that chat's burst, in practice).

A waiter that is cancelled while queued gives its place back; one cancelled after it took
its slots keeps them (a send that never happened is still counted: conservative).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import NamedTuple, Protocol, TypeAlias, runtime_checkable

__all__ = [
    "DEFAULT_GROUP",
    "DEFAULT_METHODS",
    "DEFAULT_OVERALL",
    "DEFAULT_PRIVATE",
    "Limit",
    "LocalRateLimiter",
    "RateLimiter",
]

_ChatKey: TypeAlias = "int | str"

# The chat table is swept (entries whose TAT has passed constrain nothing and go) when it
# outgrows max(_SWEEP_MIN, twice the entries alive at the last sweep): amortized O(1).
_SWEEP_MIN = 4096

# Float rounding (1/30 s added up thirty times) must not turn a send at the edge of a burst
# into a sleep of 1e-16 s: times this close to now count as now.
_SLACK = 1e-9


@runtime_checkable
class RateLimiter(Protocol):
    """What the Bot client asks of a rate limiter.

    ``LocalRateLimiter`` keeps its state in the process; a shared variant (Redis) gives
    several worker processes one budget behind the same two calls.
    """

    async def acquire(self, method: str, chat_id: int | str | None) -> None:
        """Return once a request of ``method`` to ``chat_id`` may be sent."""
        ...

    def penalize(self, chat_id: int | str | None, seconds: float) -> None:
        """After a 429: no send to ``chat_id`` (to any chat when None) for ``seconds``."""
        ...


class Limit(NamedTuple):
    """``rate`` sends per ``per`` seconds in the long run, ``burst`` of them at once."""

    rate: float
    per: float
    burst: int = 1


DEFAULT_OVERALL = Limit(30, 1.0, burst=30)
"""All chats together: the FAQ's "30 messages per second or so" for bulk notifications."""

DEFAULT_PRIVATE = Limit(1, 1.0, burst=6)
"""One private chat (positive chat id): one per second in the long run; up to 6 at once
(the FAQ's "short bursts"), so that an answer of several messages is not held back.

The burst is a token bucket of 6 refilled at one per second: after a 6-message answer the
chat's next send waits one second, after 6 idle seconds the whole burst is back. A
minute holds at most 65 sends to one chat, and 60 once the burst is spent.
"""

DEFAULT_GROUP = Limit(20, 60.0, burst=20)
"""One group, supergroup or channel (negative id or ``@username``): 20 per minute.

The figures: Telegram's FAQ gives 20 messages per minute per group. A full minute's
allowance, 20 replies, leaves at once; then one every 3 s; one token comes back every
3 s, so after a minute without sends the whole burst is back. Once a burst is spent any
60 s window holds 20 sends, the sustained limit; the window that starts with a full
burst holds at most 39 (20 + 19). Where Telegram counts a strict 20 in any 60 s, a 429
pauses the group for its ``retry_after`` (``penalize``); ``Limit(20, 60.0, burst=1)``
never exceeds it, at the price of pacing every reply after the first 3 s apart.
"""

DEFAULT_METHODS: frozenset[str] = frozenset(
    {
        "copyMessage",
        "copyMessages",
        "forwardMessage",
        "forwardMessages",
        "sendAnimation",
        "sendAudio",
        "sendChecklist",
        "sendContact",
        "sendDice",
        "sendDocument",
        "sendGame",
        "sendGift",
        "sendInvoice",
        "sendLivePhoto",
        "sendLocation",
        "sendMediaGroup",
        "sendMessage",
        "sendPaidMedia",
        "sendPhoto",
        "sendPoll",
        "sendRichMessage",
        "sendSticker",
        "sendVenue",
        "sendVideo",
        "sendVideoNote",
        "sendVoice",
    }
)
"""The methods that put a new message into a chat, each counted as one send.

Every ``send*`` method of Bot API 10.1 plus copy/forward, except:

* ``sendChatAction``: a typing indicator, not a message;
* ``sendMessageDraft`` / ``sendRichMessageDraft``: an ephemeral preview streamed many
  times per message; counting it would throttle the stream and spend the chat's budget
  before the final ``sendMessage``;
* ``sendChatJoinRequestWebApp``: answers a join request with a Mini App, posts nothing.

Edits, deletions and every other method are not counted either: the FAQ's limits are on
sending messages, and holding an edit (a progress bar, say) behind the chat's sends, or
the sends behind it, would only add latency. A 429 on any method still reaches
``penalize``, which holds the counted methods.
"""


def _schedule(name: str, limit: Limit | None) -> tuple[float, float]:
    """(interval between sends, tolerance) of a limit; (0, 0) when it is switched off."""
    if limit is None:
        return 0.0, 0.0
    rate, per, burst = limit
    if not (math.isfinite(rate) and math.isfinite(per) and rate > 0 and per > 0):
        raise ValueError(f"{name}: rate and per must be positive and finite, got {limit!r}")
    if not isinstance(burst, int) or isinstance(burst, bool) or burst < 1:
        raise ValueError(f"{name}: burst must be an int >= 1, got {limit!r}")
    interval = per / rate
    return interval, (burst - 1) * interval


def _chat_key(chat_id: int | str) -> _ChatKey:
    """One key per chat: ``"-100123"`` is ``-100123``, ``@Name`` is ``@name``."""
    if isinstance(chat_id, str):
        if chat_id.startswith("@"):
            return chat_id.lower()  # usernames are case-insensitive
        try:
            return int(chat_id)
        except ValueError:
            return chat_id
    return chat_id


class _Hold:
    """The penalties one chat received, read by sends that already hold their slots."""

    __slots__ = ("shift", "until")

    def __init__(self) -> None:
        self.shift = 0.0  # sum of the penalties' seconds
        self.until = -math.inf  # the latest "not before"


class LocalRateLimiter:
    """In-process rate limiter, on by default in the Bot, with Telegram's published limits.

    ``overall``, ``private`` and ``group`` are the limits across all chats, per private
    chat (positive id) and per group/supergroup/channel (negative id or ``@username``);
    ``None`` switches one off. ``methods`` are the methods counted as sends (default
    ``DEFAULT_METHODS``); any other method passes without waiting. ``clock`` and
    ``sleep`` are injectable for tests in virtual time.
    """

    __slots__ = (
        "_chats",
        "_clock",
        "_global_shift",
        "_global_until",
        "_group",
        "_group_interval",
        "_group_tolerance",
        "_holds",
        "_methods",
        "_overall",
        "_overall_interval",
        "_overall_tat",
        "_overall_tolerance",
        "_pending",
        "_private",
        "_private_interval",
        "_private_tolerance",
        "_queues",
        "_sleep",
        "_sweep_at",
    )

    def __init__(
        self,
        *,
        overall: Limit | None = DEFAULT_OVERALL,
        private: Limit | None = DEFAULT_PRIVATE,
        group: Limit | None = DEFAULT_GROUP,
        methods: frozenset[str] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._overall = overall
        self._private = private
        self._group = group
        self._overall_interval, self._overall_tolerance = _schedule("overall", overall)
        self._private_interval, self._private_tolerance = _schedule("private", private)
        self._group_interval, self._group_tolerance = _schedule("group", group)
        self._methods = DEFAULT_METHODS if methods is None else frozenset(methods)
        self._clock = clock
        self._sleep = sleep
        # The overall bucket's TAT; with overall off only a global penalty moves it.
        self._overall_tat = -math.inf
        # The sum of global penalties, and the latest "not before" among them.
        self._global_shift = 0.0
        self._global_until = -math.inf
        # Per chat: TAT minus _global_shift (kept also for a chat whose limit is off, while
        # it is penalized), the penalties (only for penalized chats) and the queue of
        # waiters (only while the chat is busy).
        self._chats: dict[_ChatKey, float] = {}
        self._holds: dict[_ChatKey, _Hold] = {}
        self._queues: dict[_ChatKey, deque[asyncio.Future[None]]] = {}
        # Per chat with sends holding a slot: the last one's "it has left" future.
        self._pending: dict[_ChatKey, asyncio.Future[None]] = {}
        self._sweep_at = _SWEEP_MIN

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(overall={self._overall!r}, private={self._private!r}, "
            f"group={self._group!r}, methods=<{len(self._methods)} methods>)"
        )

    @property
    def methods(self) -> frozenset[str]:
        """The methods counted as sends."""
        return self._methods

    @property
    def tracked_chats(self) -> int:
        """How many chats hold state now (bounded: idle chats are swept)."""
        return len(self._chats)

    async def acquire(self, method: str, chat_id: int | str | None) -> None:
        """Return once a request of ``method`` to ``chat_id`` may be sent.

        A method that is not counted returns at once; so does a counted one whose chat
        and the overall budget are free, without suspending.
        """
        if method not in self._methods:
            return
        now = self._clock()
        if chat_id is None:
            slot = self._take_overall(now)
            if slot > now:
                await self._wait_slot(slot, None)
            return
        key = chat_id if chat_id.__class__ is int else _chat_key(chat_id)
        if isinstance(key, int) and key > 0:
            interval, tolerance = self._private_interval, self._private_tolerance
        else:
            interval, tolerance = self._group_interval, self._group_tolerance
        tat = self._chats.get(key)
        if tat is not None:
            tat += self._global_shift
            if tat - tolerance > now + _SLACK:
                await self._queue_up(key, interval, tolerance)
                return
        if key in self._queues:
            await self._queue_up(key, interval, tolerance)
            return
        slot = self._take_overall(now)
        if interval:
            self._commit(key, tat, slot, interval, now)
        if slot > now or (self._pending and key in self._pending):
            await self._depart(slot, key)

    def penalize(self, chat_id: int | str | None, seconds: float) -> None:
        """After a 429: no counted send to ``chat_id`` (any chat when None) for ``seconds``.

        Sends already holding a slot move ``seconds`` later, in their order and spacing;
        sends after the pause resume at the limit's rate, without a burst.
        """
        if not seconds > 0:
            return
        now = self._clock()
        until = now + seconds
        if chat_id is None:
            self._overall_tat = max(self._overall_tat + seconds, until + self._overall_tolerance)
            self._global_shift += seconds
            self._global_until = max(self._global_until, until)
            return
        key = _chat_key(chat_id)
        tolerance = (
            self._private_tolerance if isinstance(key, int) and key > 0 else self._group_tolerance
        )
        stored = self._chats.get(key)
        shift = self._global_shift
        tat = until + tolerance
        if stored is not None:
            # Sends holding slots move by ``seconds``; the ones booked next must come
            # after them, so while any is pending the burst credit goes too.
            moved = stored + shift + seconds + (tolerance if key in self._pending else 0.0)
            tat = max(tat, moved)
        self._chats[key] = tat - shift
        hold = self._holds.get(key)
        if hold is None:
            hold = self._holds[key] = _Hold()
        hold.shift += seconds
        hold.until = max(hold.until, until)
        if stored is None and len(self._chats) > self._sweep_at:
            self._sweep(now)

    def _take_overall(self, now: float) -> float:
        """Book the earliest overall slot at or after ``now``."""
        tat = self._overall_tat
        slot = tat - self._overall_tolerance
        if slot <= now + _SLACK:
            slot = now
        self._overall_tat = max(slot, tat) + self._overall_interval
        return slot

    def _commit(
        self, key: _ChatKey, tat: float | None, slot: float, interval: float, now: float
    ) -> None:
        """Charge the chat's bucket (TAT ``tat``, None when absent) with a send at ``slot``."""
        if tat is None:
            self._chats[key] = slot + interval - self._global_shift
            if len(self._chats) > self._sweep_at:
                self._sweep(now)
        else:
            self._chats[key] = max(slot, tat) + interval - self._global_shift

    async def _queue_up(self, key: _ChatKey, interval: float, tolerance: float) -> None:
        """Wait in the chat's FIFO; as its head, wait for the chat, then book both slots."""
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue = self._queues.get(key)
        if queue is None:
            queue = self._queues[key] = deque()
            turn.set_result(None)
        queue.append(turn)
        try:
            await turn
            while True:  # re-read: a penalty may have moved the chat meanwhile
                now = self._clock()
                tat = self._chats.get(key)
                if tat is None:
                    break
                tat += self._global_shift
                if tat - tolerance <= now + _SLACK:
                    break
                await self._sleep(tat - tolerance - now)
        except BaseException:
            self._leave(key, queue, turn)
            raise
        slot = self._take_overall(now)
        if interval:
            self._commit(key, tat, slot, interval, now)
        self._leave(key, queue, turn)
        if slot > now or key in self._pending:
            await self._depart(slot, key)

    def _leave(
        self, key: _ChatKey, queue: deque[asyncio.Future[None]], turn: asyncio.Future[None]
    ) -> None:
        """Leave the chat's queue; the head hands its turn to the next waiter."""
        if queue[0] is not turn:
            queue.remove(turn)
            return
        queue.popleft()
        if queue:
            nxt = queue[0]
            if not nxt.done():  # a cancelled one hands the turn on when it leaves
                nxt.set_result(None)
        elif self._queues.get(key) is queue:
            del self._queues[key]

    async def _depart(self, slot: float, key: _ChatKey) -> None:
        """Wait for a booked slot, and leave only after the chat's previous booked send.

        Slots keep a chat's sends in order except when two fall on the same instant (no
        overall limit, or after a penalty), where timers alone would not say which goes
        first; this chain of futures does.
        """
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        previous = self._pending.get(key)
        self._pending[key] = done
        try:
            await self._wait_slot(slot, key)
            if previous is not None and not previous.done():
                await asyncio.shield(previous)
        finally:
            if previous is None or previous.done():
                self._departed(key, done)
            else:  # cancelled: the next one still waits for the previous one
                previous.add_done_callback(lambda _: self._departed(key, done))

    def _departed(self, key: _ChatKey, done: asyncio.Future[None]) -> None:
        if not done.done():
            done.set_result(None)
        if self._pending.get(key) is done:
            del self._pending[key]

    async def _wait_slot(self, slot: float, key: _ChatKey | None) -> None:
        """Sleep until a booked slot; penalties that came meanwhile move it later.

        The slot moves by the chat's and the global penalties together, as the chat's
        bucket did, so the chat's sends keep their spacing.
        """
        hold = None if key is None else self._holds.get(key)
        mark = 0.0 if hold is None else hold.shift
        global_mark = self._global_shift
        target = slot
        now = self._clock()
        while target > now + _SLACK:
            await self._sleep(target - now)
            now = self._clock()
            moved = 0.0
            floor = -math.inf
            if key is not None:
                current = self._holds.get(key)
                if current is not None:
                    # a new _Hold object means the old one was swept: all of it is new
                    chat_moved = current.shift - mark if current is hold else current.shift
                    if chat_moved > 0:
                        moved = chat_moved
                        floor = current.until
                    hold, mark = current, current.shift
            global_moved = self._global_shift - global_mark
            if global_moved > 0:
                moved += global_moved
                floor = max(floor, self._global_until)
                global_mark = self._global_shift
            if moved:
                target = max(target + moved, floor)

    def _sweep(self, now: float) -> None:
        """Drop chats whose TAT has passed: a missing entry means the same (a full bucket)."""
        horizon = now - self._global_shift
        chats = {key: stored for key, stored in self._chats.items() if stored > horizon}
        self._chats = chats
        if self._holds:
            self._holds = {key: hold for key, hold in self._holds.items() if key in chats}
        self._sweep_at = max(_SWEEP_MIN, 2 * len(chats))
