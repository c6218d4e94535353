"""The updates the generator sends and how an echo is traced back to one of them.

Each update is a private-chat text message as Telegram POSTs it (compact
JSON, the fields a real client message has), from one of ``chats`` users
(``record.CHATS_BASE + update_id % chats``), so a bot that serializes per
chat still has plenty of chats to run concurrently.  The text is
``"e2e <update_id>"``: the echo names its update.
"""

from __future__ import annotations

from record import Tracker

TEXT_PREFIX = "e2e "
_TEMPLATE = (
    b'{"update_id":%d,"message":{"message_id":%d,'
    b'"from":{"id":%d,"is_bot":false,"first_name":"Load","last_name":"Test",'
    b'"username":"load_test_%d","language_code":"en"},'
    b'"chat":{"id":%d,"first_name":"Load","last_name":"Test",'
    b'"username":"load_test_%d","type":"private"},'
    b'"date":%d,"text":"e2e %d"}}'
)


def update_body(tracker: Tracker, i: int) -> bytes:
    """The JSON of update ``i`` of the tracker's block (a webhook body / getUpdates item)."""
    uid = tracker.update_id(i)
    chat = tracker.chat_id(i)
    return _TEMPLATE % (uid, uid, chat, chat, chat, chat, tracker.date, uid)


def echo_id(text: object) -> int | None:
    """The update id an echo's text names, None if it names none."""
    if isinstance(text, str) and text.startswith(TEXT_PREFIX):
        tail = text[len(TEXT_PREFIX) :]
        if tail.isdigit():
            return int(tail)
    return None
