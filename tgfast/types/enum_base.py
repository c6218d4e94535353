"""The base of the generated enums: ``str`` members that also take unknown values."""

from __future__ import annotations

import enum

__all__ = ["TelegramEnum"]


class TelegramEnum(str, enum.Enum):
    """A Bot API enum: its members compare equal to their string values.

    ``str()`` and f-strings of a member behave as aiogram's ``(str, Enum)`` on the same
    Python (``ContentType.PHOTO`` from 3.11 on): a text a bot formats is the same on
    both. ``.value`` is the string. Telegram adds values over time, so
    ``ChatType("new_kind")`` returns a member made on the fly rather than raising; it
    is not added to the enum.
    """

    @classmethod
    def _missing_(cls, value: object) -> TelegramEnum | None:
        if not isinstance(value, str):
            return None
        member = str.__new__(cls, value)
        member._name_ = value
        member._value_ = value
        return member
