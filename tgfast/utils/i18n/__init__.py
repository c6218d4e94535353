"""Translations at aiogram's path: gettext catalogues, ``_``/``__`` and locale middlewares.

``I18n(path="locales")`` reads the ``.mo`` catalogues ``pybabel compile`` writes; a
middleware picks each update's locale; handlers write ``_("Hello")`` and filters
``F.text == __("Menu")``. Babel is needed to extract and compile catalogues, not to run.
"""

from __future__ import annotations

from .context import _, __, get_i18n, gettext, lazy_gettext, lazy_ngettext, ngettext
from .core import I18n
from .lazy_proxy import LazyProxy
from .middleware import (
    ConstI18nMiddleware,
    FSMI18nMiddleware,
    I18nMiddleware,
    SimpleI18nMiddleware,
)

__all__ = [
    "ConstI18nMiddleware",
    "FSMI18nMiddleware",
    "I18n",
    "I18nMiddleware",
    "LazyProxy",
    "SimpleI18nMiddleware",
    "_",
    "__",
    "get_i18n",
    "gettext",
    "lazy_gettext",
    "lazy_ngettext",
    "ngettext",
]
