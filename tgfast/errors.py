"""The error tree: every error tgfast raises on purpose derives from ``TgfastError``."""

from __future__ import annotations

from typing import Any

__all__ = [
    "CallbackAnswerException",
    "ClientDecodeError",
    "DecodeError",
    "MissingFieldError",
    "Recommendation",
    "RestartingTelegram",
    "SceneError",
    "TelegramAPIError",
    "TelegramBadRequest",
    "TelegramConflict",
    "TelegramEntityTooLarge",
    "TelegramForbidden",
    "TelegramMigrateToChat",
    "TelegramNetworkError",
    "TelegramNotFound",
    "TelegramRetryAfter",
    "TelegramServerError",
    "TelegramUnauthorized",
    "TgfastError",
    "TgfastWarning",
    "UnsupportedKeywordArgument",
]


class TgfastError(Exception):
    """Root of every error tgfast raises, so one ``except`` catches them all."""


class UnsupportedKeywordArgument(TgfastError, TypeError):
    """A keyword a handler registration does not take (aiogram 2's ``commands=[...]``)."""


class MissingFieldError(TgfastError, AssertionError):
    """A shortcut called on an object without the field it needs
    (``message.delete_ephemeral()`` on a message that is not ephemeral). An
    ``AssertionError`` too, as aiogram raises one, but raised under ``python -O`` as
    well."""


class CallbackAnswerException(TgfastError):
    """A change to a ``CallbackAnswer`` after it was sent (``tgfast.utils.callback_answer``)."""


class SceneError(TgfastError):
    """A scene used wrongly: not registered, registered twice, no FSM context
    (aiogram's ``SceneException``)."""


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


class TelegramAPIError(TgfastError):
    """Telegram answered a call with ``"ok": false``.

    ``error_code`` and ``description`` are Telegram's; ``method`` is the Bot API
    method that failed. Subclasses name the codes a bot commonly handles.
    """

    url: str | None = None
    """A page that explains the error (aiogram's attribute; none of tgfast's set one)."""

    def __init__(self, method: str, error_code: int, description: str) -> None:
        super().__init__(f"{method}: {description} [{error_code}]")
        self.method = method
        self.error_code = error_code
        self.description = description

    @property
    def message(self) -> str:
        """Telegram's description, by aiogram's name for it."""
        return self.description

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.method, self.error_code, self.description))


class TelegramBadRequest(TelegramAPIError):
    """400: the call itself is wrong (chat not found, message is not modified, ...)."""


class TelegramMigrateToChat(TelegramBadRequest):
    """400: the group became a supergroup; repeat the call with ``migrate_to_chat_id``."""

    def __init__(
        self, method: str, error_code: int, description: str, migrate_to_chat_id: int = 0
    ) -> None:
        super().__init__(method, error_code, description)
        self.migrate_to_chat_id = migrate_to_chat_id

    def __reduce__(self) -> tuple[Any, ...]:
        args = (self.method, self.error_code, self.description, self.migrate_to_chat_id)
        return (type(self), args)


class TelegramUnauthorized(TelegramAPIError):
    """401: the token is wrong or was revoked."""


class TelegramForbidden(TelegramAPIError):
    """403: the bot may not do this (blocked by the user, kicked from the group, ...)."""


class TelegramNotFound(TelegramAPIError):
    """404: no such method (or no such file to download)."""


class TelegramConflict(TelegramAPIError):
    """409: another ``getUpdates`` is running, or a webhook is set while polling."""


class TelegramEntityTooLarge(TelegramAPIError):
    """413: the request (usually an upload) is larger than Telegram accepts."""


class TelegramRetryAfter(TelegramAPIError):
    """429: flood control; the call may be repeated after ``retry_after`` seconds."""

    def __init__(
        self, method: str, error_code: int, description: str, retry_after: float = 0.0
    ) -> None:
        super().__init__(method, error_code, description)
        self.retry_after = retry_after

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.method, self.error_code, self.description, self.retry_after))


class TelegramServerError(TelegramAPIError):
    """5xx, or an answer that is not the Bot API's JSON (a proxy's error page)."""


class ClientDecodeError(TelegramServerError):
    """The answer is not the Bot API's JSON at all (a proxy's error page, a cut body)."""


class RestartingTelegram(TelegramServerError):
    """A 5xx saying the Bot API server is restarting: repeat the call a little later."""


class TelegramNetworkError(TgfastError):
    """The call did not get an answer: connection refused or lost, or a timeout.

    The text names the method and the cause, never the URL (it holds the token).
    """

    def __init__(self, method: str, message: str) -> None:
        super().__init__(f"{method}: {message}")
        self.method = method
        self.message = message

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.method, self.message))


class TgfastWarning(Warning):
    """Base of tgfast's warnings (aiogram's ``AiogramWarning``)."""


class Recommendation(TgfastWarning):
    """Code that works, written in a way tgfast recommends against (and says why)."""
