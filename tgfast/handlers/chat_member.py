"""``ChatMemberHandler``: a class-based handler of chat member updates."""

from __future__ import annotations

from abc import ABC

from ..types import ChatMemberUpdated, User
from .base import BaseHandler

__all__ = ["ChatMemberHandler"]


class ChatMemberHandler(BaseHandler[ChatMemberUpdated], ABC):
    """``@router.chat_member()`` (or ``my_chat_member``) above a subclass."""

    @property
    def from_user(self) -> User:
        return self.event.from_user
