"""Chat actions at aiogram's path: "typing...", "sending a photo..." while a handler works.

Telegram shows a chat action for at most five seconds, so a long operation has to repeat
it. ``ChatActionSender`` is an async context manager that sends the action in a
background task, again every ``interval`` seconds, until its block ends;
``ChatActionMiddleware`` wraps every message handler in one, the action chosen by the
handler's ``@flags.chat_action(...)``.
"""

from __future__ import annotations

import asyncio
import logging
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ..dispatcher.flags import get_flag
from ..dispatcher.middleware import BaseMiddleware, Handler
from ..types import Message

if TYPE_CHECKING:
    from ..client.bot import Bot

__all__ = [
    "DEFAULT_INITIAL_SLEEP",
    "DEFAULT_INTERVAL",
    "ChatActionMiddleware",
    "ChatActionSender",
]

logger = logging.getLogger("tgfast.chat_action")

DEFAULT_INTERVAL = 5.0
"""Seconds between two actions: Telegram clears one after five seconds at most."""
DEFAULT_INITIAL_SLEEP = 0.0
"""Seconds before the first action: a quick handler may then finish without any."""


class ChatActionSender:
    """``async with ChatActionSender.typing(bot=bot, chat_id=chat_id): ...`` keeps
    "typing..." visible in the chat for as long as the block runs.

    Leaving the block (normally or by an exception) stops the repetition and waits for
    an action already on its way, so no action is sent after the block. A failed
    ``sendChatAction`` is logged and ends the repetition: the block itself goes on.
    """

    def __init__(
        self,
        *,
        bot: Bot,
        chat_id: int | str,
        message_thread_id: int | None = None,
        action: str = "typing",
        interval: float = DEFAULT_INTERVAL,
        initial_sleep: float = DEFAULT_INITIAL_SLEEP,
    ) -> None:
        self.bot = bot
        self.chat_id = chat_id
        self.message_thread_id = message_thread_id
        self.action = action
        self.interval = interval
        self.initial_sleep = initial_sleep
        self._close_event = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        """Whether the block is running (the background task exists)."""
        return self._task is not None

    async def _wait(self, seconds: float) -> None:
        """Sleep ``seconds``, or less when the block ends first."""
        if seconds > 0 and not self._close_event.is_set():
            try:
                await asyncio.wait_for(self._close_event.wait(), seconds)
            except asyncio.TimeoutError:
                pass

    async def _repeat(self) -> None:
        loop = asyncio.get_running_loop()
        await self._wait(self.initial_sleep)
        while not self._close_event.is_set():
            started = loop.time()
            try:
                await self.bot.send_chat_action(
                    chat_id=self.chat_id,
                    action=self.action,
                    message_thread_id=self.message_thread_id,
                )
            except Exception:  # a lost action must not fail the handler
                logger.warning(
                    "chat action %r to chat %s failed: no more repeats",
                    self.action,
                    self.chat_id,
                    exc_info=True,
                )
                return
            await self._wait(self.interval - (loop.time() - started))

    async def __aenter__(self) -> ChatActionSender:
        await self._run()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self._stop()

    # the start and the end of the block, by aiogram's names (tests written for it patch them)
    async def _run(self) -> None:
        if self._task is not None:
            raise RuntimeError("this ChatActionSender is already running")
        self._close_event.clear()
        self._task = asyncio.create_task(self._repeat())

    async def _stop(self) -> None:
        task, self._task = self._task, None
        if task is None:
            return
        self._close_event.set()
        # cancelling the block while it waits here cancels the task too (await propagates it)
        await task

    @classmethod
    def _with(
        cls,
        action: str,
        chat_id: int | str,
        bot: Bot,
        message_thread_id: int | None,
        interval: float,
        initial_sleep: float,
    ) -> ChatActionSender:
        return cls(
            bot=bot,
            chat_id=chat_id,
            message_thread_id=message_thread_id,
            action=action,
            interval=interval,
            initial_sleep=initial_sleep,
        )

    @classmethod
    def typing(
        cls,
        chat_id: int | str,
        bot: Bot,
        message_thread_id: int | None = None,
        interval: float = DEFAULT_INTERVAL,
        initial_sleep: float = DEFAULT_INITIAL_SLEEP,
    ) -> ChatActionSender:
        """A sender of ``typing``."""
        return cls._with("typing", chat_id, bot, message_thread_id, interval, initial_sleep)

    @classmethod
    def upload_photo(
        cls,
        chat_id: int | str,
        bot: Bot,
        message_thread_id: int | None = None,
        interval: float = DEFAULT_INTERVAL,
        initial_sleep: float = DEFAULT_INITIAL_SLEEP,
    ) -> ChatActionSender:
        """A sender of ``upload_photo``."""
        return cls._with("upload_photo", chat_id, bot, message_thread_id, interval, initial_sleep)

    @classmethod
    def record_video(
        cls,
        chat_id: int | str,
        bot: Bot,
        message_thread_id: int | None = None,
        interval: float = DEFAULT_INTERVAL,
        initial_sleep: float = DEFAULT_INITIAL_SLEEP,
    ) -> ChatActionSender:
        """A sender of ``record_video``."""
        return cls._with("record_video", chat_id, bot, message_thread_id, interval, initial_sleep)

    @classmethod
    def upload_video(
        cls,
        chat_id: int | str,
        bot: Bot,
        message_thread_id: int | None = None,
        interval: float = DEFAULT_INTERVAL,
        initial_sleep: float = DEFAULT_INITIAL_SLEEP,
    ) -> ChatActionSender:
        """A sender of ``upload_video``."""
        return cls._with("upload_video", chat_id, bot, message_thread_id, interval, initial_sleep)

    @classmethod
    def record_voice(
        cls,
        chat_id: int | str,
        bot: Bot,
        message_thread_id: int | None = None,
        interval: float = DEFAULT_INTERVAL,
        initial_sleep: float = DEFAULT_INITIAL_SLEEP,
    ) -> ChatActionSender:
        """A sender of ``record_voice``."""
        return cls._with("record_voice", chat_id, bot, message_thread_id, interval, initial_sleep)

    @classmethod
    def upload_voice(
        cls,
        chat_id: int | str,
        bot: Bot,
        message_thread_id: int | None = None,
        interval: float = DEFAULT_INTERVAL,
        initial_sleep: float = DEFAULT_INITIAL_SLEEP,
    ) -> ChatActionSender:
        """A sender of ``upload_voice``."""
        return cls._with("upload_voice", chat_id, bot, message_thread_id, interval, initial_sleep)

    @classmethod
    def upload_document(
        cls,
        chat_id: int | str,
        bot: Bot,
        message_thread_id: int | None = None,
        interval: float = DEFAULT_INTERVAL,
        initial_sleep: float = DEFAULT_INITIAL_SLEEP,
    ) -> ChatActionSender:
        """A sender of ``upload_document``."""
        return cls._with(
            "upload_document", chat_id, bot, message_thread_id, interval, initial_sleep
        )

    @classmethod
    def choose_sticker(
        cls,
        chat_id: int | str,
        bot: Bot,
        message_thread_id: int | None = None,
        interval: float = DEFAULT_INTERVAL,
        initial_sleep: float = DEFAULT_INITIAL_SLEEP,
    ) -> ChatActionSender:
        """A sender of ``choose_sticker``."""
        return cls._with("choose_sticker", chat_id, bot, message_thread_id, interval, initial_sleep)

    @classmethod
    def find_location(
        cls,
        chat_id: int | str,
        bot: Bot,
        message_thread_id: int | None = None,
        interval: float = DEFAULT_INTERVAL,
        initial_sleep: float = DEFAULT_INITIAL_SLEEP,
    ) -> ChatActionSender:
        """A sender of ``find_location``."""
        return cls._with("find_location", chat_id, bot, message_thread_id, interval, initial_sleep)

    @classmethod
    def record_video_note(
        cls,
        chat_id: int | str,
        bot: Bot,
        message_thread_id: int | None = None,
        interval: float = DEFAULT_INTERVAL,
        initial_sleep: float = DEFAULT_INITIAL_SLEEP,
    ) -> ChatActionSender:
        """A sender of ``record_video_note``."""
        return cls._with(
            "record_video_note", chat_id, bot, message_thread_id, interval, initial_sleep
        )

    @classmethod
    def upload_video_note(
        cls,
        chat_id: int | str,
        bot: Bot,
        message_thread_id: int | None = None,
        interval: float = DEFAULT_INTERVAL,
        initial_sleep: float = DEFAULT_INITIAL_SLEEP,
    ) -> ChatActionSender:
        """A sender of ``upload_video_note``."""
        return cls._with(
            "upload_video_note", chat_id, bot, message_thread_id, interval, initial_sleep
        )


class ChatActionMiddleware(BaseMiddleware):
    """An inner message middleware: each message handler runs inside a ``ChatActionSender``.

    The handler's ``chat_action`` flag picks the action: absent or ``True``, "typing"; a
    string, that action; keyword arguments (``@flags.chat_action(action=..., interval=...,
    initial_sleep=...)``), those settings. In a forum topic the action goes to the topic.
    Events other than messages pass through untouched.
    """

    async def __call__(self, handler: Handler, event: Any, data: dict[str, Any]) -> Any:
        if not isinstance(event, Message):
            return await handler(event, data)
        flag = get_flag(data, "chat_action") or "typing"
        settings: dict[str, Any] = {}
        if isinstance(flag, dict):
            # falsy values mean "the default", as in aiogram
            for key in ("action", "interval", "initial_sleep"):
                if flag.get(key):
                    settings[key] = flag[key]
        elif isinstance(flag, bool):
            settings["action"] = "typing"
        else:
            settings["action"] = flag
        thread = event.message_thread_id if event.is_topic_message else None
        async with ChatActionSender(
            bot=data["bot"], chat_id=event.chat.id, message_thread_id=thread, **settings
        ):
            return await handler(event, data)
