"""Inline keyboards with a CallbackData factory; handlers that return method objects."""

from aiogram import Bot, Dispatcher, F
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.filters import Command
from aiogram.filters.callback_data import CallbackData
from aiogram.methods import SendMessage
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message

dp = Dispatcher()


class Vote(CallbackData, prefix="vote"):
    choice: str
    weight: int = 1


def make_bot(api_url: str) -> Bot:
    return Bot("42:TEST", session=AiohttpSession(api=TelegramAPIServer.from_base(api_url)))


def keyboard() -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(text="Up", callback_data=Vote(choice="up").pack()),
                InlineKeyboardButton(
                    text="Down x2", callback_data=Vote(choice="down", weight=2).pack()
                ),
            ],
            [InlineKeyboardButton(text="Docs", url="https://core.telegram.org/bots/api")],
        ]
    )


@dp.message(Command("vote"))
async def ask(message: Message) -> SendMessage:
    return message.answer("Vote:", reply_markup=keyboard())


@dp.callback_query(Vote.filter(F.choice == "up"))
async def up(callback: CallbackQuery, callback_data: Vote) -> None:
    await callback.answer(f"+{callback_data.weight}", show_alert=True)
    assert callback.message is not None
    await callback.message.edit_text(f"You voted {callback_data.choice}")


@dp.callback_query(Vote.filter())
async def other(callback: CallbackQuery, callback_data: Vote) -> object:
    assert callback.message is not None
    await callback.message.edit_reply_markup(reply_markup=None)
    return callback.answer(f"-{callback_data.weight}")


@dp.callback_query()
async def stale(callback: CallbackQuery) -> None:
    await callback.answer("This button is no longer supported", cache_time=30)


UPDATES = [
    {"message": {"text": "/vote"}},
    {"callback_query": {"data": "vote:up:1"}},
    {"callback_query": {"data": "vote:down:2"}},
    {"callback_query": {"data": "legacy"}},
]
