"""A questionnaire on the FSM: states, data, keyboards, cancel from any state."""

from aiogram import Bot, Dispatcher, F, Router
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.filters import Command, CommandStart, StateFilter
from aiogram.fsm.context import FSMContext
from aiogram.fsm.state import State, StatesGroup, default_state
from aiogram.fsm.storage.memory import MemoryStorage
from aiogram.types import KeyboardButton, Message, ReplyKeyboardMarkup, ReplyKeyboardRemove

router = Router(name="form")


class Form(StatesGroup):
    name = State()
    likes_bots = State()
    language = State()


def make_bot(api_url: str) -> Bot:
    return Bot("42:TEST", session=AiohttpSession(api=TelegramAPIServer.from_base(api_url)))


@router.message(CommandStart(), StateFilter(default_state))
async def start(message: Message, state: FSMContext) -> None:
    await state.set_state(Form.name)
    await message.answer("Hi there! What's your name?", reply_markup=ReplyKeyboardRemove())


@router.message(Command("cancel"))
@router.message(F.text.casefold() == "cancel")
async def cancel(message: Message, state: FSMContext) -> None:
    current = await state.get_state()
    if current is None:
        return
    await state.clear()
    await message.answer(f"Cancelled {current}.", reply_markup=ReplyKeyboardRemove())


@router.message(Form.name)
async def name(message: Message, state: FSMContext) -> None:
    await state.update_data(name=message.text)
    await state.set_state(Form.likes_bots)
    keyboard = ReplyKeyboardMarkup(
        keyboard=[[KeyboardButton(text="Yes"), KeyboardButton(text="No")]], resize_keyboard=True
    )
    await message.answer(
        f"Nice to meet you, {message.text}! Do you like bots?", reply_markup=keyboard
    )


@router.message(Form.likes_bots, F.text.casefold() == "no")
async def dislikes(message: Message, state: FSMContext) -> None:
    data = await state.get_data()
    await state.clear()
    await message.answer(
        f"Not bad not terrible, {data['name']}.", reply_markup=ReplyKeyboardRemove()
    )


@router.message(Form.likes_bots, F.text.casefold() == "yes")
async def likes(message: Message, state: FSMContext) -> None:
    await state.set_state(Form.language)
    await message.reply(
        "Cool! Which language do you write them in?", reply_markup=ReplyKeyboardRemove()
    )


@router.message(Form.likes_bots)
async def unknown(message: Message) -> None:
    await message.reply("I don't understand you :(")


@router.message(Form.language)
async def language(message: Message, state: FSMContext) -> None:
    data = await state.update_data(language=message.text)
    await state.clear()
    await message.answer(
        f"{data['name']} writes bots in {data['language']}; state is {await state.get_state()}"
    )


dp = Dispatcher(storage=MemoryStorage())
dp.include_router(router)

UPDATES = [
    {"message": {"text": "/cancel"}},
    {"message": {"text": "/start"}},
    {"message": {"text": "Ada"}},
    {"message": {"text": "maybe"}},
    {"message": {"text": "YES"}},
    {"message": {"text": "Python"}},
    {"message": {"text": "/start"}},
    {"message": {"text": "Bob"}},
    {"message": {"text": "Cancel"}},
    {"message": {"text": "/start", "chat": {"id": 2}, "from": {"id": 2}}},
    {"message": {"text": "Cy", "chat": {"id": 2}, "from": {"id": 2}}},
    {"message": {"text": "no", "chat": {"id": 2}, "from": {"id": 2}}},
]
