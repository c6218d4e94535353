"""CallbackAnswerMiddleware as aiogram documents it: answered after the handler by
default, before it with ``pre``, changed or disabled by the handler, still answered
when the handler fails."""

from aiogram import Bot, Dispatcher, F, flags
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import CallbackAnswerException
from aiogram.types import CallbackQuery, ErrorEvent
from aiogram.utils.callback_answer import CallbackAnswer, CallbackAnswerMiddleware

dp = Dispatcher()
dp.callback_query.middleware(CallbackAnswerMiddleware(text="Done", cache_time=5))


def make_bot(api_url: str) -> Bot:
    return Bot("42:TEST", session=AiohttpSession(api=TelegramAPIServer.from_base(api_url)))


@dp.callback_query(F.data == "default")
async def default(callback: CallbackQuery) -> None:
    assert callback.message is not None
    await callback.message.edit_text("edited")


@dp.callback_query(F.data == "pre")
@flags.callback_answer(pre=True, text="At once", show_alert=True)
async def pre(callback: CallbackQuery, callback_answer: CallbackAnswer) -> None:
    assert callback.message is not None
    await callback.message.edit_text(f"answered: {callback_answer.answered}")
    callback_answer.text = "too late"  # raises: the answer is sent


@dp.callback_query(F.data == "change")
async def change(callback: CallbackQuery, callback_answer: CallbackAnswer) -> None:
    callback_answer.text = "Changed"
    callback_answer.show_alert = True
    callback_answer.cache_time = None


@dp.callback_query(F.data == "self")
async def answers_itself(callback: CallbackQuery, callback_answer: CallbackAnswer) -> None:
    callback_answer.disable()
    await callback.answer("Mine", url="https://t.me/tgfast_test_bot?start=x")


@dp.callback_query(F.data == "silent")
@flags.callback_answer(disabled=True)
async def silent(callback: CallbackQuery) -> None:
    assert callback.message is not None
    await callback.message.delete()


@dp.callback_query(F.data == "fail")
async def fail(callback: CallbackQuery) -> None:
    raise RuntimeError("broken")


@dp.errors()
async def on_error(event: ErrorEvent, bot: Bot) -> bool:
    late = isinstance(event.exception, CallbackAnswerException)
    await bot.send_message(1, f"error: {type(event.exception).__name__}, late change: {late}")
    return True


UPDATES = [
    {"callback_query": {"data": "default"}},
    {"callback_query": {"data": "pre"}},
    {"callback_query": {"data": "change"}},
    {"callback_query": {"data": "self"}},
    {"callback_query": {"data": "silent"}},
    {"callback_query": {"data": "fail"}},
]
