"""aiogram's ``aiogram.exceptions`` path, on tgfast's error tree.

The rule for names: tgfast's own classes are the primary ones (``tgfast.errors``), and
aiogram's names are aliases of the same class objects, so ``except
TelegramForbiddenError`` catches what tgfast raises. Every error is a
``tgfast.TgfastError`` (aiogram's ``AiogramError``); an API error's text is in
``.description``, and in ``.message`` as aiogram has it. Two places differ from
aiogram's tree on purpose: ``TelegramNetworkError`` (no answer came) is not a
``TelegramAPIError``, and ``TelegramEntityTooLarge`` (a 413 answer) is not a
``TelegramNetworkError``. Names aiogram has that tgfast does not raise an ImportError
that names what tgfast raises instead.
"""

from __future__ import annotations

from ._aiogram import absent
from .errors import (
    CallbackAnswerException,
    ClientDecodeError,
    DecodeError,
    MissingFieldError,
    RestartingTelegram,
    SceneError,
    TelegramAPIError,
    TelegramBadRequest,
    TelegramConflict,
    TelegramEntityTooLarge,
    TelegramForbidden,
    TelegramMigrateToChat,
    TelegramNetworkError,
    TelegramNotFound,
    TelegramRetryAfter,
    TelegramServerError,
    TelegramUnauthorized,
    TgfastError,
    UnsupportedKeywordArgument,
)
from .fsm.storage.base import StorageDataError

__all__ = [
    "AiogramError",
    "CallbackAnswerException",
    "ClientDecodeError",
    "DataNotDictLikeError",
    "DecodeError",
    "DetailedAiogramError",
    "MissingFieldError",
    "RestartingTelegram",
    "SceneError",
    "SceneException",
    "TelegramAPIError",
    "TelegramBadRequest",
    "TelegramConflict",
    "TelegramConflictError",
    "TelegramEntityTooLarge",
    "TelegramForbidden",
    "TelegramForbiddenError",
    "TelegramMigrateToChat",
    "TelegramNetworkError",
    "TelegramNotFound",
    "TelegramRetryAfter",
    "TelegramServerError",
    "TelegramUnauthorized",
    "TelegramUnauthorizedError",
    "TgfastError",
    "UnsupportedKeywordArgument",
]

AiogramError = TgfastError
TelegramUnauthorizedError = TelegramUnauthorized
TelegramForbiddenError = TelegramForbidden
TelegramConflictError = TelegramConflict
DetailedAiogramError = TgfastError  # API errors carry .message (and .description)
DataNotDictLikeError = StorageDataError  # FSM data that is not a mapping
SceneException = SceneError

# aiogram's error names tgfast has no class for, and what it raises instead
_INSTEAD: dict[str, str] = {}


__getattr__ = absent(__name__, _INSTEAD)
