"""Callback-keyboard bot: a counter with inline buttons, edited in place.

    tgfast webhook examples/callback_bot.py:dp --fake

Pressing a button sends a callback query; ``Counter`` packs and unpacks its data.
"""

from __future__ import annotations

from tgfast import Dispatcher, F
from tgfast.filters import CallbackData, CommandStart
from tgfast.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message

dp = Dispatcher()


class Counter(CallbackData, prefix="counter"):
    value: int
    step: int


def keyboard(value: int) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(text="-1", callback_data=Counter(value=value, step=-1).pack()),
                InlineKeyboardButton(text="+1", callback_data=Counter(value=value, step=1).pack()),
            ],
            [InlineKeyboardButton(text="Done", callback_data="done")],
        ]
    )


@dp.message(CommandStart())
async def start(message: Message) -> None:
    await message.answer("Count: 0", reply_markup=keyboard(0))


@dp.callback_query(Counter.filter())
async def step(query: CallbackQuery, callback_data: Counter) -> None:
    value = callback_data.value + callback_data.step
    await query.answer(f"{value}")
    if query.message is not None:
        await query.message.edit_text(f"Count: {value}", reply_markup=keyboard(value))


@dp.callback_query(F.data == "done")
async def done(query: CallbackQuery) -> None:
    await query.answer("Saved")
    if query.message is not None:
        await query.message.edit_text("Final count saved.")
