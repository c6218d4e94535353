"""The error tree: every error tgfast raises on purpose derives from ``TgfastError``."""

from __future__ import annotations

__all__ = ["DecodeError", "TgfastError"]


class TgfastError(Exception):
    """Root of every error tgfast raises, so one ``except`` catches them all."""


class DecodeError(TgfastError, ValueError):
    """Input that is not a valid Bot API value of the expected type.

    ``path`` is the JSON path of the offending value (``$.message.chat.id``) and
    ``reason`` says what was wrong with it; ``str(error)`` joins the two.
    """

    def __init__(self, reason: str, path: str = "$") -> None:
        super().__init__(f"{path}: {reason}")
        self.reason = reason
        self.path = path

    def __reduce__(self) -> tuple[type[DecodeError], tuple[str, str]]:
        return (type(self), (self.reason, self.path))
