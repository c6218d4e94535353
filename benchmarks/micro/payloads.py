"""Webhook update payloads used by the decode benchmarks.

Both payloads are the raw bytes of a webhook POST body, shaped the way the
Bot API sends updates (same keys, same key order, ids in realistic ranges).

* SMALL: "/start" typed in a private chat: the most common update a bot sees.
* LARGE: a supergroup text message with three entities (bold, url, mention),
  three photo sizes and a 2-row inline keyboard (see the note below).

Note on LARGE: Telegram never sends ``text`` and ``photo`` in the same message
(a photo message carries a ``caption``).  The benchmark deliberately keeps
``text``, ``entities``, ``photo`` and ``reply_markup`` together so that one
payload exercises every nested shape a decoder has to handle: nested objects,
a list of objects, and a list of lists of objects.

Each payload comes with the values that a correct decoder must expose as
``(message.text, message.chat.id, message.from.id)``.
"""

from __future__ import annotations

import json
from typing import NamedTuple

import orjson

# The Bot API server (tdlib's JSON writer) escapes every non-ASCII character
# as \uXXXX (astral characters such as emoji as a surrogate pair) and leaves
# "/" alone; that is exactly json.dumps(ensure_ascii=True) in compact form.
# Decoders may take a different path for escaped strings, so by default the
# payloads are encoded that way (measured: within noise for every contender).
# Set to False for raw UTF-8 bodies (what orjson.dumps produces).
TELEGRAM_ESCAPING = True


def dump(obj: dict) -> bytes:
    """Serialize an update the way it arrives in a webhook body."""
    if TELEGRAM_ESCAPING:
        return json.dumps(obj, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    return orjson.dumps(obj)


def _utf16_len(s: str) -> int:
    """Length in UTF-16 code units: what Bot API entity offsets count."""
    return len(s.encode("utf-16-le")) // 2


def _entity(text: str, part: str, kind: str) -> dict:
    """A MessageEntity covering the first occurrence of ``part`` in ``text``."""
    start = text.index(part)
    return {
        "offset": _utf16_len(text[:start]),
        "length": _utf16_len(part),
        "type": kind,
    }


class Payload(NamedTuple):
    name: str
    data: bytes
    # (message.text, message.chat.id, message.from.id)
    expected: tuple[str, int, int]


# --------------------------------------------------------------------------
# SMALL: /start in a private chat
# --------------------------------------------------------------------------

_SMALL_USER = {
    "id": 5830142967,
    "is_bot": False,
    "first_name": "Marta",
    "last_name": "Kowalczyk",
    "username": "marta_kow",
    "language_code": "pl",
}

SMALL_UPDATE: dict = {
    "update_id": 731904528,
    "message": {
        "message_id": 1187,
        "from": _SMALL_USER,
        "chat": {
            "id": _SMALL_USER["id"],
            "first_name": _SMALL_USER["first_name"],
            "last_name": _SMALL_USER["last_name"],
            "username": _SMALL_USER["username"],
            "type": "private",
        },
        "date": 1732262418,
        "text": "/start",
        "entities": [{"offset": 0, "length": 6, "type": "bot_command"}],
    },
}

# --------------------------------------------------------------------------
# LARGE: supergroup message, 3 entities, 3 photo sizes, 2-row inline keyboard
# --------------------------------------------------------------------------

_LARGE_TEXT = (
    "Release 2.4 is out \U0001f389 Full changelog: "
    "https://example.org/changelog/2.4 \u2014 thanks @oleg_qa "
    "for testing the migration on staging. Reply here if anything breaks."
)

_LARGE_USER = {
    "id": 402718365,
    "is_bot": False,
    "first_name": "Jonas",
    "last_name": "Berger",
    "username": "jberger_dev",
    "language_code": "de",
}


def _photo_size(n: int, width: int, height: int, size: int) -> dict:
    # file_id / file_unique_id look like real ones (opaque base64url strings).
    return {
        "file_id": (
            "AgACAgIAAxkBAAIEq2dA7Xf1c9Wq3vJ4mZbHkT0aR1sXAAL83DEbQ7oJSlmY"
            f"Hc2Kp0JxAQADAgADeQADNgQ{n}"
        ),
        "file_unique_id": f"AQAD_NwxG0O6CUp{n}",
        "file_size": size,
        "width": width,
        "height": height,
    }


LARGE_UPDATE: dict = {
    "update_id": 731904529,
    "message": {
        "message_id": 20561,
        "from": _LARGE_USER,
        "chat": {
            "id": -1001873460219,
            "title": "Acme Platform \u2014 Releases",
            "username": "acme_platform_releases",
            "is_forum": False,
            "type": "supergroup",
        },
        "date": 1732262533,
        "text": _LARGE_TEXT,
        "entities": [
            _entity(_LARGE_TEXT, "Release 2.4 is out", "bold"),
            _entity(_LARGE_TEXT, "https://example.org/changelog/2.4", "url"),
            _entity(_LARGE_TEXT, "@oleg_qa", "mention"),
        ],
        "photo": [
            _photo_size(0, 90, 51, 1426),
            _photo_size(1, 320, 180, 17893),
            _photo_size(2, 1280, 720, 112540),
        ],
        "reply_markup": {
            "inline_keyboard": [
                [
                    {"text": "\U0001f44d Works", "callback_data": "rel:2.4:ok"},
                    {"text": "\U0001f41e Bug", "callback_data": "rel:2.4:bug"},
                    {"text": "\u2753 Question", "callback_data": "rel:2.4:q"},
                ],
                [
                    {"text": "Rollback plan", "callback_data": "rel:2.4:rollback"},
                    {"text": "Mute release notes", "callback_data": "sub:mute:releases"},
                ],
            ]
        },
    },
}

SMALL = Payload(
    "small",
    dump(SMALL_UPDATE),
    ("/start", SMALL_UPDATE["message"]["chat"]["id"], _SMALL_USER["id"]),
)
LARGE = Payload(
    "large",
    dump(LARGE_UPDATE),
    (_LARGE_TEXT, LARGE_UPDATE["message"]["chat"]["id"], _LARGE_USER["id"]),
)

PAYLOADS: dict[str, Payload] = {p.name: p for p in (SMALL, LARGE)}


if __name__ == "__main__":  # handy for eyeballing: python benchmarks/micro/payloads.py
    for p in PAYLOADS.values():
        print(f"{p.name}: {len(p.data)} bytes")
        print(p.data.decode())
