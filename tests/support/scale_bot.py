"""The bot of the scale-out and supervisor tests: every answer names the worker.

- ``/form``, then a name, then an age: a three-step FSM conversation (its state is
  in the dispatcher's storage, Redis under ``--redis``);
- ``slow <seconds> <tag>``: sleeps, then answers (to have updates in flight);
- anything else: echoed.

Each answer ends with `` [worker W pid P]``, so a test sees which worker handled what.
"""

from __future__ import annotations

import asyncio
import os

from tgfast import Dispatcher, F
from tgfast.filters import Command
from tgfast.fsm import FSMContext, State, StatesGroup
from tgfast.types import Message

dp = Dispatcher()

WHO = f"[worker {os.environ.get('TGFAST_WORKER_ID', '-')} pid {os.getpid()}]"


class Form(StatesGroup):
    name = State()
    age = State()


@dp.message(Command("form"))
async def start(message: Message, state: FSMContext) -> None:
    await state.set_state(Form.name)
    await message.answer(f"name? {WHO}")


@dp.message(Form.name, F.text)
async def got_name(message: Message, state: FSMContext) -> None:
    await state.update_data(name=message.text)
    await state.set_state(Form.age)
    await message.answer(f"age? {WHO}")


@dp.message(Form.age, F.text)
async def got_age(message: Message, state: FSMContext) -> None:
    data = await state.get_data()
    await state.clear()
    await message.answer(f"{data['name']}, {message.text}: saved {WHO}")


@dp.message(F.text.startswith("slow "))
async def slow(message: Message) -> None:
    _, seconds, tag = (message.text or "").split(maxsplit=2)
    await asyncio.sleep(float(seconds))
    await message.answer(f"{tag} {WHO}")


@dp.message(F.text)
async def echo(message: Message) -> None:
    await message.answer(f"{message.text} {WHO}")
