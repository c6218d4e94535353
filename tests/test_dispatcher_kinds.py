"""Every kind of update reaches the handlers of its own observer, and only those; and
every part that asks which event, chat and user an update has agrees.

For each optional field of ``Update``, generated events of that field's type (from the
same strategies as the decoding tests) are put in an update body, decoded and fed to
a dispatcher with one handler on every kind's observer. Run once as is and once with
``TGFAST_NO_EXTENSIONS=1`` to cover both builds.

The answers of ``tgfast.types.update_kinds`` (generated) are checked against what the
spec says each event's chat and user are, then everything reading them is checked
against them: the dispatcher's ``event_chat`` / ``event_from_user``, the FSM's record
key, and the ordering key of ``tgfast.server.keys``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import json_values

import tgfast
from tgfast.dispatcher import UNHANDLED, Dispatcher, Router
from tgfast.dispatcher._kinds import EVENT_TYPES, UPDATE_KINDS
from tgfast.fsm import FSMContext, FSMContextMiddleware, FSMStrategy, MemoryStorage
from tgfast.fsm.strategy import apply_strategy
from tgfast.server.keys import update_key
from tgfast.types import Chat, Update, User, _types
from tgfast.types.update_kinds import (
    CHAT_READERS,
    KEY_READERS,
    UNKNOWN_KIND,
    USER_READERS,
    chat_of,
    event_of,
    user_of,
)


class FakeBot:
    """Enough of a bot for routing: no handler here calls the Bot API."""

    id = 1


def dispatcher() -> Dispatcher:
    """A handler on every kind's observer (in a child router), answering with its kind
    and what the table found as the event's user and chat."""
    dp, child = Dispatcher(), Router()
    dp.include_router(child)
    for kind in UPDATE_KINDS:

        def handler(
            event: Any, event_from_user: Any, event_chat: Any, kind: str = kind
        ) -> tuple[str, Any, Any, Any]:
            return kind, event, event_from_user, event_chat

        child.observers[kind].register(handler)
    return dp


@pytest.mark.parametrize("kind", UPDATE_KINDS)
@settings(max_examples=5)
@given(data=st.data())
def test_each_kind_reaches_its_own_observer(kind: str, data: st.DataObject) -> None:
    cls = getattr(_types, EVENT_TYPES[kind])
    event = data.draw(json_values(cls, max_depth=1), label=kind)
    update = tgfast.decode_update(orjson.dumps({"update_id": 5, kind: event}))
    got = asyncio.run(dispatcher().feed_update(FakeBot(), update))
    assert got is not UNHANDLED
    routed, seen, user, chat = got
    assert routed == kind and seen is getattr(update, kind)
    assert user is expected_user(seen)
    assert same(chat, expected_chat(kind, seen))


def expected_user(event: Any) -> Any:
    """Per the spec: the sender (``from``), else the event's ``user``."""
    return getattr(event, "from_user", None) or getattr(event, "user", None)


def expected_chat(kind: str, event: Any) -> Any:
    """Per the spec, written out here apart from the generator's override table."""
    if kind == "callback_query":  # the message its button is on, if any
        return None if event.message is None else event.message.chat
    if kind == "poll_answer":  # a chat voting anonymously
        return event.voter_chat
    if kind == "business_connection":  # the private chat with the account's user
        return Chat(id=event.user_chat_id, type="private")
    return getattr(event, "chat", None)


def same(a: Any, b: Any) -> bool:
    """The same object, or for a made-up private chat the same id and type."""
    if a is b:
        return True
    return type(a) is type(b) is Chat and (a.id, a.type) == (b.id, b.type)


def ordering_key(chat: Any, user: Any) -> int | None:
    return chat.id if chat is not None else (None if user is None else user.id)


@pytest.mark.parametrize("kind", UPDATE_KINDS)
@settings(max_examples=5)
@given(data=st.data())
def test_every_reader_of_the_vocabulary_agrees(kind: str, data: st.DataObject) -> None:
    """For each kind: the vocabulary answers what the spec says, and the dispatcher,
    the FSM and the ordering key all take the same chat and user from it."""
    cls = getattr(_types, EVENT_TYPES[kind])
    body = data.draw(json_values(cls, max_depth=1), label=kind)
    update = tgfast.decode_update(orjson.dumps({"update_id": 5, kind: body}))
    event = getattr(update, kind)
    assert event_of(update) == (kind, event)
    chat, user = chat_of(update), user_of(update)
    assert same(chat, expected_chat(kind, event)) and user is expected_user(event)
    assert (CHAT_READERS[kind] is None) is (kind not in WITH_CHAT)
    assert (USER_READERS[kind] is None) is (kind in WITHOUT_USER)
    assert isinstance(chat, Chat | None) and isinstance(user, User | None)

    # the ordering of updates
    assert update_key(update) == (kind, ordering_key(chat, user))
    assert KEY_READERS[kind](event) == ordering_key(chat, user)

    # the dispatcher's event_chat / event_from_user, and the FSM record of the update
    storage = MemoryStorage()
    dp, seen = Dispatcher(storage=storage), []

    def handler(event: Any, event_chat: Any, event_from_user: Any, state: Any = None) -> str:
        seen.append((event_chat, event_from_user, state))
        return "ok"

    dp.observers[kind].register(handler)
    assert asyncio.run(dp.feed_update(FakeBot(), update)) == "ok"
    [(event_chat, event_from_user, state)] = seen
    assert same(event_chat, chat) and event_from_user is user
    ids = apply_strategy(
        FSMStrategy.USER_IN_CHAT,
        None if chat is None else chat.id,
        None if user is None else user.id,
    )
    if ids is None:
        assert state is None
    else:
        assert isinstance(state, FSMContext)
        assert state.key[1:3] == ids[:2]
        middleware = FSMContextMiddleware(storage)
        assert middleware.resolve_key(FakeBot.id, update, chat, user) == state.key


# which kinds have a chat or a user at all, from the event types' fields in the spec
WITH_CHAT = {k for k, tp in EVENT_TYPES.items() if "chat" in getattr(_types, tp).__slots__} | {
    "callback_query",
    "poll_answer",
    "business_connection",
}
WITHOUT_USER = {
    k
    for k, tp in EVENT_TYPES.items()
    if not {"from_user", "user"} & set(getattr(_types, tp).__slots__)
}


def test_an_update_of_no_known_kind_has_no_event_chat_user_or_key() -> None:
    update = tgfast.decode_update(b'{"update_id": 1, "some_future_kind": {"chat": {"id": 1}}}')
    assert event_of(update) == (UNKNOWN_KIND, None)
    assert chat_of(update) is None and user_of(update) is None
    assert update_key(update) == (UNKNOWN_KIND, None)
    assert isinstance(update, Update)


def test_every_kind_has_a_test() -> None:
    kinds = [attr for _key, attr, _tp, _req in tgfast.types.Update.__tg_fields__]
    assert [k for k in kinds if k != "update_id"] == list(UPDATE_KINDS)
    assert set(EVENT_TYPES) == set(UPDATE_KINDS)


async def test_an_update_of_a_kind_without_handlers_is_unhandled() -> None:
    dp = Dispatcher()
    dp.message.register(lambda message: "message")
    body = {"update_id": 1, "poll_answer": {"poll_id": "p", "option_ids": [0], "option_persistent_ids": ["a"],
            "user": {"id": 7, "is_bot": False, "first_name": "Ann"}}}  # fmt: skip
    assert await dp.feed_raw_update(FakeBot(), orjson.dumps(body)) is UNHANDLED
    assert await dp.feed_raw_update(FakeBot(), b'{"update_id": 2}') is UNHANDLED
