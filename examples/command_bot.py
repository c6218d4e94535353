"""Command bot: /start with a deep-link payload, /help, /add, and a word for the rest.

    tgfast webhook examples/command_bot.py:dp --fake

A handler may return a method object instead of calling the API itself: ``/help``
does, and with ``tgfast webhook --reply-mode`` it goes back as the webhook response.
"""

from __future__ import annotations

from tgfast import Dispatcher, F, Router
from tgfast.filters import Command, CommandObject, CommandStart
from tgfast.methods import SendMessage
from tgfast.types import Message

router = Router(name="commands")

HELP = "/start - say hello\n/add 2 3 - add numbers\n/help - this list"


@router.message(CommandStart())
async def start(message: Message, command: CommandObject) -> None:
    name = message.from_user.first_name if message.from_user else "there"
    if command.args:
        await message.answer(f"Hello, {name}! You came from {command.args}.")
    else:
        await message.answer(f"Hello, {name}! Try /help.")


@router.message(Command("help"))
async def help_(message: Message) -> SendMessage:
    return SendMessage(chat_id=message.chat.id, text=HELP)


@router.message(Command("add"))
async def add(message: Message, command: CommandObject) -> None:
    try:
        numbers = [float(word) for word in (command.args or "").split()]
    except ValueError:
        await message.reply("Usage: /add 2 3")
        return
    total = sum(numbers)
    await message.reply(f"{total:g}" if numbers else "Usage: /add 2 3")


@router.message(F.text.startswith("/"))
async def unknown(message: Message) -> None:
    await message.answer(f"I don't know {(message.text or '').split()[0]}. Try /help.")


dp = Dispatcher()
dp.include_router(router)
