"""FSM form bot: asks a name, then an age, checks it, and sums it up.

    tgfast webhook examples/form_bot.py:dp --fake

Each user's place in the form is kept by the dispatcher's storage (``MemoryStorage``
here; pass ``Dispatcher(storage=RedisStorage.from_url(...))`` to share it between
workers). ``/cancel`` leaves the form from any step.
"""

from __future__ import annotations

from tgfast import Dispatcher, F
from tgfast.filters import Command
from tgfast.fsm import FSMContext, State, StateFilter, StatesGroup
from tgfast.types import Message

dp = Dispatcher()


class Form(StatesGroup):
    name = State()
    age = State()


@dp.message(Command("form"))
async def start(message: Message, state: FSMContext) -> None:
    await state.set_state(Form.name)
    await message.answer("What is your name?")


@dp.message(Command("cancel"), ~StateFilter(None))
async def cancel(message: Message, state: FSMContext) -> None:
    await state.clear()
    await message.answer("Cancelled.")


@dp.message(Form.name, F.text)
async def got_name(message: Message, state: FSMContext) -> None:
    await state.update_data(name=message.text)
    await state.set_state(Form.age)
    await message.answer(f"Nice to meet you, {message.text}. How old are you?")


@dp.message(Form.age, F.text.regexp(r"^\d{1,3}$"))
async def got_age(message: Message, state: FSMContext) -> None:
    data = await state.update_data(age=int(message.text or 0))
    await state.clear()
    await message.answer(f"{data['name']}, {data['age']}: saved.")


@dp.message(Form.age)
async def bad_age(message: Message) -> None:
    await message.answer("Your age as a number, please.")
