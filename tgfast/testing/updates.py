"""Updates as Telegram sends them, for feeding a bot in tests.

Each builder returns the JSON-shaped dict Telegram posts (so it can go to
``FakeTelegram.add_update``, ``deliver`` or a webhook as it is); ``decoded`` turns one
into the ``Update`` the dispatcher takes. Ids follow the shorthand of ``tgfast
--fake``: a positive ``chat_id`` is a private chat with that user, a negative one a
supergroup. A leading command gets the ``bot_command`` entity Telegram adds.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import orjson

from tgfast.decoding import decode_update
from tgfast.types import Update

__all__ = [
    "callback_query",
    "chat",
    "decoded",
    "encoded",
    "message",
    "ephemeral_message",
    "next_update_id",
    "stopped_message_generation",
    "subscription",
    "update",
    "user",
]

_update_ids = itertools.count(1)
_COMMAND = re.compile(r"/[A-Za-z0-9_]+(?:@[A-Za-z0-9_]+)?")


def next_update_id() -> int:
    """A new update id, increasing through the process as Telegram's do."""
    return next(_update_ids)


def user(user_id: int = 1, first_name: str = "User", **fields: Any) -> dict[str, Any]:
    """A user (``username``, ``last_name``, ``language_code`` ... as keywords)."""
    return {"id": user_id, "is_bot": False, "first_name": first_name, **fields}


def chat(chat_id: int = 1, **fields: Any) -> dict[str, Any]:
    """A private chat for a positive id, a supergroup for a negative one."""
    if chat_id > 0:
        return {"id": chat_id, "type": "private", "first_name": "User", **fields}
    return {"id": chat_id, "type": "supergroup", "title": "Group", **fields}


def message(
    text: str | None = None,
    *,
    chat_id: int = 1,
    user_id: int | None = None,
    message_id: int = 1,
    date: int = 1_700_000_000,
    **fields: Any,
) -> dict[str, Any]:
    """A message from ``user_id`` (the chat's user by default) in ``chat_id``.

    Other fields (``caption``, ``photo``, ``reply_to_message``, ``entities`` ...) go as
    keywords; a text that starts with a command gets its ``bot_command`` entity unless
    ``entities`` is given.
    """
    sender = abs(chat_id) if user_id is None else user_id
    body: dict[str, Any] = {
        "message_id": message_id,
        "date": date,
        "chat": chat(chat_id),
        "from": user(sender),
    }
    if text is not None:
        body["text"] = text
        command = _COMMAND.match(text)
        if command and "entities" not in fields:
            # ASCII only: its length in UTF-16 code units, as Telegram counts, is len()
            length = len(command.group())
            body["entities"] = [{"type": "bot_command", "offset": 0, "length": length}]
    body.update(fields)
    return body


def callback_query(
    data: str,
    *,
    chat_id: int = 1,
    user_id: int | None = None,
    message_id: int = 1,
    query_id: str | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """A press on an inline button with ``data``, under message ``message_id``."""
    sender = abs(chat_id) if user_id is None else user_id
    shown = message(chat_id=chat_id, user_id=sender, message_id=message_id)
    shown["from"] = user(0, "Bot", is_bot=True)  # the bot sent the keyboard
    return {
        "id": query_id if query_id is not None else f"{sender}:{message_id}:{data}",
        "from": user(sender),
        "chat_instance": str(chat_id),
        "message": shown,
        "data": data,
        **fields,
    }


def ephemeral_message(
    text: str | None = None,
    *,
    chat_id: int = -1,
    receiver_id: int = 1,
    ephemeral_message_id: int = 1,
    **fields: Any,
) -> dict[str, Any]:
    """An ephemeral message in group ``chat_id``, seen by user ``receiver_id`` only: its
    ``message_id`` is 0, its ``ephemeral_message_id`` names it (the ``message`` keywords
    apply)."""
    body = message(text, chat_id=chat_id, user_id=receiver_id, message_id=0, **fields)
    body["ephemeral_message_id"] = ephemeral_message_id
    body["receiver_user"] = user(receiver_id)
    return body


def subscription(
    state: str = "canceled", *, user_id: int = 1, invoice_payload: str = "subscription"
) -> dict[str, Any]:
    """A ``subscription`` event: a user's payment subscription to the bot changed
    (``"canceled"``, ``"active"`` or ``"failed"``)."""
    return {"user": user(user_id), "invoice_payload": invoice_payload, "state": state}


def stopped_message_generation(
    *, chat_id: int = 1, draft_id: int = 1, **fields: Any
) -> dict[str, Any]:
    """A ``stopped_message_generation`` event: the user stopped the draft the bot was
    streaming (``message_thread_id`` as a keyword)."""
    return {"chat": chat(chat_id), "draft_id": draft_id, **fields}


def update(*, update_id: int | None = None, **event: dict[str, Any]) -> dict[str, Any]:
    """An update holding one event, named by its kind: ``update(message=message("hi"))``,
    ``update(callback_query=callback_query("yes"))``; a fresh ``update_id`` unless given."""
    if len(event) != 1:
        raise TypeError(f"an update holds exactly one event, got {sorted(event) or 'none'}")
    return {"update_id": update_id if update_id is not None else next_update_id(), **event}


def encoded(value: dict[str, Any]) -> bytes:
    """The JSON bytes of an update (what a webhook body or ``getUpdates`` carries)."""
    return orjson.dumps(value)


def decoded(value: dict[str, Any]) -> Update:
    """The ``Update`` the dispatcher takes, decoded as a served update would be."""
    return decode_update(orjson.dumps(value))
