"""What a Bot API call hook is told: one :class:`ApiCall` per attempt.

``bot.api_call_hooks`` is a list: the serving layer's ``/metrics``, the OpenTelemetry
integration (``tgfast.tracing``) and the app's own hooks each append theirs and none
displaces another. A hook is called synchronously, in the task that made the call (so
in its context: the update's, for a handler's call), after each attempt; it should be
quick. A hook that raises is logged and the call goes on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

__all__ = ["ApiCall", "ApiCallHook"]


class ApiCall(NamedTuple):
    """One attempt of a Bot API call, as it ended (a named tuple: made once per attempt,
    it costs a few hundred nanoseconds where a frozen dataclass costs microseconds)."""

    method: str
    """The Bot API method (``sendMessage``)."""
    status: int
    """The HTTP status of the answer; 0 when none came (network error, timeout)."""
    started: float
    """``time.perf_counter()`` when the attempt started."""
    duration: float
    """Seconds from sending the request to reading the answer (or giving up)."""
    exception: BaseException | None
    """The error this attempt ended in (``TelegramAPIError``, ``TelegramNetworkError``),
    whether or not the call is repeated; None for a success."""
    attempt: int
    """Attempts of this call before this one (0: the first)."""
    retry_after: float | None = None
    """The flood-control wait Telegram asked for (a 429), in seconds."""


ApiCallHook = Callable[[ApiCall], object]
"""A hook: called with each :class:`ApiCall` (its return value is ignored)."""
