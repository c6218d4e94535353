"""Bot token checks at aiogram's path: ``validate_token``, ``extract_bot_id``.

A token is ``<bot id>:<secret>`` as @BotFather gives it. The rule is aiogram's (no
whitespace, a numeric id, a non-empty secret), so a token one framework accepts the other
does too; ``Bot`` also applies it. No message ever repeats the token: it is a secret.
"""

from __future__ import annotations

from ..errors import TgfastError

__all__ = ["TokenValidationError", "extract_bot_id", "validate_token"]


class TokenValidationError(TgfastError, ValueError):
    """A bot token that cannot be one: wrong type, whitespace, or not ``<id>:<secret>``."""


def validate_token(token: str) -> bool:
    """``True`` for a well-formed token; ``TokenValidationError`` saying what is wrong."""
    if not isinstance(token, str):
        raise TokenValidationError(
            f"malformed bot token: expected a str, got {type(token).__name__}"
        )
    if any(char.isspace() for char in token):
        raise TokenValidationError("malformed bot token: it contains whitespace")
    bot_id, colon, secret = token.partition(":")
    # ASCII digits only: the id must become an int (aiogram's isdigit() also lets "²" by)
    if not colon or not secret or not (bot_id.isascii() and bot_id.isdigit()):
        raise TokenValidationError(
            "malformed bot token: expected '<bot id>:<secret>' from @BotFather"
        )
    return True


def extract_bot_id(token: str) -> int:
    """The bot's user id: the number before the colon, after ``validate_token``."""
    validate_token(token)
    return int(token.partition(":")[0])
