"""The first bot of every tutorial: greet on /start, copy everything else back."""

from aiogram import Bot, Dispatcher, F, html
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.enums import ParseMode
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import Message

dp = Dispatcher()


def make_bot(api_url: str) -> Bot:
    session = AiohttpSession(api=TelegramAPIServer.from_base(api_url))
    return Bot("42:TEST", session=session, default=DefaultBotProperties(parse_mode=ParseMode.HTML))


@dp.message(CommandStart())
async def start(message: Message) -> None:
    assert message.from_user is not None
    await message.answer(f"Hello, {html.bold(html.quote(message.from_user.full_name))}!")


@dp.message(Command("say"))
async def say(message: Message, command: CommandObject) -> None:
    await message.reply(html.italic(html.quote(command.args or "nothing")))


@dp.message(F.text.lower() == "when")
async def when(message: Message) -> None:
    await message.answer(
        f"sent at {message.date:%Y-%m-%d %H:%M} (UTC offset {message.date.utcoffset()})"
    )


@dp.message()
async def echo(message: Message) -> None:
    try:
        await message.send_copy(chat_id=message.chat.id)
    except TypeError:
        await message.answer("Nice try!")


UPDATES = [
    {"message": {"text": "/start", "from": {"first_name": "Ada <3", "last_name": "L"}}},
    {"message": {"text": "/say hi & bye"}},
    {"message": {"text": "/say"}},
    {"message": {"text": "WHEN"}},
    {"message": {"text": "plain *text*"}},
    {
        "message": {
            "sticker": {
                "file_id": "S1",
                "file_unique_id": "s1",
                "type": "regular",
                "width": 1,
                "height": 1,
                "is_animated": False,
                "is_video": False,
            }
        }
    },
]
