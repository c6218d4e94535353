"""Middlewares that choose each update's locale and make an ``I18n`` current for it.

``SimpleI18nMiddleware(i18n).setup(dp)`` registers one as an outer middleware of every
observer (update kinds and errors), so filters such as ``F.text == __("Menu")``, the
handler and an errors handler all see the locale chosen for the update's user.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any

from ...dispatcher.middleware import BaseMiddleware, Handler
from .core import I18n

if TYPE_CHECKING:
    from ...dispatcher.router import Router
    from ...fsm.context import FSMContext

__all__ = [
    "ConstI18nMiddleware",
    "FSMI18nMiddleware",
    "I18nMiddleware",
    "SimpleI18nMiddleware",
    "locale_candidates",
]


class I18nMiddleware(BaseMiddleware, ABC):
    """Picks a locale with ``get_locale`` (empty: the default one), then runs the rest
    of the update inside ``i18n.context()`` and ``i18n.use_locale(locale)``.

    Handlers also get the ``I18n`` as ``data[i18n_key]`` (``i18n``; None: not added)
    and this middleware as ``data[middleware_key]`` (``i18n_middleware``).
    """

    def __init__(
        self, i18n: I18n, i18n_key: str | None = "i18n", middleware_key: str = "i18n_middleware"
    ) -> None:
        self.i18n = i18n
        self.i18n_key = i18n_key
        self.middleware_key = middleware_key

    def setup(self, router: Router, exclude: set[str] | None = None) -> I18nMiddleware:
        """Register as an outer middleware of each of ``router``'s observers but those
        named in ``exclude`` ("message", "error", ...); returns self."""
        skip = {"update", *(exclude or ())}
        for kind, observer in router.observers.items():
            if kind not in skip:
                observer.outer_middleware(self)
        if not skip & {"error", "errors"}:
            router.errors.outer_middleware(self)
        return self

    async def __call__(self, handler: Handler, event: Any, data: dict[str, Any]) -> Any:
        locale = await self.get_locale(event=event, data=data) or self.i18n.default_locale
        if self.i18n_key:
            data[self.i18n_key] = self.i18n
        if self.middleware_key:
            data[self.middleware_key] = self
        with self.i18n.context(), self.i18n.use_locale(locale):
            return await handler(event, data)

    @abstractmethod
    async def get_locale(self, event: Any, data: dict[str, Any]) -> str:
        """The locale for ``event`` (``data`` holds ``event_from_user``, ``state``...)."""


class SimpleI18nMiddleware(I18nMiddleware):
    """The locale of the user's Telegram client (``language_code``), when the bot has a
    catalogue for it or for its language ("pt-br" -> "pt_BR", else "pt"); otherwise the
    default locale."""

    async def get_locale(self, event: Any, data: dict[str, Any]) -> str:
        user = data.get("event_from_user")
        code = None if user is None else user.language_code
        if code is None:
            return self.i18n.default_locale
        available = self.i18n.available_locales
        for candidate in locale_candidates(code):
            if candidate in available:
                return candidate
        return self.i18n.default_locale


class ConstI18nMiddleware(I18nMiddleware):
    """One fixed ``locale`` for every update (a bot for one country, tests)."""

    def __init__(
        self,
        locale: str,
        i18n: I18n,
        i18n_key: str | None = "i18n",
        middleware_key: str = "i18n_middleware",
    ) -> None:
        super().__init__(i18n=i18n, i18n_key=i18n_key, middleware_key=middleware_key)
        self.locale = locale

    async def get_locale(self, event: Any, data: dict[str, Any]) -> str:
        return self.locale


class FSMI18nMiddleware(SimpleI18nMiddleware):
    """The locale kept in the FSM data under ``key``: the user's choice, remembered.

    The first time, the client's language is chosen (as ``SimpleI18nMiddleware``) and
    stored; ``set_locale`` changes it. Without an FSM record (an update with no user or
    chat) it is the client's language each time.
    """

    def __init__(
        self,
        i18n: I18n,
        key: str = "locale",
        i18n_key: str | None = "i18n",
        middleware_key: str = "i18n_middleware",
    ) -> None:
        super().__init__(i18n=i18n, i18n_key=i18n_key, middleware_key=middleware_key)
        self.key = key

    async def get_locale(self, event: Any, data: dict[str, Any]) -> str:
        state: FSMContext | None = data.get("state")
        locale = None
        if state is not None:
            locale = (await state.get_data()).get(self.key)
        if not locale:
            locale = await super().get_locale(event=event, data=data)
            if state is not None:
                await state.update_data({self.key: locale})
        return str(locale)

    async def set_locale(self, state: FSMContext, locale: str) -> None:
        """Store ``locale`` for this record and use it for the rest of this update."""
        await state.update_data({self.key: locale})
        self.i18n.current_locale = locale


_TAG = re.compile(
    r"(?P<language>[A-Za-z]{2,8})"
    r"(?:-(?P<script>[A-Za-z]{4}))?"
    r"(?:-(?P<territory>[A-Za-z]{2}|[0-9]{3}))?"
    r"(?:-(?P<variant>[0-9][A-Za-z0-9]{3}|[A-Za-z0-9]{5,8}))?"
)


def locale_candidates(code: str) -> list[str]:
    """The catalogue names to try for a client's ``language_code``, most specific first:
    ``"pt-br"`` -> ``["pt_BR", "pt"]``, ``"zh-hans"`` -> ``["zh_Hans"]`` (Babel's
    spelling, as ``pybabel init -l`` names the directories); ``[]`` for a malformed tag."""
    match = _TAG.fullmatch(code)
    if match is None:
        return []
    language, script, territory, variant = match.group("language", "script", "territory", "variant")
    parts = [language.lower()]
    if script:
        parts.append(script.title())
    if territory:
        parts.append(territory.upper())
    if variant:
        parts.append(variant.upper())
    candidates = ["_".join(parts)]
    if territory:
        candidates.append(parts[0])
    return candidates
