"""``tgfast.utils.chat_action`` against FakeTelegram: the action is sent at once, repeated
while the block runs, never after it; the middleware picks it from the handler's flag.
Names and signatures are compared with aiogram's module. No test asserts a duration:
repetition is awaited by counting calls, with short intervals."""

from __future__ import annotations

import asyncio
import inspect
import logging

import aiogram.utils.chat_action as ag_chat_action
import pytest

from tgfast import Bot, Dispatcher, F, flags
from tgfast.testing import FakeTelegram
from tgfast.testing.updates import callback_query, message, update
from tgfast.utils.chat_action import ChatActionMiddleware, ChatActionSender

FACTORIES = sorted(
    name
    for name, value in vars(ag_chat_action.ChatActionSender).items()
    if isinstance(value, classmethod)
)


async def calls_reach(fake: FakeTelegram, count: int) -> None:
    """Until the fake has seen ``count`` sendChatAction calls (a hang fails by timeout)."""
    while len(fake.calls_to("sendChatAction")) < count:
        await asyncio.sleep(0.01)


def actions(fake: FakeTelegram) -> list[dict[str, object]]:
    return [call.params for call in fake.calls_to("sendChatAction")]


def test_same_names_and_signatures_as_aiogram() -> None:
    assert len(FACTORIES) == 11
    for name in ["__init__", *FACTORIES]:
        ours = inspect.signature(getattr(ChatActionSender, name))
        theirs = inspect.signature(getattr(ag_chat_action.ChatActionSender, name))
        assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == [
            (p.name, p.kind, p.default) for p in theirs.parameters.values()
        ], name
    assert ag_chat_action.DEFAULT_INTERVAL == 5.0


@pytest.mark.parametrize("name", FACTORIES)
async def test_each_factory_makes_its_action(bot: Bot, name: str) -> None:
    sender = getattr(ChatActionSender, name)(chat_id=7, bot=bot, message_thread_id=3)
    theirs = getattr(ag_chat_action.ChatActionSender, name)(chat_id=7, bot=None)
    assert sender.action == theirs.action == name
    assert (sender.chat_id, sender.message_thread_id, sender.bot) == (7, 3, bot)
    assert (sender.interval, sender.initial_sleep) == (5.0, 0.0)


async def test_repeats_while_the_block_runs_and_stops_after(fake: FakeTelegram, bot: Bot) -> None:
    sender = ChatActionSender.upload_photo(chat_id=5, bot=bot, interval=0.02)
    assert not sender.running
    async with sender:
        assert sender.running
        await calls_reach(fake, 3)
    assert not sender.running
    after_exit = len(actions(fake))
    await asyncio.sleep(0.2)  # ten intervals: a leftover task would have sent more
    assert len(actions(fake)) == after_exit
    assert actions(fake)[0] == {"chat_id": 5, "action": "upload_photo"}
    assert all(params == actions(fake)[0] for params in actions(fake))


async def test_an_error_in_the_block_stops_the_sender_and_propagates(
    fake: FakeTelegram, bot: Bot
) -> None:
    sender = ChatActionSender(bot=bot, chat_id=5, action="record_voice", interval=0.02)
    with pytest.raises(LookupError):
        async with sender:
            await calls_reach(fake, 2)
            raise LookupError
    count = len(actions(fake))
    await asyncio.sleep(0.2)
    assert len(actions(fake)) == count
    assert not sender.running


async def test_a_block_shorter_than_initial_sleep_sends_nothing(
    fake: FakeTelegram, bot: Bot
) -> None:
    async with ChatActionSender.typing(chat_id=5, bot=bot, initial_sleep=60):
        await asyncio.sleep(0)
    # leaving did not wait the 60 s (the test's timeout would fail it) and sent nothing
    await bot.get_me()  # a call after: the fake has answered everything before it
    assert actions(fake) == []


async def test_message_thread_id_is_sent(fake: FakeTelegram, bot: Bot) -> None:
    async with ChatActionSender.find_location(chat_id=-100, bot=bot, message_thread_id=9):
        await calls_reach(fake, 1)
    assert actions(fake) == [{"chat_id": -100, "action": "find_location", "message_thread_id": 9}]


async def test_a_failed_action_ends_repetition_not_the_block(
    fake: FakeTelegram, bot: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    fake.fail("sendChatAction", error_code=403, description="Forbidden: bot was blocked")
    with caplog.at_level(logging.WARNING, logger="tgfast.chat_action"):
        async with ChatActionSender.typing(chat_id=5, bot=bot, interval=0.01):
            await calls_reach(fake, 1)
            await asyncio.sleep(0.1)  # ten intervals: no repeat after the failure
            reached = len(actions(fake))
    assert reached == 1
    assert "no more repeats" in caplog.text


async def test_entering_twice_is_refused(fake: FakeTelegram, bot: Bot) -> None:
    sender = ChatActionSender.typing(chat_id=5, bot=bot, initial_sleep=60)
    async with sender:
        with pytest.raises(RuntimeError, match="already running"):
            await sender.__aenter__()
    async with sender:  # reusable once left
        assert sender.running


async def test_start_stop_and_wait_are_at_aiogram_names(fake: FakeTelegram, bot: Bot) -> None:
    """``_run``/``_stop`` are the block's start and end (tests written for aiogram patch
    them), ``_wait`` the pause that the block's end cuts short."""
    sender = ChatActionSender.typing(chat_id=5, bot=bot, initial_sleep=60)
    await sender._stop()  # not running: nothing to do
    await sender._run()
    assert sender.running
    with pytest.raises(RuntimeError, match="already running"):
        await sender._run()
    asyncio.get_running_loop().call_soon(sender._close_event.set)
    await asyncio.wait_for(sender._wait(60), 5)  # returns once closed, not after 60 s
    await sender._stop()
    assert not sender.running and actions(fake) == []


async def test_cancelling_the_block_cancels_the_sender(fake: FakeTelegram, bot: Bot) -> None:
    sender = ChatActionSender.typing(chat_id=5, bot=bot, interval=0.02)

    async def handler() -> None:
        async with sender:
            await asyncio.sleep(60)

    task = asyncio.create_task(handler())
    await calls_reach(fake, 2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    count = len(actions(fake))
    await asyncio.sleep(0.2)
    assert len(actions(fake)) == count
    assert not sender.running


async def test_middleware_reads_the_flag(fake: FakeTelegram, bot: Bot) -> None:
    dp = Dispatcher()
    dp.message.middleware(ChatActionMiddleware())
    dp.callback_query.middleware(ChatActionMiddleware())

    async def work() -> None:
        await calls_reach(fake, len(actions(fake)) + 1)

    @dp.message(F.text == "plain")
    async def plain(m: object) -> None:
        await work()

    @dp.message(F.text == "photo")
    @flags.chat_action("upload_photo")
    async def photo(m: object) -> None:
        await work()

    @dp.message(F.text == "voice")
    @flags.chat_action(action="record_voice", interval=30, initial_sleep=0.01)
    async def voice(m: object) -> None:
        await work()

    @dp.message(F.text == "flag")
    @flags.chat_action
    async def flag_only(m: object) -> None:
        await work()

    @dp.callback_query()
    async def pressed(c: object) -> str:
        return "no action for callback queries"

    for text in ["plain", "photo", "voice", "flag"]:
        await dp.feed_raw_update(bot, update(message=message(text, chat_id=4)))
    topic = message("plain", chat_id=-100, message_thread_id=12, is_topic_message=True)
    await dp.feed_raw_update(bot, update(message=topic))
    not_topic = message("plain", chat_id=-100, message_thread_id=12)  # a reply thread
    await dp.feed_raw_update(bot, update(message=not_topic))
    await dp.feed_raw_update(bot, update(callback_query=callback_query("x")))
    assert actions(fake) == [
        {"chat_id": 4, "action": "typing"},
        {"chat_id": 4, "action": "upload_photo"},
        {"chat_id": 4, "action": "record_voice"},
        {"chat_id": 4, "action": "typing"},
        {"chat_id": -100, "action": "typing", "message_thread_id": 12},
        {"chat_id": -100, "action": "typing"},
    ]
