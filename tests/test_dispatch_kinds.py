"""Every kind of update reaches the handlers of its own observer, and only those.

For each optional field of ``Update``, generated events of that field's type (from the
same strategies as the decoding tests) are put in an update body, decoded and fed to
a dispatcher with one handler on every kind's observer. Run once as is and once with
``TGFAST_NO_EXTENSIONS=1`` to cover both builds.
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
from tgfast.types import _types


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
    expected_user = getattr(seen, "from_user", None) or getattr(seen, "user", None)
    assert user is expected_user
    if hasattr(seen, "chat"):
        assert chat is seen.chat
    elif getattr(seen, "message", None) is not None:
        assert chat is seen.message.chat


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
