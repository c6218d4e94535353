"""Keyboard builders at aiogram's path: add buttons one by one, then shape the rows.

``InlineKeyboardBuilder().button(text="A", callback_data="a")...adjust(2).as_markup()``
builds the markup a handler sends. The rules follow aiogram's builder (same row
filling, same ``adjust`` patterns, same limits and the same points where they are
checked), so a bot ported from aiogram gets the very same keyboards.
"""

from __future__ import annotations

import copy
from collections.abc import Generator, Iterable, Iterator
from itertools import chain, cycle
from typing import Any, Generic, TypeVar

from ..filters.callback_data import CallbackData
from ..types import (
    CallbackGame,
    CopyTextButton,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    KeyboardButton,
    KeyboardButtonPollType,
    KeyboardButtonRequestChat,
    KeyboardButtonRequestManagedBot,
    KeyboardButtonRequestUsers,
    LoginUrl,
    ReplyKeyboardMarkup,
    SwitchInlineQueryChosenChat,
    WebAppInfo,
)
from ..types.base import keep_extra

__all__ = [
    "ButtonType",
    "InlineKeyboardBuilder",
    "KeyboardBuilder",
    "ReplyKeyboardBuilder",
    "repeat_last",
]

ButtonType = TypeVar("ButtonType", InlineKeyboardButton, KeyboardButton)
T = TypeVar("T")
_B = TypeVar("_B", bound="KeyboardBuilder[Any]")


def repeat_last(items: Iterable[T]) -> Generator[T, None, None]:
    """Each item of ``items`` in turn, then the last one for ever: how ``adjust``'s
    last size shapes every remaining row."""
    iterator = iter(items)
    try:
        last = next(iterator)
    except StopIteration:
        return
    yield last
    for last in iterator:  # the last one is what repeats after the loop
        yield last
    while True:
        yield last


class KeyboardBuilder(Generic[ButtonType]):
    """Rows of buttons of one type, checked against Telegram's limits.

    ``max_width`` is the most buttons a row holds, ``min_width`` the fewest a size may
    ask for, ``max_buttons`` the most in the whole keyboard (checked when a builder
    is made from rows, as aiogram does).
    """

    max_width: int = 0
    min_width: int = 0
    max_buttons: int = 0

    def __init__(
        self, button_type: type[ButtonType], markup: list[list[ButtonType]] | None = None
    ) -> None:
        if not (isinstance(button_type, type) and issubclass(button_type, _BUTTON_TYPES)):
            raise ValueError(
                f"a keyboard holds InlineKeyboardButton or KeyboardButton, not {button_type!r}"
            )
        self._button_type: type[ButtonType] = button_type
        if markup:
            self._validate_markup(markup)
            rows = [list(row) for row in markup]
        else:
            rows = []
        self._markup: list[list[ButtonType]] = rows

    @property
    def buttons(self) -> Generator[ButtonType, None, None]:
        """Every button, row after row (copies: changing one leaves the builder as is)."""
        yield from chain.from_iterable(self.export())

    def _validate_button(self, button: Any) -> bool:
        if not isinstance(button, self._button_type):
            raise ValueError(
                f"{button!r} is a {type(button).__name__}: this keyboard takes "
                f"{self._button_type.__name__}"
            )
        return True

    def _validate_buttons(self, *buttons: Any) -> bool:
        for button in buttons:
            self._validate_button(button)
        return True

    def _validate_row(self, row: Any) -> bool:
        if not isinstance(row, list):
            raise ValueError(
                f"a row is a list[{self._button_type.__name__}], not a {type(row).__name__}"
            )
        if len(row) > self.max_width:
            raise ValueError(
                f"a row of {len(row)} buttons is too wide: Telegram allows at most "
                f"{self.max_width} in a row of this keyboard"
            )
        return self._validate_buttons(*row)

    def _validate_markup(self, markup: Any) -> bool:
        if not isinstance(markup, list):
            raise ValueError(
                f"a keyboard is a list[list[{self._button_type.__name__}]], "
                f"not a {type(markup).__name__}"
            )
        count = 0
        for row in markup:
            self._validate_row(row)
            count += len(row)
        if count > self.max_buttons:
            raise ValueError(
                f"a keyboard of {count} buttons is too large: Telegram allows at most "
                f"{self.max_buttons} in this keyboard"
            )
        return True

    def _validate_size(self, size: Any) -> int:
        if not isinstance(size, int):
            raise ValueError(f"a row size is an int, not {type(size).__name__}")
        if not self.min_width <= size <= self.max_width:
            raise ValueError(
                f"a row of {size} buttons is not allowed: a row of this keyboard holds "
                f"{self.min_width} to {self.max_width}"
            )
        return size

    def export(self) -> list[list[ButtonType]]:
        """The rows, as a deep copy (the builder stays as it is)."""
        return copy.deepcopy(self._markup)

    def add(self: _B, *buttons: ButtonType) -> _B:
        """Append buttons: first filling the last row, then in new rows of full width."""
        self._validate_buttons(*buttons)
        markup = self.export()
        rest: tuple[ButtonType, ...] = buttons
        width = self.max_width
        if markup and len(markup[-1]) < width:
            room = width - len(markup[-1])
            markup[-1].extend(rest[:room])
            rest = rest[room:]
        if width > 0:
            markup.extend(list(rest[pos : pos + width]) for pos in range(0, len(rest), width))
        else:
            markup.append(list(rest))
        self._markup = markup
        return self

    def row(self: _B, *buttons: ButtonType, width: int | None = None) -> _B:
        """Start new rows with ``buttons``, ``width`` (default: the widest) per row."""
        if width is None:
            width = self.max_width
        self._validate_size(width)
        self._validate_buttons(*buttons)
        self._markup.extend(
            list(buttons[pos : pos + width]) for pos in range(0, len(buttons), width)
        )
        return self

    def adjust(self: _B, *sizes: int, repeat: bool = False) -> _B:
        """Regroup every button into rows of ``sizes``: after the last size, that size
        repeats; with ``repeat=True`` the whole pattern cycles."""
        # checked as they are used, as aiogram's are: a size no row reaches is not an error
        checked = map(self._validate_size, sizes or (self.max_width,))
        widths: Iterator[int] = cycle(checked) if repeat else repeat_last(checked)
        size = next(widths)
        markup: list[list[ButtonType]] = []
        row: list[ButtonType] = []
        for button in self.buttons:
            if len(row) >= size:
                markup.append(row)
                size = next(widths)
                row = []
            row.append(button)
        if row:
            markup.append(row)
        self._markup = markup
        return self

    def _button(self: _B, **kwargs: Any) -> _B:
        callback_data = kwargs.get("callback_data")
        if isinstance(callback_data, CallbackData):
            kwargs["callback_data"] = callback_data.pack()
        # a field this Bot API version lacks goes through as an extra field, as in aiogram
        fields = {attr for _key, attr, _tp, _req in self._button_type.__tg_fields__}
        extra = {k: kwargs.pop(k) for k in [k for k in kwargs if k not in fields]}
        button = self._button_type(**kwargs)
        if extra := {k: v for k, v in extra.items() if v is not None}:
            keep_extra(button, extra)
        return self.add(button)

    def as_markup(self, **kwargs: Any) -> InlineKeyboardMarkup | ReplyKeyboardMarkup:
        """The markup to send; ``kwargs`` are ReplyKeyboardMarkup's options (an inline
        keyboard has none and ignores them, as aiogram's does)."""
        if self._button_type is KeyboardButton:
            return ReplyKeyboardMarkup(keyboard=self.export(), **kwargs)  # type: ignore[arg-type]
        return InlineKeyboardMarkup(inline_keyboard=self.export())  # type: ignore[arg-type]

    def attach(self: _B, builder: KeyboardBuilder[Any]) -> _B:
        """Append a copy of another builder's rows (same button type) below these."""
        if not isinstance(builder, KeyboardBuilder):
            raise ValueError(
                f"only a KeyboardBuilder can be attached, not {type(builder).__name__}"
            )
        if builder._button_type is not self._button_type:
            raise ValueError(
                f"a builder of {builder._button_type.__name__} cannot be attached to one "
                f"of {self._button_type.__name__}"
            )
        self._markup.extend(builder.export())
        return self


_BUTTON_TYPES = (InlineKeyboardButton, KeyboardButton)


class InlineKeyboardBuilder(KeyboardBuilder[InlineKeyboardButton]):
    """Builds an InlineKeyboardMarkup: at most 8 buttons a row, 100 in all."""

    max_width: int = 8
    min_width: int = 1
    max_buttons: int = 100

    def __init__(self, markup: list[list[InlineKeyboardButton]] | None = None) -> None:
        super().__init__(InlineKeyboardButton, markup)

    def button(
        self,
        *,
        text: str,
        icon_custom_emoji_id: str | None = None,
        style: str | None = None,
        url: str | None = None,
        callback_data: str | CallbackData | None = None,
        web_app: WebAppInfo | None = None,
        login_url: LoginUrl | None = None,
        switch_inline_query: str | None = None,
        switch_inline_query_current_chat: str | None = None,
        switch_inline_query_chosen_chat: SwitchInlineQueryChosenChat | None = None,
        copy_text: CopyTextButton | None = None,
        callback_game: CallbackGame | None = None,
        pay: bool | None = None,
        **kwargs: Any,
    ) -> InlineKeyboardBuilder:
        """Add one button (a CallbackData ``callback_data`` is packed)."""
        return self._button(
            text=text,
            icon_custom_emoji_id=icon_custom_emoji_id,
            style=style,
            url=url,
            callback_data=callback_data,
            web_app=web_app,
            login_url=login_url,
            switch_inline_query=switch_inline_query,
            switch_inline_query_current_chat=switch_inline_query_current_chat,
            switch_inline_query_chosen_chat=switch_inline_query_chosen_chat,
            copy_text=copy_text,
            callback_game=callback_game,
            pay=pay,
            **kwargs,
        )

    def as_markup(self, **kwargs: Any) -> InlineKeyboardMarkup:
        """The InlineKeyboardMarkup to send."""
        return InlineKeyboardMarkup(inline_keyboard=self.export())

    def copy(self) -> InlineKeyboardBuilder:
        """An independent builder with the same rows."""
        return InlineKeyboardBuilder(self.export())

    @classmethod
    def from_markup(cls, markup: InlineKeyboardMarkup) -> InlineKeyboardBuilder:
        """A builder holding an existing markup's rows (to change a received keyboard)."""
        return cls(markup.inline_keyboard)


class ReplyKeyboardBuilder(KeyboardBuilder[KeyboardButton]):
    """Builds a ReplyKeyboardMarkup: at most 10 buttons a row, 300 in all (aiogram's)."""

    max_width: int = 10
    min_width: int = 1
    max_buttons: int = 300

    def __init__(self, markup: list[list[KeyboardButton]] | None = None) -> None:
        super().__init__(KeyboardButton, markup)

    def button(
        self,
        *,
        text: str,
        icon_custom_emoji_id: str | None = None,
        style: str | None = None,
        request_users: KeyboardButtonRequestUsers | None = None,
        request_chat: KeyboardButtonRequestChat | None = None,
        request_managed_bot: KeyboardButtonRequestManagedBot | None = None,
        request_contact: bool | None = None,
        request_location: bool | None = None,
        request_poll: KeyboardButtonPollType | None = None,
        web_app: WebAppInfo | None = None,
        **kwargs: Any,
    ) -> ReplyKeyboardBuilder:
        """Add one button."""
        return self._button(
            text=text,
            icon_custom_emoji_id=icon_custom_emoji_id,
            style=style,
            request_users=request_users,
            request_chat=request_chat,
            request_managed_bot=request_managed_bot,
            request_contact=request_contact,
            request_location=request_location,
            request_poll=request_poll,
            web_app=web_app,
            **kwargs,
        )

    def as_markup(self, **kwargs: Any) -> ReplyKeyboardMarkup:
        """The ReplyKeyboardMarkup to send, with its options (``resize_keyboard=True``...)."""
        return ReplyKeyboardMarkup(keyboard=self.export(), **kwargs)

    def copy(self) -> ReplyKeyboardBuilder:
        """An independent builder with the same rows."""
        return ReplyKeyboardBuilder(self.export())

    @classmethod
    def from_markup(cls, markup: ReplyKeyboardMarkup) -> ReplyKeyboardBuilder:
        """A builder holding an existing markup's rows."""
        return cls(markup.keyboard)
