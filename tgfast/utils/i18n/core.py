"""``I18n``: the compiled gettext catalogues of one bot and the locale of this update.

Catalogues are the ``.mo`` files ``pybabel compile`` writes, one a locale at
``<path>/<locale>/LC_MESSAGES/<domain>.mo``; they are read once, at construction. The
current locale lives in a context variable, so concurrent updates (each in its own
task) each see their own user's locale.
"""

from __future__ import annotations

import gettext as _gettext
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from pathlib import Path
from typing import ClassVar, Literal, overload

from .lazy_proxy import LazyProxy

__all__ = ["I18n"]


class I18n:
    """Translations for ``default_locale`` and the locales found under ``path``.

    A message with no translation in the locale (or a locale with no catalogue) is
    returned as written in the source: the source language needs no catalogue.
    """

    _current: ClassVar[ContextVar[I18n]] = ContextVar("tgfast_i18n_current")

    def __init__(
        self, *, path: str | Path, default_locale: str = "en", domain: str = "messages"
    ) -> None:
        self.path = Path(path).resolve()
        self.default_locale = default_locale
        self.domain = domain
        self.ctx_locale: ContextVar[str] = ContextVar("tgfast_i18n_locale", default=default_locale)
        self.locales = self.find_locales()

    # -- which I18n and which locale this update uses ------------------------------------

    @classmethod
    def set_current(cls, value: I18n) -> Token[I18n]:
        """Make ``value`` the instance module-level ``gettext`` uses in this context."""
        if not isinstance(value, cls):
            raise TypeError(f"set_current() takes an {cls.__name__}, not {type(value).__name__}")
        return cls._current.set(value)

    @classmethod
    def reset_current(cls, token: Token[I18n]) -> None:
        """Undo the ``set_current`` that returned ``token``."""
        cls._current.reset(token)

    @overload
    @classmethod
    def get_current(cls, no_error: Literal[True] = ...) -> I18n | None: ...

    @overload
    @classmethod
    def get_current(cls, no_error: Literal[False]) -> I18n: ...

    @classmethod
    def get_current(cls, no_error: bool = True) -> I18n | None:
        """The instance set for this context (None, or LookupError with ``no_error=False``)."""
        if no_error:
            return cls._current.get(None)
        return cls._current.get()

    @property
    def current_locale(self) -> str:
        """The locale of this context (``default_locale`` unless a middleware set one)."""
        return self.ctx_locale.get()

    @current_locale.setter
    def current_locale(self, value: str) -> None:
        self.ctx_locale.set(value)

    @contextmanager
    def use_locale(self, locale: str) -> Iterator[None]:
        """Translate into ``locale`` inside the block."""
        token = self.ctx_locale.set(locale)
        try:
            yield
        finally:
            self.ctx_locale.reset(token)

    @contextmanager
    def context(self) -> Iterator[I18n]:
        """Make this instance the one module-level ``gettext``/``_`` use inside the block."""
        token = self.set_current(self)
        try:
            yield self
        finally:
            self.reset_current(token)

    # -- catalogues ----------------------------------------------------------------------

    def find_locales(self) -> dict[str, _gettext.GNUTranslations]:
        """Read every ``<locale>/LC_MESSAGES/<domain>.mo`` under ``path``.

        A locale with a ``.po`` but no ``.mo`` is an error: it was not compiled, and
        silently serving the source language would hide that.
        """
        translations: dict[str, _gettext.GNUTranslations] = {}
        for directory in sorted(self.path.iterdir()):
            if not directory.is_dir():
                continue
            mo = directory / "LC_MESSAGES" / f"{self.domain}.mo"
            if mo.exists():
                with mo.open("rb") as fp:
                    translations[directory.name] = _gettext.GNUTranslations(fp)
            elif mo.with_suffix(".po").exists():
                raise RuntimeError(
                    f"locale {directory.name!r} has {mo.with_suffix('.po')} but no .mo: "
                    f"run `pybabel compile -d {self.path} -D {self.domain}`"
                )
        return translations

    def reload(self) -> None:
        """Read the catalogues again (after ``pybabel compile``, without a restart)."""
        self.locales = self.find_locales()

    @property
    def available_locales(self) -> tuple[str, ...]:
        """The locales that have a catalogue."""
        return tuple(self.locales)

    # -- translating ---------------------------------------------------------------------

    def gettext(
        self, singular: str, plural: str | None = None, n: int = 1, locale: str | None = None
    ) -> str:
        """``singular`` in ``locale`` (default: the current one); with ``plural``, the
        form for ``n`` by the locale's plural rule (``n == 1`` rule for the source)."""
        translations = self.locales.get(self.current_locale if locale is None else locale)
        if translations is None:
            return singular if n == 1 else plural or singular
        if plural is None:
            return translations.gettext(singular)
        return translations.ngettext(singular, plural, n)

    def lazy_gettext(
        self, singular: str, plural: str | None = None, n: int = 1, locale: str | None = None
    ) -> LazyProxy:
        """``gettext`` deferred to each use: for texts written before a locale is known."""
        return LazyProxy(
            self.gettext, singular=singular, plural=plural, n=n, locale=locale, enable_cache=False
        )
