"""aiogram's path to the filter combinators (they live in ``tgfast.filters.base``)."""

from __future__ import annotations

from .base import and_f, invert_f, or_f

__all__ = ["and_f", "invert_f", "or_f"]
