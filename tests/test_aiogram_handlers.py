"""aiogram's names a ported bot (and its tests) reach for: class-based handlers
(``tgfast.handlers``), ``tgfast.utils.backoff``, ``NextMiddlewareType``, the enums beside a
type's module; and a name tgfast lacks behaves as Python expects of a missing attribute
while its import statement still says why."""

from __future__ import annotations

import asyncio
from typing import Any
from unittest.mock import AsyncMock

import pytest

from tgfast import Bot, Dispatcher, F
from tgfast.dispatcher.middlewares.base import BaseMiddleware, NextMiddlewareType
from tgfast.filters import Command
from tgfast.handlers import (
    BaseHandler,
    CallbackQueryHandler,
    ErrorHandler,
    MessageHandler,
    MessageHandlerCommandMixin,
)
from tgfast.testing import updates
from tgfast.types import Message, Update
from tgfast.utils.backoff import Backoff, BackoffConfig


def message_update(text: str) -> Update:
    return updates.decoded(updates.update(message=updates.message(text)))


async def test_class_based_handlers_are_built_per_event_and_awaited() -> None:
    dp = Dispatcher()
    seen: list[Any] = []

    @dp.message(Command("start"))
    class Start(MessageHandlerCommandMixin, MessageHandler):
        async def handle(self) -> str:
            assert self.command is not None
            seen.append((self.command.args, self.chat.id, self.from_user, self.bot))
            return "started"

    @dp.message(F.text == "boom")
    class Boom(MessageHandler):
        async def handle(self) -> None:
            raise KeyError("kaboom")

    @dp.error()
    class Errors(ErrorHandler):
        async def handle(self) -> str:
            seen.append((self.exception_name, self.exception_message, self.update.update_id))
            return "handled"

    bot = Bot("42:TEST")
    update = message_update("/start now")
    assert await dp.feed_update(bot, update) == "started"
    assert seen == [("now", 1, update.message.from_user, bot)]  # type: ignore[union-attr]
    boom = message_update("boom")
    await dp.feed_update(bot, boom)
    assert seen[-1] == ("KeyError", "'kaboom'", boom.update_id)
    await bot.session.close()


async def test_a_handler_object_outside_a_router() -> None:
    class Answer(BaseHandler[Message]):
        async def handle(self) -> int:
            await asyncio.sleep(0)
            return 42

    event = message_update("hi").message
    handler = Answer(event, key=1)
    assert handler.event is event and handler.data == {"key": 1}
    assert await handler == 42
    with pytest.raises(RuntimeError, match="no Bot"):
        handler.bot  # noqa: B018
    with pytest.raises(TypeError, match="handle"):
        CallbackQueryHandler(event)  # type: ignore[abstract]


def test_aiogram_backoff_gives_growing_capped_delays() -> None:
    backoff = Backoff(BackoffConfig(min_delay=0.1, max_delay=1.0, factor=2.0, jitter=0.0))
    assert iter(backoff) is backoff and backoff.next_delay == 0.1
    delays = [next(backoff) for _ in range(7)]
    assert delays == pytest.approx([0.1, 0.2, 0.4, 0.8, 1.0, 1.0, 1.0])
    assert backoff.counter == 7 and backoff.current_delay == 1.0
    backoff.reset()
    assert (backoff.counter, backoff.current_delay, backoff.next_delay) == (0, 0.0, 0.1)
    for bad in ({"min_delay": 1.0, "max_delay": 1.0}, {"factor": 1.0}):
        with pytest.raises(ValueError):
            BackoffConfig(
                **{"min_delay": 1.0, "max_delay": 2.0, "factor": 2.0, "jitter": 0.1, **bad}
            )


async def test_a_middleware_typed_with_next_middleware_type() -> None:
    class Tag(BaseMiddleware):
        async def __call__(
            self, handler: NextMiddlewareType[Message], event: Message, data: dict[str, Any]
        ) -> Any:
            data["tag"] = "yes"
            return await handler(event, data)

    handler = AsyncMock(spec=NextMiddlewareType, return_value="done")
    event = message_update("hi").message
    assert await Tag()(handler, event, {}) == "done"
    handler.assert_awaited_once_with(event, {"tag": "yes"})


def test_a_type_module_gives_the_names_beside_it() -> None:
    import tgfast.types.message
    from tgfast.enums import ContentType as Enum
    from tgfast.types.message import ContentType
    from tgfast.types.message import Message as Same

    assert ContentType is Enum and Same is Message
    assert not hasattr(tgfast.types.message, "NoSuchName")


def test_an_absent_name_is_a_missing_attribute_that_says_why() -> None:
    import tgfast.enums
    import tgfast.types

    assert not hasattr(tgfast.types, "Downloadable")
    assert getattr(tgfast.types, "Downloadable", None) is None
    with pytest.raises(AttributeError, match="Downloadable: aiogram's protocol"):
        tgfast.types.Downloadable  # noqa: B018
    with pytest.raises(ImportError, match="Downloadable: aiogram's protocol"):
        from tgfast.types import Downloadable  # noqa: F401
    namespace: dict[str, Any] = {}
    with pytest.raises(ImportError, match="Downloadable: aiogram"):  # inside a function too
        exec("def f():\n    from tgfast.types import Downloadable\nf()", namespace)
    with pytest.raises(ImportError, match="cannot import name 'NoSuchName'"):
        exec("from tgfast.types import NoSuchName", namespace)  # not listed: Python's own
    assert not hasattr(tgfast.enums, "NoSuchName")


async def test_aiogram_handler_objects_for_calling_a_middleware_in_a_test() -> None:
    from tgfast.dispatcher.event.handler import CallableObject, FilterObject, HandlerObject
    from tgfast.dispatcher.flags import get_flag

    async def handler(message: Message, bot: Bot) -> str:
        return "done"

    # a test hands a middleware the handler its data would hold
    data = {"handler": HandlerObject(callback=handler, flags={"chat_action": "typing"})}
    assert get_flag(data, "chat_action") == "typing"
    call = CallableObject(handler)
    assert call.awaitable and call.params == {"message", "bot"} and not call.varkw
    assert await call.call(None, bot=1, other=2) == "done"  # only what it declares
    check = FilterObject(F.text == "hi")
    assert await check.call(message_update("hi").message) is True
    assert not await check.call(message_update("no").message)


def test_magic_filter_as_keeps_falsy_values_and_is_at_aiogram_s_path() -> None:
    from tgfast.filters.magic import MagicFilter as Ours
    from tgfast.utils.magic_filter import MagicFilter

    assert MagicFilter is Ours and isinstance(F, MagicFilter)
    assert F.cast(int).as_("value").resolve("0") == {"value": 0}  # 0 is a value
    assert F.as_("value").resolve([]) is None  # an empty collection is not
    assert F.as_("value").resolve(None) is None
