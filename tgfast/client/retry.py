"""Which failed calls are repeated, how often, and after how long.

* **429** (flood control) is always safe to repeat: Telegram did not perform the
  call. The call waits ``retry_after`` (if it is at most ``max_retry_after``) and
  tries again, up to ``retry_after_attempts`` times. Only that call waits: calls to
  other chats go on, and the rate limiter holds the chat back meanwhile.
* **A connection that was never made** (refused, DNS failure) is safe too: nothing
  reached Telegram. It is retried for every method.
* **5xx answers, a connection lost mid-call, a timeout** are ambiguous: Telegram may
  have performed the call. They are retried only for methods that give the same
  outcome when performed twice (``get*``, ``set*``, ``edit*``, ``delete*``, ...;
  ``uploadStickerFile`` too: a second upload only leaves an unused file).
  ``sendMessage``, ``forwardMessage``, ``copyMessage``, payments, gifts, invite links
  and the like are never repeated after such a failure, so a message is never sent
  twice behind the caller's back: the error reaches the caller, who decides.
Back-off between ambiguous retries doubles from ``backoff`` up to ``max_backoff``,
between half and all of that at random so that many workers do not retry in step
(``tgfast.backoff.Backoff``, the one back-off of the package).
"""

from __future__ import annotations

from dataclasses import dataclass

import aiohttp

from .._speedups._http_shared import ConnectFailed
from ..backoff import Backoff

__all__ = ["NO_RETRY", "RetryPolicy", "is_repeatable", "reached_server"]

_REPEATABLE_PREFIXES = (
    "get", "set", "delete", "edit", "pin", "unpin", "ban", "unban", "restrict", "promote",
    "approve", "decline", "leave", "hide", "unhide", "reopen", "verify", "remove", "read",
    "stop", "answerCallbackQuery", "answerInlineQuery", "answerShippingQuery",
    "answerPreCheckoutQuery", "closeForumTopic", "closeGeneralForumTopic", "uploadStickerFile",
)  # fmt: skip


def is_repeatable(method: str) -> bool:
    """Whether performing ``method`` twice has the outcome of performing it once."""
    return method.startswith(_REPEATABLE_PREFIXES)


def reached_server(exc: BaseException) -> bool:
    """False when the request surely never reached the server (no connection was made)."""
    return not isinstance(exc, (aiohttp.ClientConnectorError, ConnectFailed))


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How a ``Bot`` repeats failed calls; see the module docstring for which ones."""

    retry_after_attempts: int = 3
    max_retry_after: float = 60.0
    attempts: int = 2
    backoff: float = 0.5
    max_backoff: float = 10.0

    def __post_init__(self) -> None:
        self.backoff_policy  # noqa: B018 - a back-off that cannot work fails here, not mid-retry

    @property
    def backoff_policy(self) -> Backoff:
        """The ``Backoff`` between ambiguous retries: doubling, half of it jitter."""
        return Backoff(self.backoff, self.max_backoff, factor=2.0, jitter=0.5)

    def delay(self, failures: int) -> float:
        """Seconds to wait before retry number ``failures + 1``: half fixed, half jitter."""
        return self.backoff_policy.delay(failures)


NO_RETRY = RetryPolicy(retry_after_attempts=0, attempts=0)
"""Never repeat a call: every failure reaches the caller at once."""
