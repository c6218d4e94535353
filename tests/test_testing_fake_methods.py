"""FakeTelegram as a real client sees it: every method of the spec, called through
aiogram's own ``Bot`` and through tgfast's, gets an answer the client decodes; the
stateful answers read back what was set."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from server_support import make_bot

from tgfast import Bot
from tgfast.methods import METHOD_CLASSES, METHODS
from tgfast.testing import FakeTelegram
from tgfast.testing._answers import CANNED
from tgfast.testing._samples import sample

GROUP = -1001
USER = 7
KEYBOARD = {"inline_keyboard": [[{"text": "a", "callback_data": "b"}]]}

# parameters whose generic sample the fake (like Telegram) would refuse
BY_NAME: dict[str, Any] = {
    "chat_id": GROUP,
    "from_chat_id": GROUP,
    "user_id": USER,
    "receiver_user_id": USER,
    "text": "hi",
    "options": [{"text": "a"}, {"text": "b"}],
    "prices": [{"label": "x", "amount": 1}],
    "commands": [{"command": "start", "description": "Start"}],
    "url": "https://example.com/hook",
}
BY_METHOD: dict[str, dict[str, Any]] = {
    "sendMediaGroup": {
        "media": [{"type": "photo", "media": "p1"}, {"type": "photo", "media": "p2"}]
    },
    "editMessageMedia": {"media": {"type": "photo", "media": "p3"}},
    "editMessageText": {"text": "edited"},
    "editMessageCaption": {"caption": "new caption"},
    "editMessageReplyMarkup": {"reply_markup": KEYBOARD},
    "editEphemeralMessageMedia": {"media": {"type": "photo", "media": "p3"}},
    "editEphemeralMessageText": {"text": "edited"},
    "editEphemeralMessageCaption": {"caption": "new caption"},
    "editEphemeralMessageReplyMarkup": {"reply_markup": KEYBOARD},
}
# what the message the method works on must be
SOURCE = {
    "stopPoll": "poll",
    "editMessageCaption": "photo",
    "editMessageMedia": "photo",
    "editEphemeralMessageCaption": "photo",
    "editEphemeralMessageMedia": "photo",
}


async def prepare(fake: FakeTelegram, bot: Bot, name: str) -> dict[str, Any]:
    """The parameters of one call of ``name``: required ones, plus the message ones."""
    desc = METHODS[name]
    kind = SOURCE.get(name, "text")
    # the ephemeral methods work on an ephemeral message: one sent to USER in GROUP
    ephemeral = {"receiver_user_id": USER} if "Ephemeral" in name else None
    if kind == "photo" and ephemeral:
        sent = await bot.send_photo(GROUP, "p0", ephemeral_message_parameters=ephemeral)  # type: ignore[arg-type]
    elif ephemeral:
        sent = await bot.send_message(GROUP, "source", ephemeral_message_parameters=ephemeral)  # type: ignore[arg-type]
    elif kind == "poll":
        sent = await bot.send_poll(GROUP, "q?", [{"text": "a"}, {"text": "b"}])  # type: ignore[list-item]
    elif kind == "photo":
        sent = await bot.send_photo(GROUP, "p0")
    else:
        sent = await bot.send_message(GROUP, "source")
    params: dict[str, Any] = {}
    for p in desc.params:
        if p.name in ("chat_id", "message_id", "from_chat_id", "message_ids") or p.required:
            if p.name == "message_id":
                params[p.name] = sent.message_id
            elif p.name == "ephemeral_message_id":
                params[p.name] = sent.ephemeral_message_id
            elif p.name == "message_ids":
                params[p.name] = [sent.message_id]
            elif p.name == "file_id":
                params[p.name] = fake.add_file(b"data")["file_id"]
            elif p.name in BY_NAME:
                params[p.name] = BY_NAME[p.name]
            elif p.type == "InputFile" or "InputFile" in p.type.split("|"):
                params[p.name] = "some-file-id"
            elif p.type.startswith("["):
                params[p.name] = [sample(p.type[1:-1])]
            elif p.type in ("bool", "true"):
                params[p.name] = True
            else:
                params[p.name] = sample(p.type, key=p.name)
    params.update(BY_METHOD.get(name, {}))
    if name in ("editChatInviteLink", "revokeChatInviteLink"):
        params["invite_link"] = (await bot.create_chat_invite_link(GROUP)).invite_link
    return params


@pytest.fixture
async def helper(fake: FakeTelegram) -> AsyncIterator[Bot]:
    """A tgfast bot that sets the scene (the message a method works on)."""
    async with make_bot(fake) as bot:
        yield bot


def camel(name: str) -> str:
    return name[0].upper() + name[1:]


async def test_every_method_through_aiogram_bot_decodes(fake: FakeTelegram, helper: Bot) -> None:
    import aiogram
    import aiogram.methods
    from aiogram.client.session.aiohttp import AiohttpSession
    from aiogram.client.telegram import TelegramAPIServer

    session = AiohttpSession(api=TelegramAPIServer.from_base(fake.url))
    bot = aiogram.Bot(fake.token, session=session)
    failures: dict[str, str] = {}
    try:
        for name in sorted(METHODS):
            if name in ("close", "logOut"):
                continue  # answered, but they would end a real bot's session
            params = await prepare(fake, helper, name)
            method = getattr(aiogram.methods, camel(name)).model_construct(**params)
            try:
                await bot(method)
            except Exception as exc:  # noqa: BLE001 - collected, reported together
                failures[name] = f"{type(exc).__name__}: {exc}"
    finally:
        await session.close()
    assert failures == {}, "\n".join(f"{k}: {v}" for k, v in failures.items())


async def test_every_method_through_tgfast_bot_decodes(fake: FakeTelegram, helper: Bot) -> None:
    failures: dict[str, str] = {}
    for name in sorted(METHODS):
        params = await prepare(fake, helper, name)
        try:
            await helper(METHOD_CLASSES[name](**params))
        except Exception as exc:  # noqa: BLE001 - collected, reported together
            failures[name] = f"{type(exc).__name__}: {exc}"
    assert failures == {}, "\n".join(f"{k}: {v}" for k, v in failures.items())


def test_the_canned_methods_are_spec_methods() -> None:
    assert set(CANNED) <= set(METHODS)


# -- stateful answers -----------------------------------------------------------------


async def test_commands_are_remembered_per_scope_and_language(bot: Bot) -> None:
    from tgfast.types import BotCommand, BotCommandScopeAllGroupChats

    start = BotCommand(command="start", description="Start")
    assert await bot.get_my_commands() == []
    await bot.set_my_commands([start])
    await bot.set_my_commands([BotCommand(command="help", description="Hilfe")], language_code="de")
    await bot.set_my_commands(
        [BotCommand(command="admin", description="Admin")], scope=BotCommandScopeAllGroupChats()
    )
    assert await bot.get_my_commands() == [start]
    assert [c.command for c in await bot.get_my_commands(language_code="de")] == ["help"]
    groups = await bot.get_my_commands(scope=BotCommandScopeAllGroupChats())
    assert [c.command for c in groups] == ["admin"]
    await bot.delete_my_commands(language_code="de")
    assert await bot.get_my_commands(language_code="de") == []
    assert await bot.get_my_commands() == [start]


async def test_chat_members_follow_bans_and_promotions(bot: Bot) -> None:
    assert (await bot.get_chat_member(GROUP, USER)).status == "member"
    await bot.ban_chat_member(GROUP, USER)
    assert (await bot.get_chat_member(GROUP, USER)).status == "kicked"
    await bot.unban_chat_member(GROUP, USER)
    assert (await bot.get_chat_member(GROUP, USER)).status == "left"
    await bot.promote_chat_member(GROUP, USER, can_pin_messages=True)
    admin = await bot.get_chat_member(GROUP, USER)
    assert admin.status == "administrator" and admin.can_pin_messages is True  # type: ignore[union-attr]
    assert [m.user.id for m in await bot.get_chat_administrators(GROUP)] == [USER]
    me = await bot.get_chat_member(GROUP, bot.id)
    assert me.status == "administrator" and me.user.id == bot.id
    chat = await bot.get_chat(GROUP)
    assert chat.id == GROUP and chat.type == "supergroup"


async def test_stop_poll_closes_the_poll_the_bot_sent(bot: Bot) -> None:
    from tgfast.errors import TelegramBadRequest
    from tgfast.types import InputPollOption

    sent = await bot.send_poll(
        GROUP, "Lunch?", [InputPollOption(text="yes"), InputPollOption(text="no")]
    )
    assert sent.poll is not None and not sent.poll.is_closed
    poll = await bot.stop_poll(GROUP, sent.message_id)
    assert poll.is_closed and poll.question == "Lunch?"
    with pytest.raises(TelegramBadRequest, match="already been closed"):
        await bot.stop_poll(GROUP, sent.message_id)
    text = await bot.send_message(GROUP, "not a poll")
    with pytest.raises(TelegramBadRequest, match="poll to stop not found"):
        await bot.stop_poll(GROUP, text.message_id)


async def test_invite_links_are_kept(bot: Bot) -> None:
    link = await bot.create_chat_invite_link(GROUP, name="friends", member_limit=5)
    assert link.invite_link.startswith("https://t.me/+") and link.name == "friends"
    edited = await bot.edit_chat_invite_link(GROUP, link.invite_link, name="family")
    assert edited.name == "family" and edited.member_limit == 5
    assert (await bot.revoke_chat_invite_link(GROUP, link.invite_link)).is_revoked
    other = await bot.create_chat_invite_link(GROUP)
    assert other.invite_link != link.invite_link
    assert (await bot.get_user_profile_photos(USER)).total_count == 0
