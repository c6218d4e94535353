"""Callback answers at aiogram's path: every callback query answered once, automatically.

Telegram keeps a button's spinner turning until the bot calls ``answerCallbackQuery``;
a bot with many callback handlers forgets it somewhere. ``CallbackAnswerMiddleware``
answers each query for its handler: after it (the default, so the handler can still
choose the text) or before it (``pre=True``, the spinner stops at once). The handler
receives the pending answer as ``callback_answer`` and may change it or ``disable()`` it;
``@flags.callback_answer(...)`` sets it per handler.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import Any

from ..dispatcher.flags import get_flag
from ..dispatcher.middleware import BaseMiddleware, Handler
from ..errors import CallbackAnswerException
from ..types import CallbackQuery

__all__ = ["CallbackAnswer", "CallbackAnswerException", "CallbackAnswerMiddleware"]

logger = logging.getLogger("tgfast.callback_answer")


class CallbackAnswer:
    """The answer the middleware will send (handed to the handler as ``callback_answer``).

    Its fields can change until it is sent; changing one afterwards raises
    ``CallbackAnswerException``, since Telegram takes one answer per query.
    """

    __slots__ = ("_answered", "_cache_time", "_disabled", "_show_alert", "_text", "_url")

    def __init__(
        self,
        answered: bool,
        disabled: bool = False,
        text: str | None = None,
        show_alert: bool | None = None,
        url: str | None = None,
        cache_time: int | None = None,
    ) -> None:
        self._answered = answered
        self._disabled = disabled
        self._text = text
        self._show_alert = show_alert
        self._url = url
        self._cache_time = cache_time

    def _check(self, field: str) -> None:
        if self._answered:
            raise CallbackAnswerException(f"the callback query is answered: {field} is final")

    def disable(self) -> None:
        """Do not answer automatically (the handler answers itself, or never)."""
        self.disabled = True

    @property
    def answered(self) -> bool:
        """Whether the answer was sent (before the handler, with ``pre``)."""
        return self._answered

    @property
    def disabled(self) -> bool:
        """Whether the automatic answer is off for this query."""
        return self._disabled

    @disabled.setter
    def disabled(self, value: bool) -> None:
        self._check("disabled")
        self._disabled = value

    @property
    def text(self) -> str | None:
        """The notification shown to the user (none when None)."""
        return self._text

    @text.setter
    def text(self, value: str | None) -> None:
        self._check("text")
        self._text = value

    @property
    def show_alert(self) -> bool | None:
        """Show the text as an alert to dismiss instead of a notification."""
        return self._show_alert

    @show_alert.setter
    def show_alert(self, value: bool | None) -> None:
        self._check("show_alert")
        self._show_alert = value

    @property
    def url(self) -> str | None:
        """A URL the client opens (a game, or ``t.me/bot?start=...``)."""
        return self._url

    @url.setter
    def url(self, value: str | None) -> None:
        self._check("url")
        self._url = value

    @property
    def cache_time(self) -> int | None:
        """Seconds the client may cache this answer."""
        return self._cache_time

    @cache_time.setter
    def cache_time(self, value: int | None) -> None:
        self._check("cache_time")
        self._cache_time = value

    def __str__(self) -> str:
        fields = {
            "answered": self._answered,
            "disabled": self._disabled,
            "text": self._text,
            "show_alert": self._show_alert,
            "url": self._url,
            "cache_time": self._cache_time,
        }
        shown = ", ".join(f"{k}={v!r}" for k, v in fields.items() if v is not None)
        return f"{type(self).__name__}({shown})"

    __repr__ = __str__


class CallbackAnswerMiddleware(BaseMiddleware):
    """An inner callback-query middleware that answers each query once.

    The arguments are the defaults; a handler's ``callback_answer`` flag (keyword
    arguments: ``pre``, ``disabled``, ``text``, ``show_alert``, ``url``, ``cache_time``)
    overrides them. Without ``pre`` the answer is sent when the handler returns or
    raises (the spinner stops either way; the error still propagates).
    """

    def __init__(
        self,
        pre: bool = False,
        text: str | None = None,
        show_alert: bool | None = None,
        url: str | None = None,
        cache_time: int | None = None,
    ) -> None:
        self.pre = pre
        self.text = text
        self.show_alert = show_alert
        self.url = url
        self.cache_time = cache_time

    async def __call__(self, handler: Handler, event: Any, data: dict[str, Any]) -> Any:
        if not isinstance(event, CallbackQuery):
            return await handler(event, data)
        answer = self.construct_callback_answer(properties=get_flag(data, "callback_answer"))
        data["callback_answer"] = answer
        if answer.answered and not answer.disabled:
            await self.answer(event, answer)
        try:
            return await handler(event, data)
        finally:
            if not answer.answered and not answer.disabled:
                await self.answer(event, answer)
                answer._answered = True

    def construct_callback_answer(self, properties: dict[str, Any] | bool | None) -> CallbackAnswer:
        """This middleware's defaults, overridden by a handler's flag (a dict of fields)."""
        given = properties if isinstance(properties, dict) else {}
        return CallbackAnswer(
            answered=given.get("pre", self.pre),
            disabled=given.get("disabled", False),
            text=given.get("text", self.text),
            show_alert=given.get("show_alert", self.show_alert),
            url=given.get("url", self.url),
            cache_time=given.get("cache_time", self.cache_time),
        )

    def answer(self, event: CallbackQuery, callback_answer: CallbackAnswer) -> Awaitable[Any]:
        """The ``answerCallbackQuery`` call for ``event`` (override to log or change it)."""
        logger.debug("answering callback query %s", event.id)
        return event.answer(
            text=callback_answer.text,
            show_alert=callback_answer.show_alert,
            url=callback_answer.url,
            cache_time=callback_answer.cache_time,
        )
