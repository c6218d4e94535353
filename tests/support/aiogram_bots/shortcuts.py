"""Startup hooks and many shortcuts: the calls a feature-rich bot makes."""

from aiogram import Bot, Dispatcher, F
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.enums import ChatAction
from aiogram.filters import Command, CommandObject
from aiogram.types import (
    BotCommand,
    BotCommandScopeAllPrivateChats,
    ChatPermissions,
    ForceReply,
    LinkPreviewOptions,
    Message,
    ReactionTypeEmoji,
    ReplyParameters,
)

dp = Dispatcher()


def make_bot(api_url: str) -> Bot:
    default = DefaultBotProperties(
        parse_mode="HTML", protect_content=True, link_preview_is_disabled=True
    )
    return Bot(
        "42:TEST", session=AiohttpSession(api=TelegramAPIServer.from_base(api_url)), default=default
    )


@dp.startup()
async def on_startup(bot: Bot) -> None:
    await bot.set_my_commands(
        [
            BotCommand(command="photo", description="a photo"),
            BotCommand(command="mute", description="mute"),
        ],
        scope=BotCommandScopeAllPrivateChats(),
    )


@dp.message(Command("photo"))
async def photo(message: Message, bot: Bot) -> None:
    await bot.send_chat_action(message.chat.id, ChatAction.UPLOAD_PHOTO)
    await message.answer_photo("PHOTO_ID", caption="<i>cat</i>", show_caption_above_media=True)
    await message.reply_document("DOC_ID", caption="doc")


@dp.message(Command("mute"))
async def mute(message: Message, command: CommandObject, bot: Bot) -> None:
    await message.react([ReactionTypeEmoji(emoji="👍")])
    await message.pin(disable_notification=True)
    await message.forward(chat_id=-100)
    await message.copy_to(
        -100, reply_parameters=ReplyParameters(message_id=3, allow_sending_without_reply=True)
    )
    await message.answer_dice(emoji="🎲")
    await message.answer("Reply please", reply_markup=ForceReply(input_field_placeholder="why?"))
    await message.answer(
        "see https://example.com", link_preview_options=LinkPreviewOptions(is_disabled=False)
    )
    await message.answer_poll("Q?", options=["a", "b"], is_anonymous=False, open_period=30)
    await bot.restrict_chat_member(
        message.chat.id,
        9,
        permissions=ChatPermissions(can_send_messages=False),
        until_date=1_900_000_000,
    )


@dp.message(F.text == "bye")
async def bye(message: Message) -> None:
    sent = await message.answer("deleting")
    await sent.delete()
    await message.answer(
        f"{sent.message_id > message.message_id} {sent.chat.id == message.chat.id}",
        protect_content=False,
    )


UPDATES = [
    {"message": {"text": "/photo"}},
    {"message": {"text": "/mute"}},
    {"message": {"text": "bye"}},
]
