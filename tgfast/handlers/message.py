"""``MessageHandler`` (and the mixin that gives it the matched ``command``)."""

from __future__ import annotations

from abc import ABC
from typing import TYPE_CHECKING

from ..types import Chat, Message, User
from .base import BaseHandler, BaseHandlerMixin

if TYPE_CHECKING:
    from ..filters import CommandObject

__all__ = ["MessageHandler", "MessageHandlerCommandMixin"]


class MessageHandler(BaseHandler[Message], ABC):
    """``@router.message()`` above a subclass that implements ``handle``."""

    @property
    def from_user(self) -> User | None:
        return self.event.from_user

    @property
    def chat(self) -> Chat:
        return self.event.chat


class MessageHandlerCommandMixin(BaseHandlerMixin[Message]):
    """``command``: what a ``Command`` filter matched, or None."""

    @property
    def command(self) -> CommandObject | None:
        return self.data.get("command")
