"""aiogram's ``aiogram.utils.warnings`` path: tgfast's warnings, from ``tgfast.errors``
(``AiogramWarning`` is ``TgfastWarning``)."""

from __future__ import annotations

from ..errors import Recommendation, TgfastWarning

AiogramWarning = TgfastWarning

__all__ = ["AiogramWarning", "Recommendation", "TgfastWarning"]
