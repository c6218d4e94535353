"""``UserContextMiddleware`` and ``EventContext``: the chat, user, topic and business
connection an update belongs to, as aiogram's middleware puts them in the data.

tgfast's dispatcher puts ``event_from_user`` and ``event_chat`` in every handler's data
itself, read by the routing table only when something asks. This middleware is for
code that wants aiogram's whole context (``event_context``, ``event_thread_id``,
``event_business_connection_id``): register it on the dispatcher
(``dp.update.outer_middleware(UserContextMiddleware())``), or call
``UserContextMiddleware.resolve_event_context(update)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...types import Chat, Update, User
from ...types.update_kinds import CHAT_READERS, USER_READERS, event_of
from ..middleware import BaseMiddleware, Handler

__all__ = ["EVENT_CONTEXT_KEY", "EventContext", "UserContextMiddleware"]

EVENT_CONTEXT_KEY = "event_context"
"""Where the middleware puts the ``EventContext`` in the data."""

_TOPIC_KINDS = frozenset(
    {"message", "edited_message", "business_message", "edited_business_message"}
)


@dataclass(frozen=True)
class EventContext:
    """The chat, user, topic and business connection of one update (None: it has none)."""

    chat: Chat | None = None
    user: User | None = None
    thread_id: int | None = None
    business_connection_id: str | None = None

    @property
    def user_id(self) -> int | None:
        return None if self.user is None else self.user.id

    @property
    def chat_id(self) -> int | None:
        return None if self.chat is None else self.chat.id


class UserContextMiddleware(BaseMiddleware):
    """An update middleware putting the ``EventContext`` of each update in the data, as
    ``event_context``, and its parts as ``event_chat``, ``event_from_user``,
    ``event_thread_id`` and ``event_business_connection_id``."""

    async def __call__(self, handler: Handler, event: Any, data: dict[str, Any]) -> Any:
        if not isinstance(event, Update):
            raise RuntimeError(
                f"UserContextMiddleware is an update middleware: it got a "
                f"{type(event).__name__}, not an Update (dp.update.outer_middleware(...))"
            )
        context = self.resolve_event_context(event)
        data[EVENT_CONTEXT_KEY] = context
        data["event_chat"] = context.chat
        data["event_from_user"] = context.user
        data["event_thread_id"] = context.thread_id
        if context.business_connection_id is not None:
            data["event_business_connection_id"] = context.business_connection_id
        return await handler(event, data)

    @classmethod
    def resolve_event_context(cls, event: Update) -> EventContext:
        """The context of ``event``: its chat and user as the dispatcher reads them; the
        topic of a topic message (or of the message a callback query is on); the
        business connection of a business update. A boost's user is its booster's,
        known only for a Premium boost."""
        kind, inner = event_of(event)
        if inner is None:
            return EventContext()
        chat_reader, user_reader = CHAT_READERS.get(kind), USER_READERS.get(kind)
        chat = None if chat_reader is None else chat_reader(inner)
        user = None if user_reader is None else user_reader(inner)
        if kind == "chat_boost":
            source = inner.boost.source
            if getattr(source, "source", None) == "premium":
                user = source.user
        message = inner if kind in _TOPIC_KINDS else None
        if kind == "callback_query":
            message = getattr(inner, "message", None)
        thread_id = None
        if message is not None and getattr(message, "is_topic_message", None):
            thread_id = message.message_thread_id
        business = getattr(inner, "business_connection_id", None)
        if kind == "business_connection":
            business = inner.id
        return EventContext(chat, user, thread_id, business)
