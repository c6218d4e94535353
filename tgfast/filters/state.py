"""aiogram's path to ``StateFilter`` (it lives in ``tgfast.fsm.filter``)."""

from __future__ import annotations

from ..fsm.filter import StateFilter

__all__ = ["StateFilter"]
