"""Which kind an update is and which chat it belongs to: the unit of ordering.

Updates that share a key are handled one after the other, in arrival order; updates
with different keys run concurrently. The key is the chat where that makes sense
(messages, member changes, join requests, reactions, boosts, callback queries on a
message) and the user otherwise (inline queries, payments, callback queries on an
inline message): a user's private chat has the user's id, so both order together.
Updates tied to neither (``poll``) get ``None`` and are never held back. Which chat
and which user: ``tgfast.types.update_kinds``, the vocabulary the dispatcher and the
FSM read too.
"""

from __future__ import annotations

from ..types import Update
from ..types.update_kinds import KEY_READERS, UNKNOWN_KIND, UPDATE_KINDS

__all__ = ["UNKNOWN_KIND", "update_key", "update_kinds"]


def update_kinds() -> tuple[str, ...]:
    """Every update kind this version knows, in the order of ``Update``'s fields."""
    return UPDATE_KINDS


def update_key(update: Update) -> tuple[str, int | None]:
    """``(kind, ordering key)`` of an update; ``("unknown", None)`` for a kind not known."""
    for kind in UPDATE_KINDS:  # "message" first: one lookup for most updates
        event = getattr(update, kind)
        if event is not None:
            return kind, KEY_READERS[kind](event)
    return UNKNOWN_KIND, None
