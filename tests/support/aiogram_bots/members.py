"""Welcome and farewell by chat member transitions; the bot's own membership."""

from aiogram import Bot, Dispatcher, F
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.enums import ChatType, ContentType
from aiogram.filters import IS_MEMBER, IS_NOT_MEMBER, JOIN_TRANSITION, ChatMemberUpdatedFilter
from aiogram.types import ChatMemberUpdated, Message

dp = Dispatcher()


def make_bot(api_url: str) -> Bot:
    return Bot("42:TEST", session=AiohttpSession(api=TelegramAPIServer.from_base(api_url)))


@dp.my_chat_member(
    ChatMemberUpdatedFilter(JOIN_TRANSITION), F.chat.type.in_({ChatType.GROUP, ChatType.SUPERGROUP})
)
async def added(event: ChatMemberUpdated, bot: Bot) -> None:
    await bot.send_message(event.chat.id, f"Thanks for adding me, {event.from_user.full_name}")


@dp.chat_member(ChatMemberUpdatedFilter(IS_NOT_MEMBER >> IS_MEMBER))
async def joined(event: ChatMemberUpdated) -> None:
    await event.answer(f"Welcome, {event.new_chat_member.user.mention_html()}", parse_mode="HTML")


@dp.chat_member(ChatMemberUpdatedFilter(IS_MEMBER >> IS_NOT_MEMBER))
async def left(event: ChatMemberUpdated) -> None:
    await event.answer(f"Bye, {event.new_chat_member.user.first_name}")


@dp.message(F.content_type.in_({ContentType.PHOTO, ContentType.STICKER}))
async def media(message: Message) -> None:
    await message.reply(f"a {message.content_type}")


def member(status: str, user_id: int = 5, **extra: object) -> dict[str, object]:
    return {
        "status": status,
        "user": {"id": user_id, "is_bot": False, "first_name": f"U{user_id}"},
        **extra,
    }


GROUP = {"id": -100, "type": "supergroup", "title": "G"}
UPDATES = [
    {
        "my_chat_member": {
            "chat": GROUP,
            "old_chat_member": member("left", 42),
            "new_chat_member": member("member", 42),
        }
    },
    {
        "chat_member": {
            "chat": GROUP,
            "old_chat_member": member("left"),
            "new_chat_member": member("member"),
        }
    },
    {
        "chat_member": {
            "chat": GROUP,
            "old_chat_member": member("kicked", until_date=0),
            "new_chat_member": member(
                "restricted",
                is_member=True,
                until_date=0,
                **dict.fromkeys(
                    (
                        "can_send_messages",
                        "can_send_audios",
                        "can_send_documents",
                        "can_send_photos",
                        "can_send_videos",
                        "can_send_video_notes",
                        "can_send_voice_notes",
                        "can_send_polls",
                        "can_send_other_messages",
                        "can_add_web_page_previews",
                        "can_change_info",
                        "can_invite_users",
                        "can_pin_messages",
                        "can_manage_topics",
                        "can_edit_tag",
                        "can_react_to_messages",
                    ),
                    True,
                ),
            ),
        }
    },
    {
        "chat_member": {
            "chat": GROUP,
            "old_chat_member": member("member"),
            "new_chat_member": member("left"),
        }
    },
    {
        "chat_member": {
            "chat": GROUP,
            "old_chat_member": member("member"),
            "new_chat_member": member(
                "administrator",
                can_be_edited=False,
                is_anonymous=False,
                can_manage_chat=True,
                can_delete_messages=True,
                can_manage_video_chats=True,
                can_restrict_members=True,
                can_promote_members=False,
                can_change_info=True,
                can_invite_users=True,
                can_post_stories=False,
                can_edit_stories=False,
                can_delete_stories=False,
                can_send_welcome_messages=False,
            ),
        }
    },
    {"message": {"photo": [{"file_id": "P", "file_unique_id": "p", "width": 1, "height": 1}]}},
    {"message": {"text": "just text"}},
]
