"""Which FSM records in Redis a ``RedisStorage`` cannot read: the check that makes a
layout mismatch loud.

A bot moving from aiogram must read its users' records in aiogram's layout, with the key
builder its aiogram bot used. Given another one (or tgfast's own layout), every state
and all data would silently read as empty. ``foreign_records`` samples the keys under
the prefixes the storage could share with aiogram and returns those it does not make
itself; ``RedisStorage`` runs it once, at its first read, and logs a warning naming the
builder that would read them.

aiogram's ``DefaultKeyBuilder`` joins ``prefix[:bot][:business]:chat[:thread]:user
[:destiny]:part`` (no empty part ever); tgfast's layout is ``prefix:bot:chat:user:
thread:business:destiny:part`` with empty parts for no thread or business.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..fsm.storage.base import DefaultKeyBuilder

if TYPE_CHECKING:
    from .storage import RedisStorage

__all__ = ["SCAN_BUDGET", "foreign_records", "layout_hint"]

SCAN_BUDGET = 2000
"""At most this many keys are looked at (a few SCAN calls): the check is a sample, so a
large database costs no more than a small one."""

_AIOGRAM_PREFIX = "fsm"


def _pattern(prefix: str, sep: str, builder: DefaultKeyBuilder | None) -> re.Pattern[bytes]:
    """The record keys (``state``/``data``) a layout makes under ``prefix``: ids are
    integers (a thread a positive one), a destiny or a business connection id is a
    token with something else than digits in it."""
    s = re.escape(sep)
    num, pos = r"-?\d+", r"\d+"
    first = re.escape(sep[0])
    token = rf"(?:(?!{s}).)*[^\d\-{first}](?:(?!{s}).)*"
    if builder is None:  # tgfast's: bot, chat, user, thread or "", business or "", destiny
        middle = rf"{num}:{num}:{num}:(?:{pos})?:[^:]*:[^:]+"
    else:
        middle = (
            (rf"{num}{s}" if builder.with_bot_id else "")
            + (rf"(?:{token}{s})?" if builder.with_business_connection_id else "")
            + rf"{num}{s}(?:{pos}{s})?{num}"
            + (rf"{s}{token}" if builder.with_destiny else "")
        )
    return re.compile(rf"{re.escape(prefix)}{s}{middle}{s}(?:state|data)".encode(), re.S)


def _record(key: bytes, prefix: str, sep: str) -> bool:
    """Whether ``key`` looks like any layout's record part under ``prefix``."""
    head = (prefix + sep).encode()
    return key.startswith(head) and key.endswith((f"{sep}state".encode(), f"{sep}data".encode()))


async def _sample(storage: RedisStorage, pattern: str) -> list[bytes]:
    keys: list[bytes] = []
    cursor: Any = b"0"
    while len(keys) < SCAN_BUDGET:
        cursor, batch = await storage.wire.execute("SCAN", cursor, "MATCH", pattern, "COUNT", 500)
        keys.extend(k if isinstance(k, bytes) else k.encode() for k in batch)
        if cursor in (b"0", "0", 0):
            break
    return keys[:SCAN_BUDGET]


async def foreign_records(storage: RedisStorage) -> list[str]:
    """Keys of FSM records (``...:state`` / ``...:data``) under the storage's prefix (and
    aiogram's default, ``fsm``) that this storage's layout does not name: records it
    cannot read. A custom ``KeyBuilder`` is not second-guessed (an empty list)."""
    builder = storage.key_builder
    if builder is not None and type(builder) is not DefaultKeyBuilder:
        return []
    if builder is None:
        prefix, sep = storage.key_prefix, ":"
    else:
        prefix, sep = builder.prefix, builder.separator
    found: list[str] = []
    for p in dict.fromkeys((prefix, _AIOGRAM_PREFIX)):
        s = sep if p == prefix else ":"
        ours = _pattern(p, s, builder) if p == prefix else None
        for key in await _sample(storage, f"{_glob(p)}{_glob(s)}*"):
            if _record(key, p, s) and (ours is None or ours.fullmatch(key) is None):
                found.append(key.decode(errors="replace"))
    return sorted(found)


def layout_hint(storage: RedisStorage, keys: list[str]) -> str:
    """What to tell the bot's author about ``keys``: which layout they look like and the
    ``key_builder`` that would read them."""
    shown = ", ".join(repr(k) for k in keys[:3])
    counts = sorted({len(k.split(":")) - 2 for k in keys})
    guess = {
        2: "DefaultKeyBuilder()",
        3: "DefaultKeyBuilder(with_bot_id=True) or DefaultKeyBuilder(with_destiny=True)",
        4: "DefaultKeyBuilder(with_bot_id=True, with_destiny=True)",
    }
    hints = [guess[c] for c in counts if c in guess]
    builder = "the DefaultKeyBuilder(...) the aiogram bot used"
    if hints:
        builder += f" (by their shape: {' / '.join(hints)})"
    mine = "tgfast's own layout" if storage.key_builder is None else repr(storage.key_builder)
    return (
        f"Redis FSM storage: {len(keys)} record key(s) in Redis are in a layout this "
        f"storage ({mine}) does not read, e.g. {shown}; their states and data read as "
        f"empty. If they were written by aiogram, pass key_builder= {builder}; see "
        "docs/migrating-from-aiogram.md"
    )


def _glob(text: str) -> str:
    """``text`` with Redis glob specials escaped."""
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)
