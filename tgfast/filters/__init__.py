"""Filters: ``Command``, the magic ``F``, callback data, content and chat types, errors.

Any callable ``f(event, **data)`` returning bool, None or a dict to inject is a filter;
``tgfast.filters.base`` says how the dispatcher calls one.
"""

from __future__ import annotations

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

__all__ = [
    "ANY",
    "MAX_CALLBACK_DATA",
    "UNKNOWN",
    "CallbackData",
    "CallbackDataError",
    "CallbackDataFilter",
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
    "MagicFilter",
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
