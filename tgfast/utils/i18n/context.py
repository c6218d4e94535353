"""Module-level ``gettext``/``_`` and friends: translate with the ``I18n`` of this update.

An ``I18nMiddleware`` (or ``with i18n.context():``) sets the instance; handlers then
write ``_("Hello")`` without passing it around. ``ngettext`` is ``gettext``: both take
``(singular, plural=None, n=1, locale=None)``, as in aiogram.
"""

from __future__ import annotations

from .core import I18n
from .lazy_proxy import LazyProxy

__all__ = [
    "_",
    "__",
    "get_i18n",
    "gettext",
    "lazy_gettext",
    "lazy_ngettext",
    "ngettext",
]


def get_i18n() -> I18n:
    """The ``I18n`` of this context; LookupError outside a middleware or ``i18n.context()``."""
    i18n = I18n.get_current()
    if i18n is None:
        raise LookupError(
            "no I18n in this context: set up an I18nMiddleware, or use `with i18n.context():`"
        )
    return i18n


def gettext(singular: str, plural: str | None = None, n: int = 1, locale: str | None = None) -> str:
    """``get_i18n().gettext(...)``: the text in the current locale."""
    return get_i18n().gettext(singular, plural, n, locale)


def lazy_gettext(
    singular: str, plural: str | None = None, n: int = 1, locale: str | None = None
) -> LazyProxy:
    """``gettext`` at each use, with the ``I18n`` and locale current then (filters,
    texts defined at import time)."""
    return LazyProxy(gettext, singular, plural=plural, n=n, locale=locale, enable_cache=False)


ngettext = gettext
lazy_ngettext = lazy_gettext
_ = gettext
__ = lazy_gettext
