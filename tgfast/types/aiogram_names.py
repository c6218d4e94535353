"""The names aiogram exports from ``aiogram.types`` that are not Bot API types.

aiogram names each union of the spec ``XxxUnion`` (a typing alias); tgfast's union is
the base class ``Xxx`` every variant inherits, so ``XxxUnion`` is that class (usable in
``isinstance`` and annotations alike). The few unions of plain values are aliases of the
same values. What aiogram has of its own raises an ImportError
that says why.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from .._aiogram import absent
from ..defaults import Default
from . import _types as t

__all__ = [
    "BackgroundFillUnion",
    "BackgroundTypeUnion",
    "BotCommandScopeUnion",
    "ChatBoostSourceUnion",
    "ChatIdUnion",
    "ChatMemberUnion",
    "DateTime",
    "DateTimeUnion",
    "InlineQueryResultUnion",
    "InputFileUnion",
    "InputMediaUnion",
    "InputMessageContentUnion",
    "InputPaidMediaUnion",
    "InputPollMediaUnion",
    "InputPollOptionMediaUnion",
    "InputPollOptionUnion",
    "InputProfilePhotoUnion",
    "InputRichBlockUnion",
    "InputStoryContentUnion",
    "MaybeInaccessibleMessageUnion",
    "MediaUnion",
    "MenuButtonUnion",
    "MessageOriginUnion",
    "OwnedGiftUnion",
    "PaidMediaUnion",
    "PassportElementErrorUnion",
    "ReactionTypeUnion",
    "ReplyMarkupUnion",
    "ResultChatMemberUnion",
    "ResultMenuButtonUnion",
    "RevenueWithdrawalStateUnion",
    "RichBlockUnion",
    "RichTextUnion",
    "StoryAreaTypeUnion",
    "TransactionPartnerUnion",
    "UNSET_PARSE_MODE",
]

BackgroundFillUnion = t.BackgroundFill
BackgroundTypeUnion = t.BackgroundType
BotCommandScopeUnion = t.BotCommandScope
ChatBoostSourceUnion = t.ChatBoostSource
ChatMemberUnion = ResultChatMemberUnion = t.ChatMember
InlineQueryResultUnion = t.InlineQueryResult
InputMediaUnion = MediaUnion = t.InputMedia
InputMessageContentUnion = t.InputMessageContent
InputPaidMediaUnion = t.InputPaidMedia
InputPollMediaUnion = t.InputPollMedia
InputPollOptionMediaUnion = t.InputPollOptionMedia
InputProfilePhotoUnion = t.InputProfilePhoto
InputRichBlockUnion = t.InputRichBlock
InputStoryContentUnion = t.InputStoryContent
MaybeInaccessibleMessageUnion = t.MaybeInaccessibleMessage
MenuButtonUnion = ResultMenuButtonUnion = t.MenuButton
MessageOriginUnion = t.MessageOrigin
OwnedGiftUnion = t.OwnedGift
PaidMediaUnion = t.PaidMedia
PassportElementErrorUnion = t.PassportElementError
ReactionTypeUnion = t.ReactionType
RevenueWithdrawalStateUnion = t.RevenueWithdrawalState
RichBlockUnion = t.RichBlock
RichTextUnion = t.RichText
StoryAreaTypeUnion = t.StoryAreaType
TransactionPartnerUnion = t.TransactionPartner

ChatIdUnion = int | str
UNSET_PARSE_MODE = Default("parse_mode")
"""aiogram's marker for a parse mode left to the bot's defaults."""
DateTime = datetime
DateTimeUnion = datetime | timedelta | int
InputFileUnion = str | t.InputFile
InputPollOptionUnion = str | t.InputPollOption
ReplyMarkupUnion = (
    t.InlineKeyboardMarkup | t.ReplyKeyboardMarkup | t.ReplyKeyboardRemove | t.ForceReply
)

_ABSENT: dict[str, str] = {
    "Downloadable": "aiogram's protocol: bot.download takes a file id or anything with .file_id",
}


def __getattr__(name: str) -> Any:
    return absent(__name__, _ABSENT)(name)
