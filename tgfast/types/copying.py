"""``message.send_copy(chat_id)``: send a message's content again, as a new message.

Unlike ``copy_to`` (the Bot API's ``copyMessage``, which answers with a bare
``MessageId``), this builds the send method that fits the content (``SendPhoto`` for
a photo, ``SendMessage`` for text, ...), so awaiting it gives the whole new
``Message``: aiogram's ``send_copy``, which bots call by that name. The spec cannot
say which content maps to which method, so this one is written by hand and mixed
into the generated ``MessageShortcuts`` (``tools/codegen/overrides/shortcuts.json``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..methods import _methods  # read at call time: _methods imports this package
from . import _types  # read at call time: _types imports this module
from .binding import current_bot

if TYPE_CHECKING:
    from ..methods.base import TelegramMethod
    from ._types import (
        Animation,
        Audio,
        Chat,
        Contact,
        Dice,
        Document,
        ForceReply,
        InlineKeyboardMarkup,
        LinkPreviewOptions,
        LivePhoto,
        Location,
        MessageEntity,
        PhotoSize,
        Poll,
        ReplyKeyboardMarkup,
        ReplyKeyboardRemove,
        ReplyParameters,
        Sticker,
        Story,
        Venue,
        Video,
        VideoNote,
        Voice,
    )

__all__ = ["MessageCopy"]

_LEGACY = ("reply_to_message_id", "allow_sending_without_reply")


def _legacy_reply(args: dict[str, Any]) -> Any:
    """``reply_parameters`` as given, else made from the old ``reply_to_message_id``."""
    if args["reply_parameters"] is not None or args["reply_to_message_id"] is None:
        return args["reply_parameters"]
    return _types.ReplyParameters(
        message_id=args["reply_to_message_id"],
        allow_sending_without_reply=args["allow_sending_without_reply"],
    )


class MessageCopy:
    """``send_copy`` for ``Message``; the fields it reads are ``Message``'s."""

    __slots__ = ()
    _bot: Any

    if TYPE_CHECKING:
        chat: Chat
        message_id: int
        text: str | None
        entities: list[MessageEntity] | None
        link_preview_options: LinkPreviewOptions | None
        caption: str | None
        caption_entities: list[MessageEntity] | None
        reply_markup: InlineKeyboardMarkup | None
        effect_id: str | None
        audio: Audio | None
        animation: Animation | None
        document: Document | None
        live_photo: LivePhoto | None
        photo: list[PhotoSize] | None
        sticker: Sticker | None
        video: Video | None
        video_note: VideoNote | None
        voice: Voice | None
        contact: Contact | None
        venue: Venue | None
        location: Location | None
        poll: Poll | None
        dice: Dice | None
        story: Story | None

    def send_copy(
        self,
        chat_id: int | str,
        disable_notification: bool | None = None,
        reply_to_message_id: int | None = None,
        reply_parameters: ReplyParameters | None = None,
        reply_markup: InlineKeyboardMarkup
        | ReplyKeyboardMarkup
        | ReplyKeyboardRemove
        | ForceReply
        | None = None,
        allow_sending_without_reply: bool | None = None,
        message_thread_id: int | None = None,
        business_connection_id: str | None = None,
        parse_mode: str | None = None,
        message_effect_id: str | None = None,
        link_preview_options: LinkPreviewOptions | None = None,
    ) -> TelegramMethod[Any]:
        """The send method that repeats this message's content in ``chat_id``, bound to
        this message's bot: ``await`` it for the new ``Message``.

        Text keeps its entities, media are sent again by ``file_id`` with their
        caption; the keyboard and the message effect are this message's unless given.
        A story is forwarded (it cannot be sent). ``reply_to_message_id`` and
        ``allow_sending_without_reply`` (the old spelling of ``reply_parameters``) are sent
        as given. ``parse_mode`` is None by default: the entities are already parsed. Raises
        ``TypeError`` for content that cannot be sent again (a service message).
        """
        common: dict[str, Any] = {
            "chat_id": chat_id,
            "business_connection_id": business_connection_id,
            "message_thread_id": message_thread_id,
            "disable_notification": disable_notification,
            "reply_parameters": reply_parameters,
            "reply_markup": reply_markup or self.reply_markup,
            "message_effect_id": message_effect_id or self.effect_id,
            "reply_to_message_id": reply_to_message_id,
            "allow_sending_without_reply": allow_sending_without_reply,
        }
        method = self._copy_method(common, parse_mode, link_preview_options)
        method._bot = self._bot or current_bot.get()
        return method

    def _copy_method(
        self,
        common: dict[str, Any],
        parse_mode: str | None,
        link_preview_options: LinkPreviewOptions | None,
    ) -> TelegramMethod[Any]:
        m = _methods
        captioned = {
            "caption": self.caption,
            "caption_entities": self.caption_entities,
            "parse_mode": parse_mode,
            **common,
        }
        if self.text:
            return m.SendMessage(
                text=self.text,
                entities=self.entities,
                link_preview_options=link_preview_options or self.link_preview_options,
                parse_mode=parse_mode,
                **common,
            )
        if self.audio:
            a = self.audio
            return m.SendAudio(
                audio=a.file_id,
                title=a.title,
                performer=a.performer,
                duration=a.duration,
                **captioned,
            )
        if self.animation:
            return m.SendAnimation(animation=self.animation.file_id, **captioned)
        if self.document:
            return m.SendDocument(document=self.document.file_id, **captioned)
        if self.live_photo:
            photo = self.photo or self.live_photo.photo
            if photo:
                live = {k: v for k, v in captioned.items() if k not in _LEGACY}
                if reply := _legacy_reply(captioned):  # sendLivePhoto never had the old names
                    live["reply_parameters"] = reply
                return m.SendLivePhoto(
                    live_photo=self.live_photo.file_id, photo=photo[-1].file_id, **live
                )
        if self.photo:
            return m.SendPhoto(photo=self.photo[-1].file_id, **captioned)
        if self.sticker:
            return m.SendSticker(sticker=self.sticker.file_id, **common)
        if self.video:
            return m.SendVideo(video=self.video.file_id, **captioned)
        if self.video_note:
            return m.SendVideoNote(video_note=self.video_note.file_id, **common)
        if self.voice:
            return m.SendVoice(voice=self.voice.file_id, **captioned)
        return self._copy_other(common)

    def _copy_other(self, common: dict[str, Any]) -> TelegramMethod[Any]:
        m = _methods
        if self.contact:
            c = self.contact
            return m.SendContact(
                phone_number=c.phone_number,
                first_name=c.first_name,
                last_name=c.last_name,
                vcard=c.vcard,
                **common,
            )
        if self.venue:
            v = self.venue
            return m.SendVenue(
                latitude=v.location.latitude,
                longitude=v.location.longitude,
                title=v.title,
                address=v.address,
                foursquare_id=v.foursquare_id,
                foursquare_type=v.foursquare_type,
                **common,
            )
        if self.location:
            return m.SendLocation(
                latitude=self.location.latitude, longitude=self.location.longitude, **common
            )
        if self.poll:
            options = [
                _types.InputPollOption(text=o.text, text_entities=o.text_entities)
                for o in self.poll.options
            ]
            return m.SendPoll(question=self.poll.question, options=options, **common)
        if self.dice:
            return m.SendDice(emoji=self.dice.emoji, **common)
        if self.story:
            fwd = {k: common[k] for k in ("chat_id", "message_thread_id", "disable_notification")}
            return m.ForwardMessage(from_chat_id=self.chat.id, message_id=self.message_id, **fwd)
        # aiogram's words first: bots and their tests match on them
        raise TypeError(
            "This type of message can't be copied: its content cannot be sent again"
            " (a service message?)"
        )
