"""A bot in three languages, as aiogram's i18n docs write one: gettext ``_``, a lazy
``__`` in a magic filter, plural forms, the locale kept in the FSM and changed by the
user, a translated errors handler."""

from aiogram import Bot, Dispatcher, F, html
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.fsm.context import FSMContext
from aiogram.fsm.storage.memory import MemoryStorage
from aiogram.types import ErrorEvent, KeyboardButton, Message, ReplyKeyboardMarkup
from aiogram.utils.i18n import FSMI18nMiddleware, I18n, ngettext
from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import lazy_gettext as __
from i18n_catalogues import compiled_locales  # the test catalogues, compiled (not aiogram)

i18n = I18n(path=compiled_locales(), default_locale="en", domain="messages")
i18n_middleware = FSMI18nMiddleware(i18n)

dp = Dispatcher(storage=MemoryStorage())
i18n_middleware.setup(dp)


def make_bot(api_url: str) -> Bot:
    return Bot("42:TEST", session=AiohttpSession(api=TelegramAPIServer.from_base(api_url)))


@dp.message(CommandStart())
async def start(message: Message) -> None:
    assert message.from_user is not None
    keyboard = ReplyKeyboardMarkup(keyboard=[[KeyboardButton(text=_("Menu"))]])
    await message.answer(
        _("Hello, {name}!").format(name=html.quote(message.from_user.first_name)),
        reply_markup=keyboard,
    )


@dp.message(F.text == __("Menu"))
async def menu(message: Message) -> None:
    await message.answer(_("You opened the menu."))


@dp.message(Command("apples"))
async def apples(message: Message, command: CommandObject) -> None:
    n = int(command.args or "1")
    await message.answer(ngettext("{n} apple", "{n} apples", n).format(n=n))


@dp.message(Command("lang"))
async def lang(message: Message, command: CommandObject, state: FSMContext) -> None:
    locale = command.args or i18n.default_locale
    await i18n_middleware.set_locale(state, locale)
    await message.answer(_("Language: {locale}").format(locale=i18n.current_locale))


@dp.message(Command("fail"))
async def fail(message: Message) -> None:
    raise ValueError("boom")


@dp.error()
async def on_error(event: ErrorEvent) -> None:
    assert event.update.message is not None
    await event.update.message.answer(_("Something went wrong."))


UKRAINIAN = {"from": {"language_code": "uk"}}
BRAZILIAN = {"id": 2, "language_code": "pt-br"}
GERMAN = {"id": 3, "language_code": "de"}
UPDATES = [
    {"message": {"text": "/start", **UKRAINIAN}},
    {"message": {"text": "Меню", **UKRAINIAN}},
    {"message": {"text": "Menu", **UKRAINIAN}},  # the English text is not the menu in uk
    {"message": {"text": "/apples 1", **UKRAINIAN}},
    {"message": {"text": "/apples 3", **UKRAINIAN}},
    {"message": {"text": "/apples 11", **UKRAINIAN}},
    {"message": {"text": "/start", "chat": {"id": 2}, "from": BRAZILIAN}},
    {"message": {"text": "Cardápio", "chat": {"id": 2}, "from": BRAZILIAN}},
    {"message": {"text": "/apples 1", "chat": {"id": 2}, "from": BRAZILIAN}},
    {"message": {"text": "/apples 2", "chat": {"id": 2}, "from": BRAZILIAN}},
    {"message": {"text": "/start", "chat": {"id": 3}, "from": GERMAN}},  # no catalogue: en
    {"message": {"text": "Menu", "chat": {"id": 3}, "from": GERMAN}},
    {"message": {"text": "/apples 2", "chat": {"id": 3}, "from": GERMAN}},
    {"message": {"text": "/lang uk", "chat": {"id": 3}, "from": GERMAN}},  # kept in the FSM
    {"message": {"text": "Меню", "chat": {"id": 3}, "from": GERMAN}},
    {"message": {"text": "/fail", "chat": {"id": 3}, "from": GERMAN}},
    {"message": {"text": "/lang pt_BR", **UKRAINIAN}},
    {"message": {"text": "/start", **UKRAINIAN}},
    {"message": {"text": "/fail", **UKRAINIAN}},
]
