"""The updates each example is given: what a user of that bot would send."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

Update = dict[str, Any]

USER = {"id": 1, "is_bot": False, "first_name": "Ada", "last_name": "L", "language_code": "en"}
CHAT = {"id": 1, "type": "private", "first_name": "Ada"}
GROUP = {"id": -100, "type": "supergroup", "title": "G"}
STICKER = {
    "file_id": "S", "file_unique_id": "s", "type": "regular", "width": 1, "height": 1,
    "is_animated": False, "is_video": False,
}  # fmt: skip
PAYMENT = {
    "currency": "XTR", "total_amount": 1, "invoice_payload": "demo",
    "telegram_payment_charge_id": "T1", "provider_payment_charge_id": "P1",
}  # fmt: skip


def _messages() -> Callable[..., Update]:
    ids = itertools.count(101)

    def message(text: str | None = None, **fields: Any) -> Update:
        body = {"message_id": next(ids), "date": 1_700_000_000, "chat": CHAT, "from": USER}
        if text is not None:
            body["text"] = text
            if text.startswith("/"):
                command = text.split()[0]
                body["entities"] = [{"type": "bot_command", "offset": 0, "length": len(command)}]
        return {"message": {**body, **fields}}

    return message


def _member(status: str, user_id: int = 5) -> dict[str, Any]:
    user = {"id": user_id, "is_bot": user_id == 42, "first_name": f"U{user_id}"}
    return {"status": status, "user": user}


def _member_update(kind: str, old: str, new: str, user_id: int = 5) -> Update:
    event = {"chat": GROUP, "from": USER, "date": 1_700_000_000}
    event.update(old_chat_member=_member(old, user_id), new_chat_member=_member(new, user_id))
    return {kind: event}


def default() -> list[Update]:
    m = _messages()
    return [m("/start"), m("hello"), m(sticker=STICKER)]


def form() -> list[Update]:
    m = _messages()
    answers = ["/start", "Ada", "maybe", "Yes", "Python", "/start", "Bob", "no", "/start"]
    return [m(text) for text in [*answers, "cancel"]]


def errors() -> list[Update]:
    m = _messages()
    return [m(text) for text in ["/age", "/age x", "/age 30", "/name", "/name Ada"]]


def updates_of_many_kinds() -> list[Update]:
    m = _messages()
    edited = {"message_id": 101, "date": 1, "edit_date": 2, "chat": CHAT, "from": USER}
    return [
        m("/start"),
        _member_update("chat_member", "left", "member"),
        {"callback_query": {"id": "c1", "from": USER, "chat_instance": "ci", "data": "tap"}},
        {"edited_message": {**edited, "text": "edited"}},
        _member_update("my_chat_member", "left", "member", user_id=42),
    ]


def payments() -> list[Update]:
    m = _messages()
    query = {"from": USER, "currency": "XTR", "total_amount": 1}
    return [
        m("/start"),
        {"pre_checkout_query": {"id": "q1", **query, "invoice_payload": "demo"}},
        {"pre_checkout_query": {"id": "q2", **query, "invoice_payload": "other"}},
        m(successful_payment=PAYMENT),
    ]


def _callback(data: str, message_id: int, text: str = "Demo started") -> Update:
    """A tap on an inline button of the bot's message ``message_id``."""
    message = {"message_id": message_id, "date": 1_700_000_000, "chat": CHAT, "text": text}
    query = {"id": f"cq{message_id}", "from": USER, "chat_instance": "ci", "data": data}
    return {"callback_query": {**query, "message": message}}


def scenes() -> list[Update]:
    """scene.py: the default scene, /demo and its button, the form's scenes with their
    answers, Back and Cancel, and a second run through the "demo" text."""
    m = _messages()
    first = [m("hi"), m("/demo")]
    return [
        *first, _callback("start", 103), m("Ada"), m("maybe"), m("Yes"), m("Python"),
        m("demo"), m("Bob"), m("🔙 Back"), m("No"), m("demo"), m("❌ Cancel"), m("Eve"),
        m("Yes"), m("🔙 Back"), m("Rust"), m("hello"),
    ]  # fmt: skip


def quiz() -> list[Update]:
    """quiz_scene.py: /start, the quiz with right and wrong answers, Back, a sticker
    (no answer), the quiz to its end; then Back past the first question, /quiz during
    a quiz (which exits it first), Exit, and texts outside the quiz."""
    m = _messages()
    texts = [
        "/start", "/quiz", "Paris", "London", "🔙 Back", "Madrid", None, "Berlin", "Paris",
        "Rome", "/quiz", "Paris", "🔙 Back", "🔙 Back", "/quiz", "Berlin", "/quiz", "London",
        "🚫 Exit", "/start", "hello",
    ]  # fmt: skip
    return [m(sticker=STICKER) if text is None else m(text) for text in texts]


DEFAULT = default
SCRIPTS: dict[str, Callable[[], list[Update]]] = {
    "finite_state_machine": form,
    "error_handling": errors,
    "specify_updates": updates_of_many_kinds,
    "stars_invoice": payments,
    "scene": scenes,
    "quiz_scene": quiz,
}
WEBHOOKS: dict[str, tuple[str, str | None]] = {
    "echo_bot_webhook": ("/webhook", "my-secret"),
    "multibot": ("/webhook/main", None),
}
"""Examples served by webhook: the path updates are POSTed to, and the secret."""
