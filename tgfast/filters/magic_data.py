"""``MagicData``: a magic filter over the handler's data instead of the event."""

from __future__ import annotations

from typing import Any

from .base import Filter, sync_twin
from .magic import MagicFilter

__all__ = ["MagicData"]


class _Data(dict[Any, Any]):
    """The data with keys readable as attributes, for the magic chain to walk."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


class MagicData(Filter):
    """``MagicData(F.event.from_user.id == F.config.admin_id)``: ``F`` is the data
    (workflow data, what middlewares and earlier filters added) with the event as
    ``event``; passes as the expression does."""

    __slots__ = ("magic_data",)

    def __init__(self, magic_data: MagicFilter) -> None:
        if not isinstance(magic_data, MagicFilter):
            raise TypeError(f"MagicData takes a magic filter (F...), not {magic_data!r}")
        self.magic_data = magic_data

    def check(self, event: Any, /, **data: Any) -> bool | dict[str, Any]:
        return self.magic_data.check(_Data({**data, "event": event}))

    @sync_twin
    async def __call__(self, event: Any, /, *args: Any, **data: Any) -> bool | dict[str, Any]:
        """As aiogram: extra positional arguments are in the data under 0, 1, ..."""
        values: dict[Any, Any] = dict(enumerate(args))
        values.update(data, event=event)
        return self.magic_data.check(_Data(values))

    def __repr__(self) -> str:
        return f"MagicData(magic_data={self.magic_data!r})"
