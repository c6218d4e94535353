"""Filters: ``Command``, the magic ``F``, callback data, content and chat types, errors,
chat member transitions, ``MagicData``.

Any callable ``f(event, **data)`` returning bool, None or a dict to inject is a filter;
``tgfast.filters.base`` says how the dispatcher calls one. ``StateFilter`` is
``tgfast.fsm``'s, here too, where aiogram users look for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import (
    Filter,
    FilterResult,
    and_f,
    as_filter,
    filter_is_async,
    filter_params,
    invert_f,
    or_f,
    passes,
)
from .callback_data import (
    MAX_CALLBACK_DATA,
    CallbackData,
    CallbackDataError,
    CallbackDataFilter,
)
from .chat_member_updated import (
    ADMINISTRATOR,
    CREATOR,
    IS_ADMIN,
    IS_MEMBER,
    IS_NOT_MEMBER,
    JOIN_TRANSITION,
    KICKED,
    LEAVE_TRANSITION,
    LEFT,
    MEMBER,
    PROMOTED_TRANSITION,
    RESTRICTED,
    ChatMemberUpdatedFilter,
)
from .command import Command, CommandObject, CommandStart, parse_command
from .content import (
    ANY,
    UNKNOWN,
    ChatTypeFilter,
    ContentTypeFilter,
    TextFilter,
    content_type_of,
)
from .exception import ExceptionMessageFilter, ExceptionTypeFilter
from .magic import F, MagicFilter
from .magic_data import MagicData

BaseFilter = Filter
"""aiogram's other name for ``Filter``."""

if TYPE_CHECKING:
    from ..fsm.filter import StateFilter

__all__ = [
    "ADMINISTRATOR",
    "ANY",
    "CREATOR",
    "IS_ADMIN",
    "IS_MEMBER",
    "IS_NOT_MEMBER",
    "JOIN_TRANSITION",
    "KICKED",
    "LEAVE_TRANSITION",
    "LEFT",
    "MEMBER",
    "PROMOTED_TRANSITION",
    "RESTRICTED",
    "MAX_CALLBACK_DATA",
    "UNKNOWN",
    "BaseFilter",
    "CallbackData",
    "CallbackDataError",
    "CallbackDataFilter",
    "ChatMemberUpdatedFilter",
    "ChatTypeFilter",
    "Command",
    "CommandObject",
    "CommandStart",
    "ContentTypeFilter",
    "ExceptionMessageFilter",
    "ExceptionTypeFilter",
    "F",
    "Filter",
    "FilterResult",
    "MagicData",
    "MagicFilter",
    "StateFilter",
    "TextFilter",
    "and_f",
    "as_filter",
    "content_type_of",
    "filter_is_async",
    "filter_params",
    "invert_f",
    "or_f",
    "parse_command",
    "passes",
]


def __getattr__(name: str) -> Any:
    # tgfast.fsm builds on tgfast.filters.base: importing it here, on first use, keeps
    # either package importable first
    if name == "StateFilter":
        from ..fsm.filter import StateFilter

        return StateFilter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
