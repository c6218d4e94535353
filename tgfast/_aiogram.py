"""Names and modules aiogram has that tgfast does not: an ImportError that says why.

A module at one of aiogram's paths sets ``__getattr__ = absent(__name__, reasons)``.
It raises ImportError, not AttributeError: ``from tgfast.x import Name`` turns an
AttributeError into a bare "cannot import name", losing the reason. A whole module is
listed in ``ABSENT_MODULES``, which a finder at the end of ``sys.meta_path`` reads.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import NoReturn

__all__ = ["ABSENT_MODULES", "AbsentModules", "absent", "install_absent_modules"]


def absent(module: str, reasons: Mapping[str, str]) -> Callable[[str], NoReturn]:
    """A module ``__getattr__`` for the names in ``reasons`` (name -> why, what instead)."""

    def __getattr__(name: str) -> NoReturn:
        if name in reasons:
            raise ImportError(f"{module} has no {name}: {reasons[name]}", name=name)
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__


_INTERNAL = "aiogram's internals; a bot does not need them on tgfast"
ABSENT_MODULES: dict[str, str] = {
    "tgfast.utils.backoff": "tgfast.backoff.Backoff; start_polling(backoff_config=) takes it",
    "tgfast.utils.magic_filter": "F and MagicFilter are in tgfast.filters (tgfast.F)",
    "tgfast.fsm.storage.mongo": "no MongoDB storage: MemoryStorage or tgfast.fsm.storage.redis",
    "tgfast.fsm.storage.pymongo": "no MongoDB storage: MemoryStorage or tgfast.fsm.storage.redis",
    "tgfast.handlers": "class-based handlers are not supported: register functions with "
    "@router.message(...) and the like",
    "tgfast.client.session.middlewares": "request middlewares are not supported: "
    "Bot.on_api_call sees every call, RetryPolicy repeats failed ones",
    "tgfast.client.context_controller": "objects bind their bot with .as_(bot); .bot reads it",
    "tgfast.loggers": "tgfast logs under logging.getLogger('tgfast') and its children",
    "tgfast.__meta__": "tgfast.__version__",
    "tgfast.dispatcher.event.event": _INTERNAL,
    "tgfast.dispatcher.event.handler": _INTERNAL + " (a handler's flags: tgfast.dispatcher.flags)",
    "tgfast.dispatcher.event.telegram": _INTERNAL,
    "tgfast.dispatcher.middlewares.data": _INTERNAL,
    "tgfast.dispatcher.middlewares.error": _INTERNAL + " (errors go to @router.errors())",
    "tgfast.dispatcher.middlewares.manager": _INTERNAL,
    "tgfast.dispatcher.middlewares.user_context": _INTERNAL
    + " (event_from_user and event_chat are in every handler's data)",
    "tgfast.utils.class_attrs_resolver": _INTERNAL,
    "tgfast.utils.dataclass": _INTERNAL,
    "tgfast.utils.mixins": _INTERNAL,
    "tgfast.utils.mypy_hacks": _INTERNAL,
    "tgfast.utils.warnings": _INTERNAL,
}
"""aiogram's modules that tgfast has no twin of, and what to use instead."""


class AbsentModules(MetaPathFinder):
    """Turns ``import tgfast.x`` of a module in ``ABSENT_MODULES`` (or inside one) into
    an ImportError that says why, instead of a bare "No module named"."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if not fullname.startswith("tgfast."):
            return None
        for module, reason in ABSENT_MODULES.items():
            if fullname == module or fullname.startswith(module + "."):
                raise ImportError(f"{module} is not in tgfast: {reason}", name=fullname)
        return None


def install_absent_modules() -> None:
    """Put ``AbsentModules`` last on ``sys.meta_path`` (once): real modules win."""
    if not any(isinstance(finder, AbsentModules) for finder in sys.meta_path):
        sys.meta_path.append(AbsentModules())
