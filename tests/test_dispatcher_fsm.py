"""``Dispatcher(storage=..., fsm_strategy=...)``: the FSM wired into the dispatcher.

The storage is read only when something in the tree can use what the FSM provides,
and ``event_chat`` / ``event_from_user`` (which key the records) are found for the
kinds that name them differently.
"""

from __future__ import annotations

from typing import Any

import tgfast
from tgfast import Bot
from tgfast.dispatcher import UNHANDLED, Dispatcher
from tgfast.filters import Command
from tgfast.fsm import FSMContext, FSMStrategy, MemoryStorage, State, StatesGroup
from tgfast.fsm.storage import StorageKey
from tgfast.types import CallbackQuery, Message, PollAnswer, Update


class Form(StatesGroup):
    name = State()


class CountingStorage(MemoryStorage):
    """A MemoryStorage that counts reads and remembers being closed."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0
        self.closed = False

    async def get_state(self, key: StorageKey) -> str | None:
        self.reads += 1
        return await super().get_state(key)

    async def close(self) -> None:
        self.closed = True


def message(text: str, update_id: int = 1, chat_id: int = 5, user_id: int = 7) -> Update:
    msg = {"message_id": update_id, "date": 1, "text": text,
           "chat": {"id": chat_id, "type": "group"},
           "from": {"id": user_id, "is_bot": False, "first_name": "Ann"}}  # fmt: skip
    return tgfast.convert(Update, {"update_id": update_id, "message": msg})


# the conftest `bot` never connects here: these tests only dispatch
OFFLINE_BOT = True


async def test_a_conversation_through_state_filters(bot: Bot) -> None:
    storage = CountingStorage()
    dp = Dispatcher(storage=storage)
    assert dp.storage is storage

    @dp.message(Command("form"))
    async def form(message: Message, state: FSMContext) -> str:
        await state.set_state(Form.name)
        return "asked"

    @dp.message(Form.name)
    async def got_name(message: Message, state: FSMContext) -> str:
        await state.clear()
        return f"hello {message.text}"

    assert await dp.feed_update(bot, message("Ann", 1)) is UNHANDLED  # no state yet
    assert await dp.feed_update(bot, message("/form", 2)) == "asked"
    assert await dp.feed_update(bot, message("Ann", 3, user_id=8)) is UNHANDLED  # other user
    assert await dp.feed_update(bot, message("Ann", 4)) == "hello Ann"
    assert storage.reads == 4
    key = StorageKey(bot.id, 5, 7)
    assert await storage.get_state(key) is None


async def test_the_storage_is_not_read_when_nothing_asks(bot: Bot) -> None:
    storage = CountingStorage()
    dp = Dispatcher(storage=storage)

    @dp.message(Command("start"))
    async def start(message: Message, bot: Bot) -> str:
        return "started"

    assert await dp.feed_update(bot, message("/start")) == "started"
    assert storage.reads == 0
    await dp.emit_shutdown()
    assert storage.closed


async def test_a_middleware_sees_the_state(bot: Bot) -> None:
    dp = Dispatcher(fsm_strategy=FSMStrategy.CHAT)
    seen: list[Any] = []

    @dp.message.outer_middleware
    async def peek(handler: Any, event: Any, data: dict[str, Any]) -> Any:
        seen.append((data["raw_state"], data["state"].key.user_id))
        return await handler(event, data)

    @dp.message()
    async def anything(message: Message) -> str:
        return "ok"

    await dp.fsm.get_context(bot.id, chat_id=5, user_id=None).set_state(Form.name)
    assert await dp.feed_update(bot, message("x")) == "ok"
    assert seen == [("Form:name", 5)]  # CHAT strategy: one record per chat


async def test_event_chat_and_user_for_callbacks_and_poll_answers(bot: Bot) -> None:
    dp = Dispatcher()
    seen: list[Any] = []

    @dp.callback_query()
    async def on_query(query: CallbackQuery, event_chat: Any, event_from_user: Any) -> None:
        seen.append((event_chat.id, event_from_user.id))

    @dp.poll_answer()
    async def on_answer(answer: PollAnswer, event_chat: Any, event_from_user: Any) -> None:
        seen.append((event_chat, event_from_user.id))

    user = {"id": 7, "is_bot": False, "first_name": "Ann"}
    query = {"id": "q", "chat_instance": "c", "data": "d", "from": user,
             "message": {"message_id": 3, "date": 1, "chat": {"id": -9, "type": "group"}}}  # fmt: skip
    await dp.feed_update(bot, tgfast.convert(Update, {"update_id": 1, "callback_query": query}))
    answer = {"poll_id": "p", "option_ids": [0], "option_persistent_ids": ["a"], "user": user}
    await dp.feed_update(bot, tgfast.convert(Update, {"update_id": 2, "poll_answer": answer}))
    assert seen == [(-9, 7), (None, 7)]
