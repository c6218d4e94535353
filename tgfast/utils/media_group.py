"""``MediaGroupBuilder`` at aiogram's path: collect an album, then ``send_media_group``.

``MediaGroupBuilder(caption="Trip").add_photo(...)...`` then
``await bot.send_media_group(chat_id, media=builder.build())``. As in aiogram, the
group caption goes on the first item (Telegram shows the first item's caption under
the album), an eleventh item is refused when it is added, and anything that is not an
``InputMedia`` is refused. tgfast also refuses to ``build()`` fewer than two items,
which Telegram would reject with a 400 after the upload.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeAlias

from ..defaults import DEFAULT, Default
from ..errors import TgfastError
from ..types import (
    InputFile,
    InputMedia,
    InputMediaAudio,
    InputMediaDocument,
    InputMediaPhoto,
    InputMediaVideo,
    MessageEntity,
)
from ..types.enums import InputMediaType

__all__ = [
    "MAX_MEDIA_GROUP_SIZE",
    "MIN_MEDIA_GROUP_SIZE",
    "MediaGroupBuilder",
    "MediaGroupError",
    "MediaType",
]

MediaType: TypeAlias = InputMediaAudio | InputMediaPhoto | InputMediaVideo | InputMediaDocument
"""What a media group may hold (animations and stickers cannot be sent in one)."""

MAX_MEDIA_GROUP_SIZE = 10
MIN_MEDIA_GROUP_SIZE = 2


class MediaGroupError(TgfastError, ValueError):
    """A media group that Telegram would refuse: not 2-10 items, or not ``InputMedia``.

    A ``ValueError``, as aiogram raises, so ``except ValueError`` keeps working.
    """


class MediaGroupBuilder:
    """Builds the ``media`` list of ``sendMediaGroup``.

    ``caption`` (and ``caption_entities``) is the album's caption: ``build()`` puts it
    on the first item, replacing that item's own, with ``parse_mode=None`` when
    entities are given (entities and a parse mode exclude each other).
    """

    def __init__(
        self,
        media: Iterable[MediaType] | None = None,
        caption: str | None = None,
        caption_entities: list[MessageEntity] | None = None,
    ) -> None:
        self._media: list[MediaType] = []
        self.caption = caption
        self.caption_entities = caption_entities
        self._extend(media or ())

    def _extend(self, media: Iterable[MediaType]) -> None:
        for item in media:
            self._add(item)

    def _add(self, media: MediaType) -> None:
        if not isinstance(media, InputMedia):
            raise MediaGroupError(
                f"a media group holds InputMedia objects (InputMediaPhoto, ...), "
                f"not {type(media).__name__}"
            )
        if len(self._media) >= MAX_MEDIA_GROUP_SIZE:
            raise MediaGroupError(
                f"a media group holds at most {MAX_MEDIA_GROUP_SIZE} items: "
                "send the rest in another group"
            )
        self._media.append(media)

    def add(self, *, type: str | None = None, **kwargs: Any) -> None:
        """Add an item of ``type`` (``"photo"``, ``"video"``, ``"audio"``, ``"document"``,
        or ``InputMediaType.PHOTO``...), with that kind's ``add_*`` arguments."""
        adders: dict[str, Callable[..., None]] = {
            InputMediaType.PHOTO: self.add_photo,
            InputMediaType.VIDEO: self.add_video,
            InputMediaType.AUDIO: self.add_audio,
            InputMediaType.DOCUMENT: self.add_document,
        }
        adder = adders.get(type) if isinstance(type, str) else None
        if adder is None:
            raise MediaGroupError(
                f"unknown media type {type!r}: a media group takes photo, video, audio, document"
            )
        adder(**kwargs)

    def add_photo(
        self,
        media: str | InputFile,
        caption: str | None = None,
        parse_mode: str | Default | None = DEFAULT,
        caption_entities: list[MessageEntity] | None = None,
        has_spoiler: bool | None = None,
        **kwargs: Any,
    ) -> None:
        """Add a photo: a file_id, a URL or an ``InputFile`` to upload."""
        self._add(
            InputMediaPhoto(
                media=media, caption=caption, parse_mode=parse_mode,
                caption_entities=caption_entities, has_spoiler=has_spoiler, **kwargs,
            )
        )  # fmt: skip

    def add_video(
        self,
        media: str | InputFile,
        thumbnail: InputFile | str | None = None,
        caption: str | None = None,
        parse_mode: str | Default | None = DEFAULT,
        caption_entities: list[MessageEntity] | None = None,
        width: int | None = None,
        height: int | None = None,
        duration: int | None = None,
        supports_streaming: bool | None = None,
        has_spoiler: bool | None = None,
        **kwargs: Any,
    ) -> None:
        """Add a video (``thumbnail`` only counts for an uploaded one)."""
        self._add(
            InputMediaVideo(
                media=media, thumbnail=thumbnail, caption=caption, parse_mode=parse_mode,
                caption_entities=caption_entities, width=width, height=height,
                duration=duration, supports_streaming=supports_streaming,
                has_spoiler=has_spoiler, **kwargs,
            )
        )  # fmt: skip

    def add_audio(
        self,
        media: str | InputFile,
        thumbnail: InputFile | str | None = None,
        caption: str | None = None,
        parse_mode: str | Default | None = DEFAULT,
        caption_entities: list[MessageEntity] | None = None,
        duration: int | None = None,
        performer: str | None = None,
        title: str | None = None,
        **kwargs: Any,
    ) -> None:
        """Add an audio file (an album of audio holds audio only: Telegram's rule)."""
        self._add(
            InputMediaAudio(
                media=media, thumbnail=thumbnail, caption=caption, parse_mode=parse_mode,
                caption_entities=caption_entities, duration=duration, performer=performer,
                title=title, **kwargs,
            )
        )  # fmt: skip

    def add_document(
        self,
        media: str | InputFile,
        thumbnail: InputFile | str | None = None,
        caption: str | None = None,
        parse_mode: str | Default | None = DEFAULT,
        caption_entities: list[MessageEntity] | None = None,
        disable_content_type_detection: bool | None = None,
        **kwargs: Any,
    ) -> None:
        """Add a document (an album of documents holds documents only: Telegram's rule)."""
        self._add(
            InputMediaDocument(
                media=media, thumbnail=thumbnail, caption=caption, parse_mode=parse_mode,
                caption_entities=caption_entities,
                disable_content_type_detection=disable_content_type_detection, **kwargs,
            )
        )  # fmt: skip

    def build(self) -> list[MediaType]:
        """The items, the first one carrying the album caption (a copy: the builder's
        own items are left as they were, so ``build()`` can be called again)."""
        if len(self._media) < MIN_MEDIA_GROUP_SIZE:
            raise MediaGroupError(
                f"a media group needs {MIN_MEDIA_GROUP_SIZE} to {MAX_MEDIA_GROUP_SIZE} items, "
                f"this one has {len(self._media)}: send a single item with send_photo, "
                "send_video..."
            )
        media = list(self._media)
        if self.caption is not None:
            first: dict[str, Any] = {"caption": self.caption}
            if self.caption_entities is not None:
                first["caption_entities"] = self.caption_entities
                first["parse_mode"] = None
            media[0] = media[0].model_copy(update=first)
        return media
