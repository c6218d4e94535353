"""Scenes the aiogram way: a registry on the dispatcher, a menu scene for "no state"
(data and history reset on entering, its button pressed in any state), a two-step
form with leave/exit actions, retake, back through the history, a scene entered by
``as_handler`` with arguments, and a plain handler closing the active scene."""

from aiogram import Bot, Dispatcher, F, Router
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.filters import Command
from aiogram.fsm.context import FSMContext
from aiogram.fsm.scene import After, Scene, SceneRegistry, ScenesManager, on
from aiogram.types import CallbackQuery, Message

dp = Dispatcher()
router = Router(name="commands")


def make_bot(api_url: str) -> Bot:
    return Bot("42:TEST", session=AiohttpSession(api=TelegramAPIServer.from_base(api_url)))


class Menu(
    Scene, reset_data_on_enter=True, reset_history_on_enter=True, callback_query_without_state=True
):
    @on.message.enter()
    async def show(self, message: Message) -> None:
        await message.answer("menu: /form or /age")

    @on.message(Command("form"), after=After.goto("name"))
    async def form(self, message: Message) -> None:
        await message.answer("form starts")

    @on.callback_query(F.data == "form", after=After.goto("name"))
    async def form_button(self, query: CallbackQuery) -> None:
        await query.answer("form")

    @on.message()
    async def other(self, message: Message) -> None:
        await message.answer("menu again?")


class Name(Scene, state="name"):
    @on.message.enter()
    async def ask(self, message: Message, state: FSMContext) -> None:
        data = await state.get_data()
        await message.answer(f"name? (known: {sorted(data)})")

    @on.callback_query.enter()  # entered by a button press
    async def ask_after_press(self, query: CallbackQuery) -> None:
        await query.message.answer("name? (you pressed a button)")

    @on.message.leave()
    async def done(self, message: Message) -> None:
        await message.answer("name done")

    @on.message.exit()
    async def gone(self, message: Message) -> None:
        await message.answer("form cancelled")

    @on.message(F.text == "cancel", after=After.exit())
    async def cancel(self, message: Message) -> None:
        await message.answer("cancelling")

    @on.message(F.text)
    async def got(self, message: Message) -> None:
        await self.wizard.update_data(name=message.text)
        await self.wizard.goto(Age)


class Age(Scene, state="age"):
    @on.message.enter()
    async def ask(self, message: Message, tries: int = 0) -> None:
        await message.answer(f"age? (try {tries})")

    @on.message(F.text == "back")
    async def back(self, message: Message) -> None:
        await self.wizard.back()

    @on.message(F.text.isdigit())
    async def got(self, message: Message) -> None:
        data = await self.wizard.update_data({"age": int(message.text)})
        history = await self.wizard.manager.history.all()
        states = [record.state for record in history]
        await message.answer(f"{data['name']} is {data['age']} (history {states})")
        await self.wizard.exit()

    @on.message()
    async def wrong(self, message: Message) -> None:
        tries = await self.wizard.get_value("tries", 0) + 1
        await self.wizard.update_data(tries=tries)
        await self.wizard.retake(tries=tries)


router.message.register(Age.as_handler(tries=5), Command("age"))


@router.message(Command("where"))
async def where(message: Message, scenes: ScenesManager, state: FSMContext) -> None:
    before = await state.get_state()
    await scenes.close()
    await message.answer(f"closed {before}, now {await state.get_state()}")


dp.include_router(router)
SceneRegistry(dp).add(Menu, Name, Age)

UPDATES = [
    {"message": {"text": "hi"}},
    {"message": {"text": "/form"}},
    {"message": {"text": "Ada"}},
    {"message": {"text": "old"}},
    {"message": {"text": "back"}},
    {"message": {"text": "back"}},
    {"message": {"text": "Bob"}},
    {"message": {"text": "42"}},
    {"callback_query": {"data": "form"}},
    {"message": {"text": "cancel"}},
    {"message": {"text": "/age"}},
    {"message": {"text": "young"}},
    {"callback_query": {"data": "form"}},
    {"message": {"text": "/where"}},
    {"message": {"text": "/where"}},
]
