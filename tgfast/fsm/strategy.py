"""Whose conversation an update belongs to: the FSM key strategies."""

from __future__ import annotations

from enum import Enum

__all__ = ["FSMStrategy", "apply_strategy"]


class FSMStrategy(str, Enum):
    """Which parts of an update pick its FSM record.

    - ``USER_IN_CHAT`` (default): each user has a state of their own in each chat;
    - ``CHAT``: one state per chat, shared by everyone in it;
    - ``GLOBAL_USER``: one state per user, whichever chat they write in;
    - ``USER_IN_TOPIC``: each user, per forum topic of each chat;
    - ``CHAT_TOPIC``: one state per forum topic, shared by everyone in it.
    """

    USER_IN_CHAT = "user_in_chat"
    CHAT = "chat"
    GLOBAL_USER = "global_user"
    USER_IN_TOPIC = "user_in_topic"
    CHAT_TOPIC = "chat_topic"


def apply_strategy(
    strategy: FSMStrategy,
    chat_id: int | None,
    user_id: int | None,
    thread_id: int | None = None,
) -> tuple[int, int, int | None] | None:
    """``(chat_id, user_id, thread_id)`` of the record, or None when the update lacks
    what the strategy keys on.

    Strategies keyed on the user need a user; a missing chat (an inline query) is
    then the user's private chat. Strategies keyed on the chat need a chat only, so a
    channel post (no user) still has a record under ``CHAT``.
    """
    if strategy is FSMStrategy.USER_IN_CHAT:
        if user_id is None:
            return None
        return (user_id if chat_id is None else chat_id), user_id, None
    if strategy is FSMStrategy.CHAT:
        return None if chat_id is None else (chat_id, chat_id, None)
    if strategy is FSMStrategy.GLOBAL_USER:
        return None if user_id is None else (user_id, user_id, None)
    if strategy is FSMStrategy.USER_IN_TOPIC:
        if user_id is None:
            return None
        return (user_id if chat_id is None else chat_id), user_id, thread_id
    if strategy is FSMStrategy.CHAT_TOPIC:
        return None if chat_id is None else (chat_id, chat_id, thread_id)
    raise ValueError(f"unknown FSM strategy {strategy!r}")
