"""aiogram's formatting in answers, captions and polls: text and entities, no parse mode,
even with HTML as the bot's default; markup from the same trees; a received message's
entities turned back into nodes."""

from aiogram import Bot, Dispatcher, F
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.enums import ParseMode
from aiogram.filters import Command, CommandStart
from aiogram.types import Message
from aiogram.utils.formatting import (
    Bold,
    BotCommand,
    Code,
    HashTag,
    Italic,
    Pre,
    Spoiler,
    Strikethrough,
    Text,
    TextLink,
    TextMention,
    Underline,
    as_key_value,
    as_line,
    as_list,
    as_marked_section,
    as_numbered_section,
    as_section,
)

dp = Dispatcher()


def make_bot(api_url: str) -> Bot:
    session = AiohttpSession(api=TelegramAPIServer.from_base(api_url))
    return Bot("42:TEST", session=session, default=DefaultBotProperties(parse_mode=ParseMode.HTML))


@dp.message(CommandStart())
async def start(message: Message) -> None:
    assert message.from_user is not None
    content = as_list(
        as_line("Hello, ", TextMention(message.from_user.full_name, user=message.from_user), "!"),
        as_marked_section(Bold("Commands 👇"), BotCommand("/photo"), BotCommand("/poll")),
        as_numbered_section(Underline("Steps"), "open <menu>", Italic("pick"), start=0),
        as_key_value("Tag", HashTag("tgfast")),
        sep="\n\n",
    )
    await message.answer(**content.as_kwargs())


@dp.message(Command("photo"))
async def photo(message: Message) -> None:
    caption = Text("A ", Spoiler("cat 🐈"), " on ", TextLink("a mat", url="https://example.com/"))
    await message.answer_photo("PHOTO_ID", **caption.as_caption_kwargs())


@dp.message(Command("poll"))
async def poll(message: Message) -> None:
    question = Text("Best ", Bold("emoji"), "?")
    await message.answer_poll(**question.as_poll_question_kwargs(), options=["👍", "🔥"])


@dp.message(Command("markup"))
async def markup(message: Message) -> None:
    content = as_section(Bold("Code <&>"), Code("x = 1"), " ", Strikethrough("old"), "\n")
    await message.answer(content.as_html())  # the bot's default parse mode: HTML
    await message.answer(content.as_markdown(), parse_mode=ParseMode.MARKDOWN_V2)
    await message.answer(**Pre("print(1)").as_kwargs(replace_parse_mode=False))


@dp.message(F.text)
async def echo(message: Message) -> None:
    assert message.text is not None
    received = Text.from_entities(message.text, message.entities or [])
    reply = Text(Italic("You said: "), received)
    await message.reply(**reply.as_kwargs())
    await message.answer(**reply[3:14].as_kwargs())


UPDATES = [
    {"message": {"text": "/start", "from": {"first_name": "Ada <3", "last_name": "L"}}},
    {"message": {"text": "/photo"}},
    {"message": {"text": "/poll"}},
    {"message": {"text": "/markup"}},
    {
        "message": {
            "text": "plain bold italic link",
            "entities": [
                {"type": "bold", "offset": 6, "length": 11},
                {"type": "italic", "offset": 11, "length": 6},
                {"type": "text_link", "offset": 18, "length": 4, "url": "https://x.org/"},
            ],
        }
    },
]
