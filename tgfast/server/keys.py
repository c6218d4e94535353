"""Which kind an update is and which chat it belongs to: the unit of ordering.

Updates that share a key are handled one after the other, in arrival order; updates
with different keys run concurrently. The key is the chat where that makes sense
(messages, member changes, join requests, reactions, boosts, callback queries on a
message) and the user otherwise (inline queries, payments, callback queries on an
inline message): a user's private chat has the user's id, so both order together.
Updates tied to neither (``poll``) get ``None`` and are never held back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..types import Update

__all__ = ["UNKNOWN_KIND", "update_key", "update_kinds"]

UNKNOWN_KIND = "unknown"
"""The kind of an update with none of the fields this version knows (a newer Bot API)."""

_KINDS: tuple[str, ...] = tuple(attr for _key, attr, _tp, _req in Update.__tg_fields__[1:])


def update_kinds() -> tuple[str, ...]:
    """Every update kind this version knows, in the order of ``Update``'s fields."""
    return _KINDS


def _by_chat(event: Any) -> int:
    return event.chat.id  # type: ignore[no-any-return]


def _by_message_or_user(event: Any) -> int:
    message = event.message
    return message.chat.id if message is not None else event.from_user.id  # type: ignore[no-any-return]


def _by_voter(event: Any) -> int | None:
    voter = event.voter_chat or event.user
    return voter.id if voter is not None else None


def _by_user_chat(event: Any) -> int:
    return event.user_chat_id  # type: ignore[no-any-return]


def _generic(event: Any) -> int | None:
    """A kind added after this version was generated: chat, else user, else nothing."""
    for attr in ("chat", "from_user", "user"):
        holder = getattr(event, attr, None)
        if holder is not None:
            return getattr(holder, "id", None)
    return None


def _no_key(event: Any) -> None:
    return None


_SPECIAL: dict[str, Callable[[Any], int | None]] = {
    "callback_query": _by_message_or_user,
    "poll_answer": _by_voter,
    "business_connection": _by_user_chat,
    "poll": _no_key,
}


def _key_function(kind: str) -> Callable[[Any], int | None]:
    special = _SPECIAL.get(kind)
    if special is not None:
        return special
    slots = getattr(_event_type(kind), "__slots__", ())
    if "chat" in slots:
        return _by_chat
    return _generic


def _event_type(kind: str) -> type | None:
    from .. import types

    for _key, attr, tp, _req in Update.__tg_fields__:
        if attr == kind:
            return getattr(types, tp, None)
    return None


_KEYS: dict[str, Callable[[Any], int | None]] = {kind: _key_function(kind) for kind in _KINDS}


def update_key(update: Update) -> tuple[str, int | None]:
    """``(kind, ordering key)`` of an update; ``("unknown", None)`` for a kind not known."""
    for kind in _KINDS:
        event = getattr(update, kind)
        if event is not None:
            return kind, _KEYS[kind](event)
    return UNKNOWN_KIND, None
