"""Running a dispatcher from code, aiogram's way: ``start_polling`` / ``stop_polling`` /
``run_polling`` on tgfast's ``Poller``, ``feed_webhook_update``, ``feed_raw_update`` of a
dict, ``resolve_used_update_types``, the startup and shutdown callbacks, workflow data."""

from __future__ import annotations

import asyncio
import importlib.util
import time
from collections.abc import Callable
from typing import Any

import aiogram
import pytest
from server_support import make_bot, message

from tgfast import Bot, Dispatcher, Router
from tgfast.client import NO_RETRY
from tgfast.methods import SendMessage
from tgfast.testing import FakeTelegram
from tgfast.testing import updates as build
from tgfast.types import CallbackQuery, Message, Update, User

OFFLINE = "42:test-token"


def add(fake: FakeTelegram, chat: int, text: str) -> dict[str, Any]:
    update = message(0, chat, text)
    del update["update_id"]  # numbered by the fake
    return fake.add_update(update)


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.005)


def polling(dp: Dispatcher, *bots: Bot, **kwargs: Any) -> asyncio.Task[None]:
    kwargs.setdefault("handle_signals", False)
    kwargs.setdefault("close_bot_session", False)
    kwargs.setdefault("polling_timeout", 5)
    return asyncio.ensure_future(dp.start_polling(*bots, **kwargs))


async def test_start_polling_handles_in_order_and_stop_confirms_the_offset(
    fake: FakeTelegram,
) -> None:
    dp = Dispatcher()
    seen: dict[int, list[str]] = {1: [], 2: []}

    @dp.message()
    async def record(message: Message) -> None:
        await asyncio.sleep(0.001 * (3 - message.chat.id))  # chat 1 slower than chat 2
        seen[message.chat.id].append(message.text or "")

    for n in range(10):
        for chat in (1, 2):
            add(fake, chat, f"{n}")
    async with Bot(fake.token, server=fake.url, rate_limiter=None, retry=NO_RETRY) as bot:
        task = polling(dp, bot)
        await until(lambda: len(seen[1]) + len(seen[2]) == 20)
        last = add(fake, 2, "late")
        await until(lambda: seen[2][-1:] == ["late"])
        await dp.stop_polling()
        assert task.done() and task.result() is None
        assert seen == {1: [str(n) for n in range(10)], 2: [*map(str, range(10)), "late"]}
        confirm = fake.calls_to("getUpdates")[-1].params
        assert confirm["offset"] == last["update_id"] + 1 and confirm["timeout"] == 0
        # Telegram would not deliver anything again
        assert await bot.get_updates(timeout=0) == []
        # only the kinds with handlers were asked for, as aiogram does
        assert fake.calls_to("getUpdates")[0].params["allowed_updates"] == ["message"]
        with pytest.raises(RuntimeError, match="not started"):
            await dp.stop_polling()


async def test_startup_and_shutdown_get_what_aiogram_passes(fake: FakeTelegram) -> None:
    got: dict[str, dict[str, Any]] = {}
    dp = Dispatcher(config="from-dispatcher")
    dp["extra"] = 1

    @dp.startup()
    async def on_startup(**kwargs: Any) -> None:
        got["startup"] = kwargs

    async def on_shutdown(bot: Bot, bots: tuple[Bot, ...], dispatcher: Dispatcher) -> None:
        got["shutdown"] = {"bot": bot, "bots": bots, "dispatcher": dispatcher}

    dp.shutdown.register(on_shutdown)
    handled: list[Any] = []

    @dp.message()
    async def echo(message: Message, bots: tuple[Bot, ...], mode: str) -> None:
        handled.append((bots, mode))

    add(fake, 1, "hi")
    async with make_bot(fake) as bot:
        task = polling(dp, bot, mode="from-start-polling")
        await until(lambda: bool(handled))
        await dp.stop_polling()
        await task
    startup = got["startup"]
    assert startup["bot"] is bot and startup["bots"] == (bot,)
    assert startup["dispatcher"] is dp
    assert startup["config"] == "from-dispatcher" and startup["extra"] == 1
    assert startup["mode"] == "from-start-polling"
    assert got["shutdown"] == {"bot": bot, "bots": (bot,), "dispatcher": dp}
    assert handled == [((bot,), "from-start-polling")]
    # the polling call's own kwargs do not outlive it
    assert "mode" not in dp.workflow_data and "bots" not in dp.workflow_data
    assert dp["config"] == "from-dispatcher"


async def test_aiogram_hands_startup_the_same_names(fake: FakeTelegram) -> None:
    """The reference: aiogram's own start_polling, on the same fake."""
    got: dict[str, Any] = {}
    dp = aiogram.Dispatcher(config="from-dispatcher")

    @dp.startup()
    async def on_startup(**kwargs: Any) -> None:
        got.update(kwargs)

    @dp.message()
    async def echo(message: Any) -> None: ...

    from aiogram.client.session.aiohttp import AiohttpSession
    from aiogram.client.telegram import TelegramAPIServer

    session = AiohttpSession(api=TelegramAPIServer.from_base(fake.url))
    abot = aiogram.Bot(fake.token, session=session)
    task = asyncio.ensure_future(
        dp.start_polling(abot, handle_signals=False, close_bot_session=True, mode="x")
    )
    await until(lambda: bool(got))
    await dp.stop_polling()
    await task
    ours: dict[str, Any] = {}
    tdp = Dispatcher(config="from-dispatcher")

    @tdp.startup()
    async def on_startup_ours(**kwargs: Any) -> None:
        ours.update(kwargs)

    @tdp.message()
    async def echo_ours(message: Message) -> None: ...

    async with make_bot(fake) as bot:
        task = polling(tdp, bot, mode="x")
        await until(lambda: bool(ours))
        await tdp.stop_polling()
        await task
    assert set(ours) == set(got)


async def test_two_bots_in_one_start_polling(fake: FakeTelegram) -> None:
    other_token = "987654321:TEST-other-token-AAAAAAAAAAAAAAAAAAAAAAAAA"
    async with FakeTelegram(token=other_token, username="other_bot") as other:
        dp = Dispatcher()
        handled: list[tuple[int, str]] = []

        @dp.message()
        async def record(message: Message, bot: Bot) -> None:
            handled.append((bot.id, message.text or ""))

        add(fake, 1, "to first")
        add(other, 1, "to second")
        async with make_bot(fake) as first, make_bot(other) as second:
            task = polling(dp, first, second)
            await until(lambda: len(handled) == 2)
            await dp.stop_polling()
            await task
            assert sorted(handled) == sorted([(first.id, "to first"), (second.id, "to second")])
            for bot in (first, second):  # each one's offset confirmed
                assert await bot.get_updates(timeout=0) == []
        assert other.errors == []


async def test_handle_as_tasks_false_handles_one_update_at_a_time(fake: FakeTelegram) -> None:
    dp = Dispatcher()
    running = peak = 0
    done: list[str] = []

    @dp.message()
    async def slow(message: Message) -> None:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.005)
        running -= 1
        done.append(message.text or "")

    for chat in (1, 2, 3, 4):
        add(fake, chat, str(chat))
    async with make_bot(fake) as bot:
        task = polling(dp, bot, handle_as_tasks=False)
        await until(lambda: len(done) == 4)
        await dp.stop_polling()
        await task
    assert peak == 1 and done == ["1", "2", "3", "4"]


async def test_a_wrong_token_ends_start_polling_with_the_error(fake: FakeTelegram) -> None:
    dp = Dispatcher()
    dp.message.register(lambda message: None)
    from tgfast import TelegramUnauthorized

    async with Bot("1:wrong", server=fake.url, rate_limiter=None, retry=NO_RETRY) as bot:
        with pytest.raises(TelegramUnauthorized):
            await dp.start_polling(bot, handle_signals=False, close_bot_session=False)
    assert dp._polling is None  # a next start_polling may run


async def test_start_polling_refuses_what_aiogram_refuses(fake: FakeTelegram) -> None:
    dp = Dispatcher()
    with pytest.raises(ValueError, match="at least one"):
        await dp.start_polling()
    async with make_bot(fake) as bot:
        with pytest.raises(ValueError, match="positionally"):
            await dp.start_polling(bot, bot=bot)


def test_run_polling_owns_a_uvloop_loop_and_runs_to_the_end() -> None:
    """run_polling makes its loop (uvloop's: installed with the test extra), runs the
    startup callbacks, polls until stopped, runs the shutdown ones and returns."""
    events: list[str] = []
    dp = Dispatcher()
    dp.message.register(lambda message: None)

    @dp.startup()
    async def on_startup(dispatcher: Dispatcher) -> None:
        events.append(type(asyncio.get_running_loop()).__module__.partition(".")[0])
        loop = asyncio.get_running_loop()
        loop.call_later(0.05, lambda: asyncio.ensure_future(dispatcher.stop_polling()))

    @dp.shutdown()
    async def on_shutdown() -> None:
        events.append("shutdown")

    # nothing listens on port 9: getUpdates fails and is retried until the stop
    bot = Bot(OFFLINE, server="http://127.0.0.1:9", rate_limiter=None, retry=NO_RETRY)
    # start_polling asks getMe first (as aiogram): answered already, as bot.me() caches it
    bot._me = User(id=42, is_bot=True, first_name="Bot", username="bot")
    dp.run_polling(bot, handle_signals=False)
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"  # a CPython dependency
    assert events == [loop, "shutdown"]
    assert bot.session.closed  # close_bot_session=True by default, as aiogram


# -- feeding updates from outside -------------------------------------------------------


async def test_feed_webhook_update_returns_the_method_a_handler_returned(
    routing: Any,
) -> None:
    dp = Dispatcher(routing=routing)

    @dp.message()
    async def answer(message: Message) -> SendMessage:
        return SendMessage(chat_id=message.chat.id, text="pong")

    @dp.callback_query()
    async def press(callback_query: CallbackQuery) -> str:
        return "not a method"

    async with Bot(OFFLINE, rate_limiter=None) as bot:
        raw = build.update(message=build.message("ping", chat_id=5))
        result = await dp.feed_webhook_update(bot, raw)  # a dict, as aiogram accepts
        assert isinstance(result, SendMessage) and (result.chat_id, result.text) == (5, "pong")
        decoded = build.decoded(build.update(message=build.message("ping", chat_id=6)))
        result = await dp.feed_webhook_update(bot, decoded)
        assert isinstance(result, SendMessage) and result.chat_id == 6
        pressed = build.update(callback_query=build.callback_query("x"))
        assert await dp.feed_webhook_update(bot, pressed) is None


async def test_feed_webhook_update_answers_none_when_the_handler_is_slow(
    fake: FakeTelegram,
) -> None:
    dp = Dispatcher()
    release = asyncio.Event()

    @dp.message()
    async def slow(message: Message) -> SendMessage:
        await release.wait()
        return SendMessage(chat_id=message.chat.id, text="late")

    async with make_bot(fake) as bot:
        raw = build.update(message=build.message("ping", chat_id=9))
        assert await dp.feed_webhook_update(bot, raw, _timeout=0.01) is None
        release.set()
        await until(lambda: bool(fake.sent_messages(9)))  # sent by a call instead
        assert fake.sent_messages(9)[0]["text"] == "late"


async def test_feed_raw_update_takes_a_dict(routing: Any) -> None:
    dp = Dispatcher(routing=routing)

    @dp.message()
    async def echo(message: Message) -> str:
        return f"{message.chat.id}:{message.text}"

    async with Bot(OFFLINE, rate_limiter=None) as bot:
        raw = build.update(message=build.message("hey", chat_id=3))
        assert await dp.feed_raw_update(bot, raw) == "3:hey"
        assert await dp.feed_raw_update(bot, build.encoded(raw)) == "3:hey"


def _aiogram_used_types(register: Callable[[Any], None], skip: set[str] | None) -> list[str]:
    dp = aiogram.Dispatcher()
    register(dp)
    return dp.resolve_used_update_types(skip_events=skip)


@pytest.mark.parametrize("skip", [None, set(), {"message"}, {"callback_query", "poll"}])
def test_resolve_used_update_types_as_aiogram(skip: set[str] | None) -> None:
    def register(dp: Any) -> None:
        dp.message.register(lambda m: None)
        dp.callback_query.register(lambda c: None)
        dp.chat_member.register(lambda c: None)
        dp.errors.register(lambda e: None)

    ours = Dispatcher()
    child = Router()
    ours.include_router(child)
    ours.message.register(lambda m: None)
    child.callback_query.register(lambda c: None)
    child.chat_member.register(lambda c: None)
    ours.errors.register(lambda e: None)
    assert ours.resolve_used_update_types(skip_events=skip) == _aiogram_used_types(register, skip)


def test_update_type_is_still_an_update() -> None:
    assert Update is build.decoded(build.update(message=build.message("x"))).__class__


def test_resolving_used_types_does_not_freeze_the_dispatcher() -> None:
    dp, child = Dispatcher(), Router()
    dp.include_router(child)
    child.message.register(lambda m: None)
    assert child.parent_router is dp and dp.parent_router is None
    assert dp.resolve_used_update_types() == ["message"]
    assert child.resolve_used_update_types() == ["message"]  # on any router, as aiogram
    dp.edited_message.register(lambda m: None)  # still open for registration
    assert dp.resolve_used_update_types() == ["edited_message", "message"]


async def test_workflow_data_holds_what_was_given_as_in_aiogram(routing: Any) -> None:
    """aiogram's workflow_data is the keyword arguments only: a bot may unpack it into
    emit_startup(bot=..., dispatcher=dp, **dp.workflow_data) and handlers still get
    ``dispatcher`` (unless the data overrides it)."""
    dp = Dispatcher(routing=routing, greeting="hi")
    theirs = aiogram.Dispatcher(greeting="hi")
    assert dp.workflow_data == theirs.workflow_data == {"greeting": "hi"}
    started: list[Any] = []

    @dp.startup()
    async def on_startup(dispatcher: Dispatcher, greeting: str) -> None:
        started.append((dispatcher, greeting))

    @dp.message()
    async def which(message: Message, dispatcher: Dispatcher, greeting: str) -> Any:
        return dispatcher, greeting

    async with Bot(OFFLINE, rate_limiter=None) as bot:
        await dp.emit_startup(bot=bot, dispatcher=dp, **dp.workflow_data)
        await dp.emit_startup(bot=bot)
        raw = build.update(message=build.message("x"))
        assert await dp.feed_raw_update(bot, raw) == (dp, "hi")
        assert await dp.feed_raw_update(bot, raw, dispatcher="mine") == ("mine", "hi")
    assert started == [(dp, "hi"), (dp, "hi")]


def test_aiogram_spellings_of_router_parts() -> None:
    router = Router()
    assert router.error is router.errors
    assert router.message.event_name == "message" == aiogram.Router().message.event_name
