"""Computed properties of some types that aiogram's users rely on, as slot-less mixins.

The generator adds each mixin to the bases of its type (``overrides/helpers.json``);
being properties on the class, they are visible to ``F`` (``F.from_user.full_name``)
like any field.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .enums import ContentType

__all__ = ["ChatHelpers", "MessageHelpers", "UserHelpers"]

# The characters MarkdownV2 reserves; each is escaped with a backslash in plain text.
_MARKDOWN_V2_SPECIAL = re.compile(r"([\\_*\[\]()~`>#+\-=|{}.!])")


class UserHelpers:
    """``User.full_name``, ``url`` and mentions, with aiogram's results."""

    __slots__ = ()
    id: int
    first_name: str
    last_name: str | None

    @property
    def full_name(self) -> str:
        """First and last name, or the first name alone."""
        if self.last_name:
            return f"{self.first_name} {self.last_name}"
        return self.first_name

    @property
    def url(self) -> str:
        """The link that opens this user's profile: ``tg://user?id=<id>``."""
        return f"tg://user?id={self.id}"

    def mention_html(self, name: str | None = None) -> str:
        """A link to the user for ``parse_mode="HTML"``: ``name`` or the full name, escaped."""
        text = self.full_name if name is None else name
        return f'<a href="{self.url}">{html.escape(text, quote=False)}</a>'

    def mention_markdown(self, name: str | None = None) -> str:
        """A link to the user for ``parse_mode="MarkdownV2"``, the name escaped."""
        text = self.full_name if name is None else name
        escaped = _MARKDOWN_V2_SPECIAL.sub(r"\\\1", text)
        return f"[{escaped}]({self.url})"


class ChatHelpers:
    """``Chat.full_name``: the title of a group or channel, a private chat's name."""

    __slots__ = ()
    title: str | None
    first_name: str | None
    last_name: str | None

    @property
    def full_name(self) -> str:
        """The title, else first and last name (as aiogram's)."""
        if self.title is not None:
            return self.title
        if self.last_name is not None:
            return f"{self.first_name} {self.last_name}"
        return f"{self.first_name}"


class MessageHelpers:
    """``Message.content_type``: which kind of content the message carries."""

    __slots__ = ()

    @property
    def content_type(self) -> ContentType:
        """The ``ContentType`` whose field is set (``"unknown"`` when none is)."""
        from ..filters.content import content_type_of  # filters import the types

        return content_type_of(self)
