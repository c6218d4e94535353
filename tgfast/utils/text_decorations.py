"""Text with entities back to HTML or MarkdownV2: ``message.html_text``, ``html.bold(...)``.

Telegram counts entity offsets and lengths in UTF-16 code units, so the text is cut
as UTF-16 (an emoji outside the BMP is two units). Entities may nest; two entities
that cross (Telegram does not send those, but a hand-built list may hold them) are
split at the outer one's end instead of losing text. ``html`` and ``md`` in
``tgfast`` are the two instances below, as in aiogram.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from datetime import datetime
from html import escape
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

if TYPE_CHECKING:
    from ..types import MessageEntity

__all__ = [
    "HtmlDecoration",
    "MarkdownDecoration",
    "TextDecoration",
    "add_surrogates",
    "html_decoration",
    "markdown_decoration",
    "remove_surrogates",
]

Span = tuple[int, int, Any]
"""An entity as the byte range it covers in the UTF-16-LE text: start, end, entity."""

_PLAIN = frozenset({"bot_command", "url", "mention", "phone_number", "hashtag", "cashtag", "email"})
_WRAPPING = frozenset(
    {"bold", "italic", "code", "underline", "strikethrough", "spoiler", "blockquote"}
    | {"expandable_blockquote"}
)


def add_surrogates(text: str) -> bytes:
    """``text`` as UTF-16-LE: two bytes per code unit, the unit Telegram's offsets count."""
    return text.encode("utf-16-le")


def remove_surrogates(text: bytes) -> str:
    """The inverse of ``add_surrogates``."""
    return text.decode("utf-16-le")


def _unix(value: int | datetime) -> int:
    return int(value.timestamp()) if isinstance(value, datetime) else int(value)


class TextDecoration(ABC):
    """Renders entities in one markup language; subclasses say how each one looks."""

    def apply_entity(self, entity: MessageEntity, text: str) -> str:
        """``text`` (already rendered) wrapped in the markup of ``entity``."""
        kind = entity.type
        if kind in _PLAIN:
            return text  # Telegram finds these by itself
        if kind in _WRAPPING:
            wrap: Any = getattr(self, kind)
            return str(wrap(text))
        if kind == "pre":
            language = getattr(entity, "language", None)
            return self.pre_language(text, language) if language else self.pre(text)
        if kind == "text_mention":
            return self.link(text, f"tg://user?id={entity.user.id}")  # type: ignore[union-attr]
        if kind == "text_link":
            return self.link(text, str(entity.url))
        if kind == "custom_emoji":
            return self.custom_emoji(text, str(entity.custom_emoji_id))
        if kind == "date_time":
            return self.date_time(text, entity.unix_time or 0, entity.date_time_format)
        return text  # a kind newer than this tgfast: keep the text, drop the markup

    def unparse(self, text: str, entities: list[MessageEntity] | None = None) -> str:
        """``text`` with ``entities`` as markup, every other character quoted."""
        if not entities:
            return self.quote(text)
        units = add_surrogates(text)
        size = len(units)
        spans = []
        for entity in entities:
            start = _boundary(units, min(entity.offset * 2, size))
            end = _boundary(units, min((entity.offset + entity.length) * 2, size))
            if end > start:
                spans.append((start, end, entity))
        spans.sort(key=lambda span: (span[0], -span[1]))
        return self._render(units, spans, 0, size)

    def _render(self, units: bytes, spans: list[Span], start: int, end: int) -> str:
        """``units[start:end]`` with ``spans`` (sorted, all inside the range) applied."""
        out: list[str] = []
        pos = start
        while spans:
            first, last, entity = spans[0]
            inner: list[Span] = []
            later: list[Span] = []
            for span in spans[1:]:
                if span[0] >= last:
                    later.append(span)
                elif span[1] <= last:
                    inner.append(span)
                else:  # crosses the end of this entity: split it there
                    inner.append((span[0], last, span[2]))
                    later.append((last, span[1], span[2]))
            if first > pos:
                out.append(self.quote(remove_surrogates(units[pos:first])))
            out.append(self.apply_entity(entity, self._render(units, inner, first, last)))
            pos = last
            later.sort(key=lambda span: (span[0], -span[1]))
            spans = later
        if pos < end:
            out.append(self.quote(remove_surrogates(units[pos:end])))
        return "".join(out)

    @abstractmethod
    def link(self, value: str, link: str) -> str: ...

    @abstractmethod
    def bold(self, value: str) -> str: ...

    @abstractmethod
    def italic(self, value: str) -> str: ...

    @abstractmethod
    def code(self, value: str) -> str: ...

    @abstractmethod
    def pre(self, value: str) -> str: ...

    @abstractmethod
    def pre_language(self, value: str, language: str) -> str: ...

    @abstractmethod
    def underline(self, value: str) -> str: ...

    @abstractmethod
    def strikethrough(self, value: str) -> str: ...

    @abstractmethod
    def spoiler(self, value: str) -> str: ...

    @abstractmethod
    def quote(self, value: str) -> str:
        """``value`` with every character that is markup in this language escaped."""

    @abstractmethod
    def custom_emoji(self, value: str, custom_emoji_id: str) -> str: ...

    @abstractmethod
    def blockquote(self, value: str) -> str: ...

    @abstractmethod
    def expandable_blockquote(self, value: str) -> str: ...

    @abstractmethod
    def date_time(
        self, value: str, unix_time: int | datetime, date_time_format: str | None = None
    ) -> str: ...


def _boundary(units: bytes, pos: int) -> int:
    """``pos``, moved past the low half of a surrogate pair it would split."""
    if pos < len(units) and 0xDC <= units[pos + 1] <= 0xDF:
        return pos + 2
    return pos


class HtmlDecoration(TextDecoration):
    """Telegram's HTML: ``<b>``, ``<a href>``, ``<tg-spoiler>``... Values are not quoted:
    ``html.bold(html.quote(user_text))`` is the caller's to write."""

    def _tag(self, tag: str, value: str, attrs: str = "") -> str:
        return f"<{tag}{attrs}>{value}</{tag}>"

    def link(self, value: str, link: str) -> str:
        return self._tag("a", value, f' href="{_attr(link)}"')

    def bold(self, value: str) -> str:
        return self._tag("b", value)

    def italic(self, value: str) -> str:
        return self._tag("i", value)

    def code(self, value: str) -> str:
        return self._tag("code", value)

    def pre(self, value: str) -> str:
        return self._tag("pre", value)

    def pre_language(self, value: str, language: str) -> str:
        return self.pre(self._tag("code", value, f' class="language-{_attr(language)}"'))

    def underline(self, value: str) -> str:
        return self._tag("u", value)

    def strikethrough(self, value: str) -> str:
        return self._tag("s", value)

    def spoiler(self, value: str) -> str:
        return self._tag("tg-spoiler", value)

    def quote(self, value: str) -> str:
        return escape(value, quote=False)

    def custom_emoji(self, value: str, custom_emoji_id: str) -> str:
        return self._tag("tg-emoji", value, f' emoji-id="{_attr(custom_emoji_id)}"')

    def blockquote(self, value: str) -> str:
        return self._tag("blockquote", value)

    def expandable_blockquote(self, value: str) -> str:
        return self._tag("blockquote", value, " expandable")

    def date_time(
        self, value: str, unix_time: int | datetime, date_time_format: str | None = None
    ) -> str:
        attrs = f' unix="{_unix(unix_time)}"'
        if date_time_format:
            attrs += f' format="{_attr(date_time_format)}"'
        return self._tag("tg-time", value, attrs)


def _attr(value: str) -> str:
    """An attribute value that cannot end its quotes early (``&`` stays, as Telegram takes it)."""
    return value.replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")


_MD_SPECIAL = re.compile(r"([_*\[\]()~`>#+\-=|{}.!\\])")
_MD_URL_SPECIAL = re.compile(r"([)\\])")


def _backslashed(match: re.Match[str]) -> str:
    return "\\" + match.group(1)


class MarkdownDecoration(TextDecoration):
    """Telegram's MarkdownV2. Italic and underline end with ``\\r`` (Telegram ignores it)
    so that ``___`` is never ambiguous between the two."""

    def link(self, value: str, link: str) -> str:
        return f"[{value}]({_MD_URL_SPECIAL.sub(_backslashed, link)})"

    def bold(self, value: str) -> str:
        return f"*{value}*"

    def italic(self, value: str) -> str:
        return f"_\r{value}_\r"

    def code(self, value: str) -> str:
        return f"`{value}`"

    def pre(self, value: str) -> str:
        return f"```\n{value}\n```"

    def pre_language(self, value: str, language: str) -> str:
        return f"```{language}\n{value}\n```"

    def underline(self, value: str) -> str:
        return f"__\r{value}__\r"

    def strikethrough(self, value: str) -> str:
        return f"~{value}~"

    def spoiler(self, value: str) -> str:
        return f"||{value}||"

    def quote(self, value: str) -> str:
        return _MD_SPECIAL.sub(_backslashed, value)

    def custom_emoji(self, value: str, custom_emoji_id: str) -> str:
        return "!" + self.link(value, f"tg://emoji?{urlencode({'id': custom_emoji_id})}")

    def blockquote(self, value: str) -> str:
        return "\n".join(f">{line}" for line in value.splitlines())

    def expandable_blockquote(self, value: str) -> str:
        return self.blockquote(value) + "||"

    def date_time(
        self, value: str, unix_time: int | datetime, date_time_format: str | None = None
    ) -> str:
        query: dict[str, object] = {"unix": _unix(unix_time)}
        if date_time_format:
            query["format"] = date_time_format
        return "!" + self.link(value, f"tg://time?{urlencode(query)}")


html_decoration = HtmlDecoration()
markdown_decoration = MarkdownDecoration()
