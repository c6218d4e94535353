"""``BaseHandler``: the event, the handler data, and ``handle()`` to implement."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Generator
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, cast

if TYPE_CHECKING:
    from ..client.bot import Bot
    from ..types import Update

__all__ = ["BaseHandler", "BaseHandlerMixin"]

T = TypeVar("T")


class BaseHandlerMixin(Generic[T]):
    """What a handler class and its mixins share: ``event`` and ``data``."""

    event: T
    data: dict[str, Any]


class BaseHandler(BaseHandlerMixin[T], ABC):
    """A handler as a class: built with the event and every value of the handler data
    (``bot``, ``state``, a filter's ``command``...), then awaited: ``await handler`` is
    ``await handler.handle()``, whose return value is the handler's."""

    is_async: ClassVar[bool] = True
    """Calling the class gives something to await: the router awaits it."""

    def __init__(self, event: T, **kwargs: Any) -> None:
        self.event = event
        self.data = kwargs

    @property
    def bot(self) -> Bot:
        """The bot the event came to (``RuntimeError`` when the data has none)."""
        bot = self.data.get("bot")
        if bot is None:
            raise RuntimeError("no Bot in this handler's data")
        return bot  # type: ignore[no-any-return]

    @property
    def update(self) -> Update:
        """The update the event came in."""
        return cast("Update", self.data.get("update", self.data.get("event_update")))

    @abstractmethod
    async def handle(self) -> Any:
        """Handle ``self.event``."""

    def __await__(self) -> Generator[Any, None, Any]:
        return self.handle().__await__()
