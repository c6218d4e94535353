"""``tgfast.testing.updates``: the builders make updates Telegram could send, which the
decoder takes whole and the dispatcher routes as it routes served ones."""

from __future__ import annotations

from types import ModuleType

import orjson
import pytest

from tgfast import Bot
from tgfast.dispatcher import Dispatcher
from tgfast.filters import Command, CommandObject, F
from tgfast.testing import FakeTelegram, updates
from tgfast.types import CallbackQuery, Message, Update


def test_a_message_in_a_private_chat_and_in_a_group(decoder: ModuleType) -> None:
    private = decoder.decode_update(
        updates.encoded(updates.update(message=updates.message("hi", chat_id=5)))
    )
    assert isinstance(private, Update) and isinstance(private.message, Message)
    assert (private.message.text, private.message.chat.type, private.message.chat.id) == (
        "hi",
        "private",
        5,
    )
    assert private.message.from_user is not None and private.message.from_user.id == 5
    group = decoder.decode_update(
        updates.encoded(updates.update(message=updates.message("x", chat_id=-100, user_id=7)))
    )
    assert (group.message.chat.type, group.message.chat.title, group.message.from_user.id) == (
        "supergroup",
        "Group",
        7,
    )


@pytest.mark.parametrize(
    ("text", "length"),
    [("/start", 6), ("/start payload", 6), ("/menu@tgfast_test_bot x", 21), ("hi /start", 0)],
)
def test_a_command_gets_its_entity(text: str, length: int) -> None:
    message = updates.message(text)
    if length:
        assert message["entities"] == [{"type": "bot_command", "offset": 0, "length": length}]
    else:
        assert "entities" not in message
    # entities given by the caller are kept as they are
    assert updates.message("/x", entities=[])["entities"] == []


def test_a_callback_query_under_a_bot_message(decoder: ModuleType) -> None:
    body = updates.update(callback_query=updates.callback_query("yes", chat_id=9, message_id=4))
    value = decoder.decode_update(orjson.dumps(body))
    query = value.callback_query
    assert isinstance(query, CallbackQuery)
    assert (query.data, query.from_user.id, query.message.message_id) == ("yes", 9, 4)
    assert query.message.from_user.is_bot


def test_update_ids_increase_and_can_be_given() -> None:
    first, second = (updates.update(message=updates.message("a")) for _ in range(2))
    assert second["update_id"] > first["update_id"]
    assert updates.update(update_id=77, message=updates.message("a"))["update_id"] == 77
    with pytest.raises(TypeError, match="exactly one event"):
        updates.update(message=updates.message("a"), edited_message=updates.message("b"))
    with pytest.raises(TypeError, match="none"):
        updates.update()


async def test_the_dispatcher_routes_them(fake: FakeTelegram, bot: Bot) -> None:
    dp = Dispatcher()
    seen: list[str] = []

    @dp.message(Command("start"))
    async def start(message: Message, command: CommandObject) -> None:
        seen.append(f"start {command.args}")

    @dp.callback_query(F.data == "yes")
    async def yes(query: CallbackQuery) -> None:
        seen.append("yes")

    await dp.feed_update(bot, updates.decoded(updates.update(message=updates.message("/start go"))))
    await dp.feed_update(
        bot, updates.decoded(updates.update(callback_query=updates.callback_query("yes")))
    )
    assert seen == ["start go", "yes"]


async def test_the_fake_delivers_them(fake: FakeTelegram, bot: Bot) -> None:
    stored = fake.add_update(updates.update(message=updates.message("hello", chat_id=3)))
    (received,) = await bot.get_updates(timeout=0)
    assert received.update_id == stored["update_id"]
    assert received.message.text == "hello"
