"""Reference counts stay balanced on every compiled path: nothing is kept, None's count
does not drift.

The compiled modules use CPython internals (``_PyObject_GC_New``, a replaced
``tp_dealloc``, bulk ``Py_None`` counts, a hand-written coroutine): a count one too
high leaks the object, one too low frees it early. After a warm-up, repeating the same
work must leave the interpreter's allocated blocks and None's count where they were.
``scripts/test.sh`` also runs this module on Debian's debug interpreter, which aborts on
a negative count and checks the C API's assertions. (Its ``sys.gettotalrefcount()`` is
no measure here: orjson and the bulk None trick set counts without updating the total,
so it drifts while nothing leaks.)
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

import orjson
import pytest

from tgfast import Bot, DecodeError
from tgfast.dispatcher import Dispatcher, Router, SkipHandler
from tgfast.filters import Command, F
from tgfast.types import CallbackQuery, Message

SLACK = 20  # interpreter caches (type attribute cache, freelists) settle within this
ROUNDS = 300


def counts() -> tuple[int, int]:
    """Allocated memory blocks and None's count, once the cycles are collected."""
    gc.collect()
    return sys.getallocatedblocks(), sys.getrefcount(None)


def assert_balanced(before: tuple[int, int]) -> None:
    blocks, nones = counts()
    # a leaked object per round would be ROUNDS blocks; a None miscount, ROUNDS counts
    assert blocks - before[0] < SLACK, (blocks, before)
    assert abs(nones - before[1]) < SLACK, (nones, before)


def assert_repeats_balanced(work: Callable[[], None]) -> None:
    for _ in range(ROUNDS):
        work()
    before = counts()
    for _ in range(ROUNDS):
        work()
    assert_balanced(before)


def message(text: str, **extra: Any) -> dict[str, Any]:
    return {
        "message_id": 1,
        "date": 1,
        "chat": {"id": 5, "type": "private"},
        "from": {"id": 5, "is_bot": False, "first_name": "Ann"},
        "text": text,
        **extra,
    }


LARGE = orjson.dumps(
    {
        "update_id": 2,
        "message": message(
            "/start hello world",
            entities=[{"type": "bot_command", "offset": 0, "length": 6},
                      {"type": "bold", "offset": 7, "length": 5}],
            photo=[{"file_id": f"f{i}", "file_unique_id": f"u{i}", "width": 90 * i,
                    "height": 90 * i} for i in range(1, 4)],
            reply_markup={"inline_keyboard": [[{"text": "a", "callback_data": "a"}]]},
            reply_to_message=message("earlier"),
            unknown_field={"x": [1, 2, None]},
        ),
    }
)  # fmt: skip
SMALL = orjson.dumps({"update_id": 1, "message": message("hi")})
BROKEN = [
    orjson.dumps({"update_id": 1, "message": {"message_id": 2, "date": 3, "text": 5}}),
    orjson.dumps({"update_id": 1, "message": message("x", chat={"id": "5", "type": "x"})}),
    orjson.dumps({"update_id": 2**63}),
    b'{"update_id": 1, "message": ',
]


def test_decoding_keeps_counts_balanced(decoder: ModuleType) -> None:
    def work() -> None:
        assert decoder.decode_update(SMALL).message.text == "hi"
        large = decoder.decode_update(LARGE)
        assert large.message.reply_to_message.text == "earlier"
        assert len(decoder.decode_updates(b"[" + SMALL + b"," + LARGE + b"]")) == 2

    assert_repeats_balanced(work)


def test_failed_decoding_keeps_counts_balanced(decoder: ModuleType) -> None:
    def work() -> None:
        for body in BROKEN:
            with pytest.raises(DecodeError):
                decoder.decode_update(body)

    assert_repeats_balanced(work)


# the conftest `bot` never connects here: these tests only dispatch
OFFLINE_BOT = True


async def test_dispatching_keeps_counts_balanced(bot: Bot, decoder: ModuleType) -> None:
    """Every way through the compiled router: a command, a magic filter, a skipped
    handler, an error caught by the errors observer, an unhandled update."""
    dp = Dispatcher()
    inner = Router()
    dp.include_router(inner)
    errors = {ValueError: 0}  # counted, not collected: a list would grow by a block a round

    @dp.message(Command("start"))
    async def start(msg: Message) -> str:
        return "start"

    @inner.message(F.text == "skip")
    async def skipping(msg: Message) -> None:
        raise SkipHandler

    @inner.message(F.text == "fail")
    async def failing(msg: Message) -> None:
        raise ValueError("boom")

    @inner.message(F.text)
    async def echo(msg: Message) -> str:
        return msg.text or ""

    @dp.errors()
    async def on_error(event: Any) -> bool:
        errors[type(event.exception)] += 1
        return True

    updates = [decoder.decode_update(LARGE)] + [
        decoder.decode_update(orjson.dumps({"update_id": 3, "message": message(text)}))
        for text in ("skip", "fail", "plain")
    ]
    callback = orjson.dumps(
        {"update_id": 4, "callback_query": {"id": "1", "chat_instance": "c", "data": "x",
                                            "from": {"id": 5, "is_bot": False,
                                                     "first_name": "Ann"}}}
    )  # fmt: skip
    updates.append(decoder.decode_update(callback))
    assert isinstance(updates[-1].callback_query, CallbackQuery)

    async def one_round() -> None:
        for update in updates:
            await dp.feed_update(bot, update)

    for _ in range(ROUNDS):  # awaited here: assert_repeats_balanced takes plain callables
        await one_round()
    before = counts()
    for _ in range(ROUNDS):
        await one_round()
    assert_balanced(before)
    assert errors == {ValueError: 2 * ROUNDS}
