"""``PollHandler``: a class-based handler of poll updates."""

from __future__ import annotations

from abc import ABC

from ..types import Poll, PollOption
from .base import BaseHandler

__all__ = ["PollHandler"]


class PollHandler(BaseHandler[Poll], ABC):
    """``@router.poll()`` above a subclass."""

    @property
    def question(self) -> str:
        return self.event.question

    @property
    def options(self) -> list[PollOption]:
        return self.event.options
