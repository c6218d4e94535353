"""``tgfast.utils.callback_answer`` against FakeTelegram: one answer per callback query,
before or after the handler, from the middleware's defaults, the handler's flag or the
handler itself; names and the ``CallbackAnswer`` object compared with aiogram's.
(tests/support/aiogram_bots/callback_answer.py runs one bot on both frameworks.)"""

from __future__ import annotations

import inspect
from typing import Any

import aiogram.utils.callback_answer as ag_callback_answer
import pytest

from tgfast import Bot, Dispatcher, F, TgfastError, flags
from tgfast.exceptions import CallbackAnswerException
from tgfast.testing import FakeTelegram
from tgfast.testing.updates import callback_query, message, update
from tgfast.utils.callback_answer import CallbackAnswer, CallbackAnswerMiddleware

FIELDS = ["disabled", "text", "show_alert", "url", "cache_time"]


def answers(fake: FakeTelegram) -> list[dict[str, Any]]:
    return [call.params for call in fake.calls_to("answerCallbackQuery")]


def test_same_signatures_as_aiogram() -> None:
    for ours, theirs in [
        (CallbackAnswer.__init__, ag_callback_answer.CallbackAnswer.__init__),
        (CallbackAnswerMiddleware.__init__, ag_callback_answer.CallbackAnswerMiddleware.__init__),
    ]:
        assert [
            (p.name, p.kind, p.default) for p in inspect.signature(ours).parameters.values()
        ] == [(p.name, p.kind, p.default) for p in inspect.signature(theirs).parameters.values()]


@pytest.mark.parametrize("answered", [False, True])
def test_callback_answer_object_as_aiogram(answered: bool) -> None:
    kwargs: dict[str, Any] = {"text": "hi", "show_alert": True, "cache_time": 3}
    ours = CallbackAnswer(answered, **kwargs)
    theirs = ag_callback_answer.CallbackAnswer(answered, **kwargs)
    assert str(ours) == str(theirs)
    for field in FIELDS:
        assert getattr(ours, field) == getattr(theirs, field)
        value = "x" if field in {"text", "url"} else 1
        if answered:
            with pytest.raises(CallbackAnswerException):
                setattr(ours, field, value)
            with pytest.raises(ag_callback_answer.CallbackAnswerException):
                setattr(theirs, field, value)
        else:
            setattr(ours, field, value)
            setattr(theirs, field, value)
            assert getattr(ours, field) == getattr(theirs, field) == value
    if not answered:
        ours.disabled = False
        ours.disable()
        assert ours.disabled


@pytest.mark.parametrize(
    "flag",
    [None, True, {}, {"pre": True}, {"text": "t", "cache_time": 5}, {"disabled": True, "url": "u"}],
)
def test_construct_from_flag_as_aiogram(flag: Any) -> None:
    defaults: dict[str, Any] = {"pre": False, "text": "default", "show_alert": True}
    ours = CallbackAnswerMiddleware(**defaults).construct_callback_answer(flag)
    theirs = ag_callback_answer.CallbackAnswerMiddleware(**defaults).construct_callback_answer(flag)
    assert str(ours) == str(theirs)


def test_the_exception_is_a_tgfast_error() -> None:
    assert issubclass(CallbackAnswerException, TgfastError)


async def test_answers_once_after_the_handler(fake: FakeTelegram, bot: Bot) -> None:
    dp = Dispatcher()
    dp.callback_query.middleware(CallbackAnswerMiddleware(cache_time=10))
    seen: list[CallbackAnswer] = []

    @dp.callback_query(F.data == "edit")
    async def edit(query: Any, callback_answer: CallbackAnswer) -> None:
        seen.append(callback_answer)
        assert not callback_answer.answered
        await bot.send_message(1, "working")
        callback_answer.text = "done"
        callback_answer.show_alert = True

    await dp.feed_raw_update(bot, update(callback_query=callback_query("edit", query_id="q1")))
    assert [c.method for c in fake.calls if c.method != "getMe"] == [
        "sendMessage",
        "answerCallbackQuery",
    ]
    assert answers(fake) == [
        {"callback_query_id": "q1", "text": "done", "show_alert": True, "cache_time": 10}
    ]
    assert seen[0].answered
    with pytest.raises(CallbackAnswerException):
        seen[0].text = "too late"


async def test_pre_answers_before_the_handler(fake: FakeTelegram, bot: Bot) -> None:
    dp = Dispatcher()
    dp.callback_query.middleware(CallbackAnswerMiddleware(text="default"))
    errors: list[str] = []

    @dp.callback_query()
    @flags.callback_answer(pre=True, text="at once")
    async def quick(query: Any, callback_answer: CallbackAnswer) -> None:
        assert answers(fake) == [{"callback_query_id": "q2", "text": "at once"}]
        try:
            callback_answer.text = "later"
        except CallbackAnswerException as e:
            errors.append(type(e).__name__)

    await dp.feed_raw_update(bot, update(callback_query=callback_query("x", query_id="q2")))
    assert answers(fake) == [{"callback_query_id": "q2", "text": "at once"}]
    assert errors == ["CallbackAnswerException"]


async def test_disabled_by_handler_or_flag(fake: FakeTelegram, bot: Bot) -> None:
    dp = Dispatcher()
    dp.callback_query.middleware(CallbackAnswerMiddleware())

    @dp.callback_query(F.data == "self")
    async def answers_itself(query: Any, callback_answer: CallbackAnswer) -> None:
        callback_answer.disable()
        await query.answer("mine")

    @dp.callback_query(F.data == "never")
    @flags.callback_answer(disabled=True)
    async def never(query: Any) -> None:
        pass

    await dp.feed_raw_update(bot, update(callback_query=callback_query("self", query_id="a")))
    await dp.feed_raw_update(bot, update(callback_query=callback_query("never", query_id="b")))
    assert answers(fake) == [{"callback_query_id": "a", "text": "mine"}]


async def test_answers_when_the_handler_raises(fake: FakeTelegram, bot: Bot) -> None:
    dp = Dispatcher()
    dp.callback_query.middleware(CallbackAnswerMiddleware(text="sorry"))

    failed: list[tuple[str, int]] = []

    @dp.callback_query()
    async def broken(query: Any) -> None:
        raise KeyError("broken")

    @dp.errors()
    async def on_error(event: Any) -> bool:
        # the answer was sent before the error reached the error handlers
        failed.append((type(event.exception).__name__, len(answers(fake))))
        return True

    await dp.feed_raw_update(bot, update(callback_query=callback_query("x", query_id="c")))
    assert failed == [("KeyError", 1)]
    assert answers(fake) == [{"callback_query_id": "c", "text": "sorry"}]


async def test_other_events_pass_untouched(fake: FakeTelegram, bot: Bot) -> None:
    dp = Dispatcher()
    dp.message.middleware(CallbackAnswerMiddleware())

    @dp.message()
    async def echo(m: Any, **data: Any) -> str:
        assert "callback_answer" not in data
        return "ok"

    assert await dp.feed_raw_update(bot, update(message=message("hi"))) == "ok"
    assert answers(fake) == []
