"""Bot-wide defaults for method parameters, and the marker for "not passed"."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from .types import LinkPreviewOptions

__all__ = ["DEFAULT", "BotDefaults", "Default"]


class Default:
    """The value of a parameter the caller did not pass: the bot's default applies.

    ``None`` cannot play this part, because passing ``None`` explicitly means
    "leave this parameter out" even when the bot has a default for it.
    """

    __slots__ = ()
    _instance: Default | None = None

    def __new__(cls) -> Default:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "DEFAULT"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "DEFAULT"


DEFAULT: Final = Default()


@dataclass(frozen=True, slots=True)
class BotDefaults:
    """Values a bot uses for parameters its callers leave out.

    ``parse_mode`` also fills ``explanation_parse_mode``, ``question_parse_mode`` and the
    like. Defaults apply to a method's own parameters, not to objects nested in them
    (an ``InputMediaPhoto``'s ``parse_mode`` is sent as the object holds it).
    """

    parse_mode: str | None = None
    disable_notification: bool | None = None
    protect_content: bool | None = None
    link_preview_options: LinkPreviewOptions | None = None
    allow_paid_broadcast: bool | None = None
