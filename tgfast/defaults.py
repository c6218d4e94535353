"""Bot-wide defaults for method parameters, and the marker for "not passed".

``DefaultBotProperties`` is aiogram's class (also at ``tgfast.client.default``);
``BotDefaults`` is tgfast's earlier name for it (the same class), whose constructor
form, by position with ``link_preview_options=``, the class still accepts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Final

if TYPE_CHECKING:
    from .types import LinkPreviewOptions

__all__ = ["DEFAULT", "BotDefaults", "Default", "DefaultBotProperties"]


class Default:
    """The value of a parameter the caller did not pass: the bot's default applies.

    ``None`` cannot play this part, because passing ``None`` explicitly means
    "leave this parameter out" even when the bot has a default for it.

    A marker names the ``DefaultBotProperties`` attribute it stands for, as aiogram's
    does: ``Default("parse_mode")`` is the default of every ``parse_mode`` parameter,
    one instance per name, equal by name. ``DEFAULT`` (``Default()``) names none: it
    means "this parameter's own bot default" wherever it is passed. Either way the
    parameter decides which default fills it, so telling a marker from a value is one
    check of its type (``type(value) is Default``).
    """

    __slots__ = ("_name",)
    _name: str | None
    _interned: ClassVar[dict[str | None, Default]] = {}

    def __new__(cls, name: str | None = None) -> Default:
        marker = cls._interned.get(name)
        if marker is None:
            if name is not None and not isinstance(name, str):
                raise TypeError(f"Default takes the name of a bot default, not {name!r}")
            marker = super().__new__(cls)
            marker._name = name
            cls._interned[name] = marker
        return marker

    @property
    def name(self) -> str | None:
        """The ``DefaultBotProperties`` attribute this marker stands for (``None``: the
        parameter's own)."""
        return self._name

    def __str__(self) -> str:
        return "DEFAULT" if self._name is None else f"Default({self._name!r})"

    def __repr__(self) -> str:
        return "DEFAULT" if self._name is None else f"<Default({self._name!r})>"

    def __eq__(self, other: object) -> bool:
        if type(other) is not Default:
            return NotImplemented
        return self is other  # interned: one instance per name

    def __hash__(self) -> int:
        return hash((Default, self._name))

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str | tuple[type[Default], tuple[str]]:
        return "DEFAULT" if self._name is None else (Default, (self._name,))

    def __copy__(self) -> Default:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Default:
        return self


DEFAULT: Final = Default()


@dataclass(slots=True, init=False)
class DefaultBotProperties:
    """Values a bot uses for parameters its callers leave out: ``Bot(token, default=...)``.

    They fill a method's own parameters (``parse_mode`` also ``caption``'s,
    ``explanation_parse_mode`` and the like) and, as aiogram does, the same fields of
    the objects sent inside a call: ``InputMedia*``, ``InlineQueryResult*``,
    ``InputTextMessageContent``, ``ReplyParameters`` (``quote_parse_mode``,
    ``allow_sending_without_reply``), ``LinkPreviewOptions``. A field set to ``None``
    explicitly is left out, whatever the default.

    The ``link_preview_*`` flags build ``link_preview`` when it is not given.
    ``disable_notification`` and ``allow_paid_broadcast`` also fill the methods'
    parameters of those names (aiogram 3.31 keeps ``disable_notification`` but
    applies it nowhere).

    aiogram's form is all keywords. tgfast's earlier form, ``BotDefaults(parse_mode,
    disable_notification, protect_content, link_preview_options, allow_paid_broadcast)``
    (by position, ``link_preview_options`` for ``link_preview``), builds the same object:
    ``BotDefaults`` is this class.
    """

    parse_mode: str | None
    disable_notification: bool | None
    protect_content: bool | None
    allow_sending_without_reply: bool | None
    link_preview: LinkPreviewOptions | None
    link_preview_is_disabled: bool | None
    link_preview_prefer_small_media: bool | None
    link_preview_prefer_large_media: bool | None
    link_preview_show_above_text: bool | None
    show_caption_above_media: bool | None
    allow_paid_broadcast: bool | None

    def __init__(
        self,
        parse_mode: str | None = None,
        disable_notification: bool | None = None,
        protect_content: bool | None = None,
        link_preview_options: LinkPreviewOptions | None = None,
        allow_paid_broadcast: bool | None = None,
        *,
        allow_sending_without_reply: bool | None = None,
        link_preview: LinkPreviewOptions | None = None,
        link_preview_is_disabled: bool | None = None,
        link_preview_prefer_small_media: bool | None = None,
        link_preview_prefer_large_media: bool | None = None,
        link_preview_show_above_text: bool | None = None,
        show_caption_above_media: bool | None = None,
    ) -> None:
        if link_preview_options is not None:
            if link_preview is not None:
                raise TypeError(
                    "pass the link preview once: link_preview= (aiogram's name) or "
                    "link_preview_options="
                )
            link_preview = link_preview_options
        self.parse_mode = parse_mode
        self.disable_notification = disable_notification
        self.protect_content = protect_content
        self.allow_sending_without_reply = allow_sending_without_reply
        self.link_preview = link_preview
        self.link_preview_is_disabled = link_preview_is_disabled
        self.link_preview_prefer_small_media = link_preview_prefer_small_media
        self.link_preview_prefer_large_media = link_preview_prefer_large_media
        self.link_preview_show_above_text = link_preview_show_above_text
        self.show_caption_above_media = show_caption_above_media
        self.allow_paid_broadcast = allow_paid_broadcast
        flags = (
            link_preview_is_disabled,
            link_preview_prefer_small_media,
            link_preview_prefer_large_media,
            link_preview_show_above_text,
        )
        if link_preview is None and any(flags):
            from .types import LinkPreviewOptions

            self.link_preview = LinkPreviewOptions(
                is_disabled=link_preview_is_disabled,
                prefer_small_media=link_preview_prefer_small_media,
                prefer_large_media=link_preview_prefer_large_media,
                show_above_text=link_preview_show_above_text,
            )

    def __getitem__(self, item: str) -> Any:
        """``default["parse_mode"]``: the value, ``None`` for a name it does not have."""
        return getattr(self, item, None)

    @property
    def link_preview_options(self) -> LinkPreviewOptions | None:
        """``link_preview`` by the name of the parameter it fills (``BotDefaults``' name)."""
        return self.link_preview


BotDefaults = DefaultBotProperties
"""tgfast's earlier name for ``DefaultBotProperties`` (the same class)."""
