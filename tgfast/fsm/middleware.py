"""``FSMContextMiddleware``: gives every update its FSM context, before routing.

Run as the first update outer middleware, it puts into the handler data:

- ``state``: the ``FSMContext`` of the update's record (absent when the update has
  no chat or user the strategy can key on, a poll update say);
- ``raw_state``: the current state string or None, read once per update, which the
  state filters (``Form.name``, ``StateFilter``) compare against;
- ``fsm_storage``: the storage itself.

With an ``isolation`` (``Dispatcher(events_isolation=...)``), the record's lock is
held from reading the state until the update is handled.
"""

from __future__ import annotations

from typing import Any

from ..types import Update
from ..types.update_kinds import event_of
from .context import FSMContext
from .storage.base import DEFAULT_DESTINY, BaseEventIsolation, BaseStorage, StorageKey
from .storage.memory import DisabledEventIsolation
from .strategy import FSMStrategy, apply_strategy

__all__ = ["FSMContextMiddleware"]

_TOPIC_STRATEGIES = frozenset({FSMStrategy.USER_IN_TOPIC, FSMStrategy.CHAT_TOPIC})


class FSMContextMiddleware:
    """``dp.update.outer_middleware(FSMContextMiddleware(storage))``.

    The record's key is the bot's id, then the chat, user and forum topic the
    ``strategy`` picks (see ``FSMStrategy``), and the update's business connection.
    The chat and user are the dispatcher's ``event_chat`` and ``event_from_user``,
    read per ``tgfast.types.update_kinds``: a callback query belongs to the chat
    (and topic) of the message its button is on, so a conversation started by a
    message goes on through its buttons; a poll answer or a reaction belongs to its
    ``user``.
    """

    __slots__ = ("_topics", "isolation", "storage", "strategy")

    def __init__(
        self,
        storage: BaseStorage,
        strategy: FSMStrategy = FSMStrategy.USER_IN_CHAT,
        isolation: BaseEventIsolation | None = None,
        *,
        events_isolation: BaseEventIsolation | None = None,
    ) -> None:
        if isinstance(strategy, BaseEventIsolation):  # aiogram's order: storage, isolation
            given: Any = isolation
            isolation = strategy
            strategy = given if isinstance(given, FSMStrategy) else FSMStrategy.USER_IN_CHAT
        if events_isolation is not None:  # aiogram's keyword
            isolation = events_isolation
        self.storage = storage
        self.strategy = FSMStrategy(strategy)
        self._topics = self.strategy in _TOPIC_STRATEGIES
        if isinstance(isolation, DisabledEventIsolation):
            isolation = None
        self.isolation = isolation
        """Held around each update of a record (None: no isolation)."""

    async def __call__(self, handler: Any, update: Update, data: dict[str, Any]) -> Any:
        key = self.resolve_key(
            data["bot"].id, update, data.get("event_chat"), data.get("event_from_user")
        )
        data["fsm_storage"] = self.storage
        if key is None:
            data["raw_state"] = None
            return await handler(update, data)
        data["state"] = FSMContext(self.storage, key)
        if self.isolation is None:
            data["raw_state"] = await self.storage.get_state(key)
            return await handler(update, data)
        async with self.isolation.lock(key):  # the state is read once the record is ours
            data["raw_state"] = await self.storage.get_state(key)
            return await handler(update, data)

    def resolve_key(self, bot_id: int, update: Update, chat: Any, user: Any) -> StorageKey | None:
        """The key of ``update``'s record, None when the strategy has nothing to key on.

        ``chat`` and ``user`` are the update's (``update_kinds.chat_of`` / ``user_of``:
        the dispatcher passes its ``event_chat`` and ``event_from_user``).
        """
        _kind, event = event_of(update)
        message = getattr(event, "message", None)  # a callback query's message
        thread_id = None
        if self._topics:
            source: Any = event if hasattr(event, "is_topic_message") else message
            if getattr(source, "is_topic_message", None):
                thread_id = source.message_thread_id
        business = getattr(event, "business_connection_id", None)
        if business is None and message is not None:
            business = getattr(message, "business_connection_id", None)
        ids = apply_strategy(
            self.strategy,
            None if chat is None else chat.id,
            None if user is None else user.id,
            thread_id,
        )
        if ids is None:
            return None
        return StorageKey(bot_id, ids[0], ids[1], ids[2], business)

    def resolve_context(
        self,
        bot: Any,
        chat_id: int | None,
        user_id: int | None,
        thread_id: int | None = None,
        business_connection_id: str | None = None,
        destiny: str = DEFAULT_DESTINY,
    ) -> FSMContext | None:
        """aiogram's: ``get_context``, or None when the strategy has nothing to key on."""
        if apply_strategy(self.strategy, chat_id, user_id, thread_id) is None:
            return None
        return self.get_context(
            bot, chat_id, user_id, thread_id, business_connection_id, destiny
        )  # fmt: skip

    def get_context(
        self,
        bot: Any = None,
        chat_id: int | None = None,
        user_id: int | None = None,
        thread_id: int | None = None,
        business_connection_id: str | None = None,
        destiny: str = DEFAULT_DESTINY,
        *,
        bot_id: int | None = None,
    ) -> FSMContext:
        """The context a handler would get for this chat and user, from outside a
        handler (a scheduled job, an admin command acting on another user).

        ``bot`` is the ``Bot`` (aiogram's ``get_context(bot=..., chat_id=...,
        user_id=...)``) or its id; ``bot_id=`` names the id alone."""
        if bot_id is None:
            bot_id = bot if isinstance(bot, int) else getattr(bot, "id", None)
        if not isinstance(bot_id, int):
            raise TypeError(f"get_context needs the Bot or its id, not {bot!r}")
        ids = apply_strategy(self.strategy, chat_id, user_id, thread_id)
        if ids is None:
            raise ValueError(f"strategy {self.strategy.name} needs a chat_id or user_id")
        key = StorageKey(bot_id, ids[0], ids[1], ids[2], business_connection_id, destiny)
        return FSMContext(self.storage, key)
