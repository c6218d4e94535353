"""Content-type, chat-type and plain text filters, for those who prefer them to ``F``."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ..types.enums import ContentType
from ..types.helpers import UNKNOWN, content_type_of
from .base import Filter, sync_twin

__all__ = [
    "ANY",
    "UNKNOWN",
    "ChatTypeFilter",
    "ContentTypeFilter",
    "TextFilter",
    "content_type_of",
]

ANY: ContentType = ContentType.ANY
"""For ``ContentTypeFilter``: every content type."""


def _strings(values: tuple[object, ...], what: str) -> tuple[str, ...]:
    out = []
    for value in values:
        if not isinstance(value, str):
            raise TypeError(f"{what} must be strings or enum members, got {value!r}")
        out.append(str.__str__(value))
    return tuple(out)


class ContentTypeFilter(Filter):
    """Passes messages of the given content types (``ContentType`` members or strings;
    ``"any"`` passes every message)."""

    __slots__ = ("_any", "content_types")

    def __init__(self, *content_types: str) -> None:
        if not content_types:
            raise TypeError("ContentTypeFilter needs at least one content type")
        names = _strings(content_types, "content types")
        known = {member.value for member in ContentType}
        for name in names:
            if name not in known:
                raise ValueError(f"unknown content type {name!r}")
        self.content_types: frozenset[str] = frozenset(names)
        self._any = ANY.value in self.content_types

    @sync_twin
    async def __call__(self, message: Any) -> bool:
        return self.check(message)

    def check(self, message: Any, /) -> bool:
        return self._any or content_type_of(message) in self.content_types

    def __repr__(self) -> str:
        return f"ContentTypeFilter({', '.join(map(repr, sorted(self.content_types)))})"


class ChatTypeFilter(Filter):
    """Passes events in chats of the given ``ChatType`` (private, group, supergroup, channel).

    The chat is ``event.chat``, else ``event.message.chat`` (a callback query), else
    ``event.chat_type`` names it (an inline query).
    """

    __slots__ = ("chat_types",)

    def __init__(self, *chat_types: str) -> None:
        if not chat_types:
            raise TypeError("ChatTypeFilter needs at least one chat type")
        self.chat_types: frozenset[str] = frozenset(_strings(chat_types, "chat types"))

    @sync_twin
    async def __call__(self, event: Any) -> bool:
        return self.check(event)

    def check(self, event: Any, /) -> bool:
        chat = getattr(event, "chat", None)
        if chat is None:
            chat = getattr(getattr(event, "message", None), "chat", None)
        kind = getattr(event, "chat_type", None) if chat is None else chat.type
        return kind in self.chat_types

    def __repr__(self) -> str:
        return f"ChatTypeFilter({', '.join(map(repr, sorted(self.chat_types)))})"


def _needles(value: str | Iterable[str] | None, fold: bool) -> tuple[str, ...] | None:
    if value is None:
        return None
    items = (value,) if isinstance(value, str) else tuple(value)
    if not items or not all(isinstance(item, str) for item in items):
        raise TypeError(f"expected a string or strings, got {value!r}")
    return tuple(item.casefold() for item in items) if fold else items


class TextFilter(Filter):
    """Tests on the text of an event: a message's text or caption, a callback query's
    data, an inline query's query.

    Each of ``equals``, ``startswith``, ``contains``, ``endswith`` takes a string or
    several (any of them will do); given together, all must hold. ``regexp`` searches
    and injects the match as ``match``.
    """

    __slots__ = ("contains", "endswith", "equals", "ignore_case", "regexp", "startswith")

    def __init__(
        self,
        *,
        equals: str | Iterable[str] | None = None,
        startswith: str | Iterable[str] | None = None,
        contains: str | Iterable[str] | None = None,
        endswith: str | Iterable[str] | None = None,
        regexp: str | re.Pattern[str] | None = None,
        ignore_case: bool = False,
    ) -> None:
        self.ignore_case = ignore_case
        self.equals = _needles(equals, ignore_case)
        self.startswith = _needles(startswith, ignore_case)
        self.contains = _needles(contains, ignore_case)
        self.endswith = _needles(endswith, ignore_case)
        if regexp is not None:
            flags = re.IGNORECASE if ignore_case else 0
            if isinstance(regexp, re.Pattern):
                regexp = re.compile(regexp.pattern, regexp.flags | flags) if flags else regexp
            else:
                regexp = re.compile(regexp, flags)
        self.regexp: re.Pattern[str] | None = regexp
        if (equals, startswith, contains, endswith, regexp) == (None,) * 5:
            raise TypeError("TextFilter needs equals, startswith, contains, endswith or regexp")

    @sync_twin
    async def __call__(self, event: Any) -> bool | dict[str, Any]:
        return self.check(event)

    def check(self, event: Any, /) -> bool | dict[str, Any]:
        text = _text_of(event)
        if text is None:
            return False
        folded = text.casefold() if self.ignore_case else text
        if self.equals is not None and folded not in self.equals:
            return False
        if self.startswith is not None and not folded.startswith(self.startswith):
            return False
        if self.endswith is not None and not folded.endswith(self.endswith):
            return False
        if self.contains is not None and not any(part in folded for part in self.contains):
            return False
        if self.regexp is not None:
            match = self.regexp.search(text)
            return False if match is None else {"match": match}
        return True

    def __repr__(self) -> str:
        shown = [
            f"{name}={getattr(self, name)!r}"
            for name in ("equals", "startswith", "contains", "endswith", "regexp")
            if getattr(self, name) is not None
        ]
        if self.ignore_case:
            shown.append("ignore_case=True")
        return f"TextFilter({', '.join(shown)})"


def _text_of(event: Any) -> str | None:
    for field in ("text", "caption", "data", "query"):
        value = getattr(event, field, None)
        if isinstance(value, str):
            return value
    return None
