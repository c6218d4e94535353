"""``RedisUnavailable``: the one error tgfast's Redis parts raise."""

from __future__ import annotations

from ..fsm.storage.base import StorageError

__all__ = ["RedisConnectionLost", "RedisUnavailable"]


class RedisUnavailable(StorageError):
    """Redis did not do what was asked: it cannot be reached, gave no reply in time, or
    answered with an error (the text then starts with its code: ``NOSCRIPT ...``,
    ``WRONGTYPE ...``).

    A ``StorageError`` (and so a ``TgfastError``): code that already refuses an update
    on a storage failure (503, so that Telegram delivers it again) refuses it on this.
    """


class RedisConnectionLost(RedisUnavailable):
    """The command was sent, then its connection went away before the reply: lost,
    timed out, or dropped because the server stopped being the master (a ``READONLY``
    or ``MASTERDOWN`` reply on the same connection). The command may or may not have
    run; the next one goes through a new connection (after a failover, to the new
    master), so a command whose effect is the same when run twice can be sent again.
    """
