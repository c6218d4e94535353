"""aiogram's ``aiogram.utils.magic_filter`` path: ``MagicFilter``, the class of ``F``
(``F.text.regexp(...).as_("match")``), which tgfast keeps in ``tgfast.filters.magic``."""

from __future__ import annotations

from ..filters.magic import MagicFilter

__all__ = ["MagicFilter"]
