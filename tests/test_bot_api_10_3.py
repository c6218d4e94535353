"""What Bot API 10.2 and 10.3 added, end to end: ephemeral messages sent, replied to,
edited and deleted on FakeTelegram through the shortcuts; the new update kinds built,
decoded in both builds and routed; the parameters Telegram deprecated still sent."""

from __future__ import annotations

from types import ModuleType

import orjson
import pytest

from tgfast import Bot, DecodeError
from tgfast.dispatcher import Dispatcher
from tgfast.enums import BotSubscriptionUpdatedState, ContentType, TopicIconColor, UpdateType
from tgfast.errors import TgfastError
from tgfast.exceptions import TelegramBadRequest
from tgfast.testing import FakeTelegram, updates
from tgfast.types import (
    BotSubscriptionUpdated,
    EphemeralMessageParameters,
    InputMediaVoiceNote,
    InputRichBlockParagraph,
    InputRichMessage,
    InputRichMessageMedia,
    Message,
    MessageGenerationStopped,
)

GROUP = -1001
ANN = 7


async def test_an_ephemeral_message_lives_apart_from_the_chat_messages(
    fake: FakeTelegram, bot: Bot
) -> None:
    normal = await bot.send_message(GROUP, "everyone")
    sent = await bot.send_message(
        GROUP,
        "only Ann",
        ephemeral_message_parameters=EphemeralMessageParameters(receiver_user_id=ANN),
    )
    assert sent.message_id == 0 and sent.ephemeral_message_id == 1
    assert sent.receiver_user is not None and sent.receiver_user.id == ANN
    again = await bot.send_message(
        GROUP, "again", ephemeral_message_parameters={"receiver_user_id": ANN}
    )  # type: ignore[arg-type]
    assert again.ephemeral_message_id == 2
    # the chat's own numbering goes on regardless
    assert (await bot.send_message(GROUP, "next")).message_id == normal.message_id + 1

    assert await sent.edit_ephemeral_text(text="edited") is True
    assert [m["text"] for m in fake.ephemeral_messages(GROUP)] == ["edited", "again"]
    assert fake.sent_messages(GROUP)[1]["text"] == "only Ann"  # as it was posted
    with pytest.raises(TelegramBadRequest, match="message is not modified"):
        await sent.edit_ephemeral_text(text="edited")
    assert await sent.delete_ephemeral() is True
    with pytest.raises(TelegramBadRequest, match="message to edit not found"):
        await sent.edit_ephemeral_text(text="gone")
    # another user's id does not reach Ann's message
    with pytest.raises(TelegramBadRequest, match="message to delete not found"):
        await bot.delete_ephemeral_message(GROUP, ANN + 1, 2)
    assert [m["ephemeral_message_id"] for m in fake.ephemeral_messages(GROUP)] == [2]
    assert fake.ephemeral_messages(ANN) == []


async def test_ephemeral_only_in_groups_and_the_deprecated_receiver(
    fake: FakeTelegram, bot: Bot
) -> None:
    with pytest.raises(TelegramBadRequest, match="only to groups"):
        await bot.send_message(
            ANN, "x", ephemeral_message_parameters=EphemeralMessageParameters(receiver_user_id=ANN)
        )
    # the top-level receiver_user_id Telegram still accepts (aiogram still sends it)
    sent = await bot.send_message(GROUP, "old style", receiver_user_id=ANN)
    assert sent.ephemeral_message_id == 1 and sent.receiver_user.id == ANN  # type: ignore[union-attr]
    call = fake.calls_to("sendMessage")[-1]
    assert call.params["receiver_user_id"] == ANN
    await bot.send_photo(GROUP, "p", callback_query_id="cq-1", receiver_user_id=ANN)
    assert fake.calls_to("sendPhoto")[-1].params["callback_query_id"] == "cq-1"


async def test_a_reply_to_an_ephemeral_message_is_ephemeral(fake: FakeTelegram, bot: Bot) -> None:
    incoming = updates.decoded(
        updates.update(message=updates.ephemeral_message("hi bot", chat_id=GROUP, receiver_id=ANN))
    )
    message = incoming.message
    assert isinstance(message, Message)
    params = message.as_reply_parameters()
    assert params.ephemeral_message_id == 1 and params.message_id is None and params.chat_id is None
    method = message.reply("hi Ann")
    assert method.reply_parameters is not None
    assert method.reply_parameters.ephemeral_message_id == 1
    assert method.ephemeral_message_parameters == EphemeralMessageParameters(receiver_user_id=ANN)
    # a message the bot never saw as ephemeral cannot be answered as one
    with pytest.raises(TelegramBadRequest, match="replied not found"):
        await bot(method)
    plain = updates.decoded(updates.update(message=updates.message("x", chat_id=GROUP)))
    assert plain.message.as_ephemeral_message_parameters() is None  # type: ignore[union-attr]
    with pytest.raises(TgfastError, match="no receiver_user: edit_ephemeral_text"):
        plain.message.edit_ephemeral_text(text="y")  # type: ignore[union-attr]


def test_the_new_update_kinds_decode(decoder: ModuleType) -> None:
    sub = decoder.decode_update(
        updates.encoded(updates.update(subscription=updates.subscription("failed", user_id=ANN)))
    )
    assert isinstance(sub.subscription, BotSubscriptionUpdated)
    assert sub.subscription.state == BotSubscriptionUpdatedState.FAILED
    assert sub.subscription.user.id == ANN
    stop = decoder.decode_update(
        updates.encoded(
            updates.update(
                stopped_message_generation=updates.stopped_message_generation(draft_id=4)
            )
        )
    )
    assert isinstance(stop.stopped_message_generation, MessageGenerationStopped)
    assert stop.stopped_message_generation.draft_id == 4
    assert {"subscription", "stopped_message_generation"} <= {m.value for m in UpdateType}
    assert {"community_chat_added", "community_chat_joined"} <= {m.value for m in ContentType}


async def test_the_new_update_kinds_route(fake: FakeTelegram, bot: Bot) -> None:
    dp = Dispatcher()
    seen: list[object] = []

    @dp.subscription()
    async def on_sub(event: BotSubscriptionUpdated) -> None:
        seen.append(event.state)

    @dp.stopped_message_generation()
    async def on_stop(event: MessageGenerationStopped) -> None:
        seen.append(event.draft_id)

    await dp.feed_update(bot, updates.decoded(updates.update(subscription=updates.subscription())))
    await dp.feed_update(
        bot,
        updates.decoded(
            updates.update(
                stopped_message_generation=updates.stopped_message_generation(draft_id=9)
            )
        ),
    )
    assert seen == ["canceled", 9]


def test_input_rich_media_decode_by_their_type(decoder: ModuleType) -> None:
    """``InputRichMessageMedia.media`` takes six InputMedia types: its union decodes each
    by its ``type``, as aiogram's InputRichMessageMediaUnion does."""
    data = {
        "blocks": [{"type": "paragraph", "text": "hello"}],
        "media": [{"id": "v", "media": {"type": "voice_note", "media": "file-1"}}],
    }
    value = decoder.decode(InputRichMessage, orjson.dumps(data))
    assert isinstance(value.blocks[0], InputRichBlockParagraph)  # type: ignore[index]
    media = value.media[0]  # type: ignore[index]
    assert isinstance(media, InputRichMessageMedia)
    assert isinstance(media.media, InputMediaVoiceNote) and media.media.media == "file-1"
    with pytest.raises(DecodeError, match=r"\$\.media: expected object, got int"):
        decoder.decode(InputRichMessageMedia, b'{"id": "v", "media": 5}')


def test_topic_icon_colour_is_an_int_enum() -> None:
    assert TopicIconColor.BLUE == 0x6FB9F0 and isinstance(TopicIconColor.RED, int)
