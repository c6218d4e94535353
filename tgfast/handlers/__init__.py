"""Class-based handlers (aiogram's ``aiogram.handlers``): a class registered as a handler
(``@router.message()`` above ``class Echo(MessageHandler)``) is built for each event
with the event and the handler data, and its ``handle()`` is awaited."""

from __future__ import annotations

from .base import BaseHandler, BaseHandlerMixin
from .callback_query import CallbackQueryHandler
from .chat_member import ChatMemberHandler
from .chosen_inline_result import ChosenInlineResultHandler
from .error import ErrorHandler
from .inline_query import InlineQueryHandler
from .message import MessageHandler, MessageHandlerCommandMixin
from .poll import PollHandler
from .pre_checkout_query import PreCheckoutQueryHandler
from .shipping_query import ShippingQueryHandler

__all__ = [
    "BaseHandler",
    "BaseHandlerMixin",
    "CallbackQueryHandler",
    "ChatMemberHandler",
    "ChosenInlineResultHandler",
    "ErrorHandler",
    "InlineQueryHandler",
    "MessageHandler",
    "MessageHandlerCommandMixin",
    "PollHandler",
    "PreCheckoutQueryHandler",
    "ShippingQueryHandler",
]
