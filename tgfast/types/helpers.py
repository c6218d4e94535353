"""Computed properties of some types that aiogram's users rely on, as slot-less mixins.

The generator adds each mixin to the bases of its type (``overrides/helpers.json``);
being properties on the class, they are visible to ``F`` (``F.from_user.full_name``)
like any field.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..defaults import Default
from ..utils.text_decorations import TextDecoration, html_decoration, markdown_decoration
from .enums import ContentType

if TYPE_CHECKING:
    from ._types import Chat, EphemeralMessageParameters, MessageEntity, ReplyParameters, User

__all__ = [
    "UNKNOWN",
    "ChatHelpers",
    "ContactHelpers",
    "InaccessibleMessageHelpers",
    "MessageEntityHelpers",
    "MessageHelpers",
    "UpdateHelpers",
    "UpdateTypeLookupError",
    "UserHelpers",
    "content_type_of",
]

UNKNOWN: ContentType = ContentType.UNKNOWN
"""The content type of a message none of whose known content fields is set."""

# Each ContentType value names the Message field that carries it; the spec lists them
# in the order that settles overlaps (an animation also fills ``document``, a venue
# also fills ``location``), and text, the commonest, first.
_CONTENT_FIELDS: tuple[tuple[str, ContentType], ...] = tuple(
    (member.value, member)
    for member in ContentType
    if member not in (ContentType.UNKNOWN, ContentType.ANY)  # no field of the message
)


def content_type_of(message: Any) -> ContentType:
    """The ``ContentType`` of a message: which content field is set, ``UNKNOWN`` if none."""
    for field, member in _CONTENT_FIELDS:
        if getattr(message, field, None) is not None:
            return member
    return UNKNOWN


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
        return html_decoration.link(html_decoration.quote(text), self.url)

    def mention_markdown(self, name: str | None = None) -> str:
        """A link to the user for ``parse_mode="MarkdownV2"``, the name escaped."""
        text = self.full_name if name is None else name
        return markdown_decoration.link(markdown_decoration.quote(text), self.url)


class ChatHelpers:
    """``Chat.full_name`` and ``shifted_id``, with aiogram's results."""

    __slots__ = ()
    id: int
    title: str | None
    first_name: str | None
    last_name: str | None

    @property
    def shifted_id(self) -> int:
        """The id without its ``-100`` prefix, as ``t.me/c/<id>/...`` links take it."""
        digits = len(str(self.id).replace("-100", ""))
        shift: int = -(10 ** (digits + 2))
        return shift - self.id

    @property
    def full_name(self) -> str:
        """The title, else first and last name (as aiogram's)."""
        if self.title is not None:
            return self.title
        if self.last_name is not None:
            return f"{self.first_name} {self.last_name}"
        return f"{self.first_name}"


class MessageHelpers:
    """``Message.content_type``, ``get_url``, ``html_text``/``md_text`` and
    ``as_reply_parameters``."""

    __slots__ = ()
    chat: Chat
    message_id: int
    message_thread_id: int | None
    is_topic_message: bool | None
    text: str | None
    caption: str | None
    entities: list[MessageEntity] | None
    caption_entities: list[MessageEntity] | None
    ephemeral_message_id: int | None
    from_user: User | None

    @property
    def html_text(self) -> str:
        """The text (or caption) with its entities as Telegram HTML: what to send to
        repeat the message with its formatting."""
        return self._unparsed(html_decoration)

    @property
    def md_text(self) -> str:
        """The text (or caption) with its entities as MarkdownV2."""
        return self._unparsed(markdown_decoration)

    def _unparsed(self, decoration: TextDecoration) -> str:
        if self.text is not None:
            return decoration.unparse(self.text, self.entities)
        return decoration.unparse(self.caption or "", self.caption_entities)

    def as_reply_parameters(
        self,
        allow_sending_without_reply: bool | Default | None = Default("allow_sending_without_reply"),
        quote: str | None = None,
        quote_parse_mode: str | Default | None = Default("parse_mode"),
        quote_entities: list[MessageEntity] | None = None,
        quote_position: int | None = None,
    ) -> ReplyParameters:
        """``ReplyParameters`` that reply to this message (the bot's defaults fill the
        parameters left out, when it is sent). An ephemeral message is replied to by its
        ``ephemeral_message_id`` alone: its ``message_id`` is 0 and a chat is refused."""
        from ._types import ReplyParameters

        ephemeral = self.ephemeral_message_id is not None
        return ReplyParameters(
            message_id=None if ephemeral else self.message_id,
            chat_id=None if ephemeral else self.chat.id,
            ephemeral_message_id=self.ephemeral_message_id,
            allow_sending_without_reply=allow_sending_without_reply,
            quote=quote,
            quote_parse_mode=quote_parse_mode,
            quote_entities=quote_entities,
            quote_position=quote_position,
        )

    def as_ephemeral_message_parameters(
        self,
        callback_query_id: str | None = None,
        replace_callback_query_message: bool | None = None,
    ) -> EphemeralMessageParameters | None:
        """What a reply to this message needs to be ephemeral too (a reply to an ephemeral
        message must be one, to the user who received it); ``None`` for other messages."""
        from ._types import EphemeralMessageParameters

        if not self.ephemeral_message_id or self.from_user is None:
            return None
        return EphemeralMessageParameters(
            receiver_user_id=self.from_user.id,
            callback_query_id=callback_query_id,
            replace_callback_query_message=replace_callback_query_message,
        )

    def _reply_target(self) -> ReplyParameters:
        """The reply shortcuts' ``reply_parameters``: this message, ephemeral or not."""
        from ._types import ReplyParameters

        if self.ephemeral_message_id is not None:
            return ReplyParameters(ephemeral_message_id=self.ephemeral_message_id)
        return ReplyParameters(message_id=self.message_id, chat_id=self.chat.id)

    def get_url(self, force_private: bool = False, include_thread_id: bool = False) -> str | None:
        """The ``https://t.me/...`` link of the message; ``None`` in private chats and
        basic groups, which have none."""
        chat = self.chat
        if chat.type in ("private", "group"):
            return None
        where = f"c/{chat.shifted_id}" if force_private or not chat.username else chat.username
        if include_thread_id and self.message_thread_id and self.is_topic_message:
            return f"https://t.me/{where}/{self.message_thread_id}/{self.message_id}"
        return f"https://t.me/{where}/{self.message_id}"

    @property
    def content_type(self) -> ContentType:
        """The ``ContentType`` whose field is set (``"unknown"`` when none is)."""
        return content_type_of(self)


class ContactHelpers:
    """``Contact.full_name``, as ``User.full_name``."""

    __slots__ = ()
    first_name: str
    last_name: str | None

    @property
    def full_name(self) -> str:
        """First and last name, or the first name alone."""
        if self.last_name:
            return f"{self.first_name} {self.last_name}"
        return self.first_name


class MessageEntityHelpers:
    """``MessageEntity.extract_from``: the entity's part of the text it was sent with."""

    __slots__ = ()
    offset: int
    length: int

    def extract_from(self, text: str) -> str:
        """The substring this entity covers; its offset and length count UTF-16 code
        units (an emoji outside the BMP is two), as Telegram counts them."""
        units = text.encode("utf-16-le", "surrogatepass")
        part = units[self.offset * 2 : (self.offset + self.length) * 2]
        return part.decode("utf-16-le", "surrogatepass")


class InaccessibleMessageHelpers:
    """``InaccessibleMessage.as_reply_parameters``, as a Message's (a button's message
    the bot can no longer read can still be replied to)."""

    __slots__ = ()
    chat: Chat
    message_id: int

    def as_reply_parameters(
        self,
        allow_sending_without_reply: bool | Default | None = Default("allow_sending_without_reply"),
        quote: str | None = None,
        quote_parse_mode: str | Default | None = Default("parse_mode"),
        quote_entities: list[MessageEntity] | None = None,
        quote_position: int | None = None,
    ) -> ReplyParameters:
        """``ReplyParameters`` that reply to this message (the bot's defaults fill the
        parameters left out, when it is sent)."""
        from ._types import ReplyParameters

        return ReplyParameters(
            message_id=self.message_id,
            chat_id=self.chat.id,
            allow_sending_without_reply=allow_sending_without_reply,
            quote=quote,
            quote_parse_mode=quote_parse_mode,
            quote_entities=quote_entities,
            quote_position=quote_position,
        )


class UpdateTypeLookupError(LookupError):
    """The update holds no event of a kind this version of tgfast knows."""


class UpdateHelpers:
    """``Update.event_type`` and ``event``: the one event an update carries."""

    __slots__ = ()

    @property
    def event_type(self) -> str:
        """The kind of the update (``"message"``, ``"callback_query"``, ...)."""
        from .update_kinds import UNKNOWN_KIND, event_of  # update_kinds imports the types

        kind, _event = event_of(self)  # type: ignore[arg-type]
        if kind == UNKNOWN_KIND:
            raise UpdateTypeLookupError("the update holds no event of a known kind")
        return kind

    @property
    def event(self) -> Any:
        """The event itself (the ``Message``, the ``CallbackQuery``, ...)."""
        from .update_kinds import UNKNOWN_KIND, event_of

        kind, event = event_of(self)  # type: ignore[arg-type]
        if kind == UNKNOWN_KIND:
            raise UpdateTypeLookupError("the update holds no event of a known kind")
        return event
