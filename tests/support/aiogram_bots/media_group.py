"""aiogram's media group builder: an album with a caption on its first item, sent two
ways (``bot.send_media_group`` and the ``answer_media_group`` shortcut)."""

from aiogram import Bot, Dispatcher, F
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.enums import InputMediaType
from aiogram.filters import Command
from aiogram.types import InputMediaPhoto, Message, MessageEntity
from aiogram.utils.media_group import MediaGroupBuilder

dp = Dispatcher()


def make_bot(api_url: str) -> Bot:
    session = AiohttpSession(api=TelegramAPIServer.from_base(api_url))
    return Bot("42:TEST", session=session)


@dp.message(Command("album"))
async def album(message: Message, bot: Bot) -> None:
    builder = MediaGroupBuilder(caption="Holidays")
    builder.add_photo(media="https://example.com/1.jpg", caption="ignored: the album's wins")
    builder.add(type=InputMediaType.PHOTO, media="https://example.com/2.jpg", has_spoiler=True)
    builder.add_video(media="https://example.com/3.mp4", width=640, height=480, duration=3)
    await bot.send_media_group(chat_id=message.chat.id, media=builder.build())


@dp.message(Command("docs"))
async def docs(message: Message) -> None:
    bold = [MessageEntity(type="bold", offset=0, length=5)]
    builder = MediaGroupBuilder(
        [InputMediaPhoto(media="P1")], caption="Files", caption_entities=bold
    )
    builder.add_photo(media="P2", parse_mode="HTML", caption="<i>two</i>")
    await message.answer_media_group(builder.build())


@dp.message(F.text == "too many")
async def too_many(message: Message) -> None:
    builder = MediaGroupBuilder()
    try:
        for n in range(11):
            builder.add_document(media=f"D{n}")
    except ValueError:
        await message.answer(f"refused at item {len(builder.build()) + 1}")


UPDATES = [
    {"message": {"text": "/album"}},
    {"message": {"text": "/docs"}},
    {"message": {"text": "too many"}},
]
