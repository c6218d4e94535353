"""aiogram's path to the filter combinators (they live in ``tgfast.filters.base``).

``_AndFilter``, ``_OrFilter`` and ``_InvertFilter`` are aiogram's names for the classes
of what the combinators build (tests check ``isinstance`` against them).
"""

from __future__ import annotations

from .base import _And as _AndFilter  # noqa: F401
from .base import _Invert as _InvertFilter  # noqa: F401
from .base import _Or as _OrFilter  # noqa: F401
from .base import and_f, invert_f, or_f

__all__ = ["and_f", "invert_f", "or_f"]
