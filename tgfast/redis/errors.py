"""``RedisUnavailable``: the one error tgfast's Redis parts raise."""

from __future__ import annotations

from ..fsm.storage.base import StorageError

__all__ = ["RedisUnavailable"]


class RedisUnavailable(StorageError):
    """Redis did not do what was asked: it cannot be reached, gave no reply in time, or
    answered with an error (the text then starts with its code: ``NOSCRIPT ...``,
    ``WRONGTYPE ...``).

    A ``StorageError`` (and so a ``TgfastError``): code that already refuses an update
    on a storage failure (503, so that Telegram delivers it again) refuses it on this.
    """
