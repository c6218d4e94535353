"""Names and modules aiogram has that tgfast does not: an error that says why.

A module at one of aiogram's paths sets ``__getattr__ = absent(__name__, reasons)``.
Looked up as an attribute (``getattr``, ``hasattr``, ``module.Name``) such a name raises
``AbsentName``, an AttributeError, as Python expects of a name a module lacks; named in
``from tgfast.x import Name`` it raises ImportError with the same reason (the import
statement would otherwise turn an AttributeError into a bare "cannot import name",
losing the reason). A whole module is listed in ``ABSENT_MODULES``, which a finder at
the end of ``sys.meta_path`` reads.
"""

from __future__ import annotations

import dis
import sys
from collections.abc import Callable, Mapping, Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import NoReturn

__all__ = ["ABSENT_MODULES", "AbsentModules", "AbsentName", "absent", "install_absent_modules"]

_IMPORT_FROM = dis.opmap["IMPORT_FROM"]


class AbsentName(AttributeError):
    """A name aiogram has and tgfast does not; the message says why and what instead."""


def _imported_by_name() -> bool:
    """Whether the lookup comes from a ``from module import name`` statement: the first
    frame above the ``__getattr__`` functions is executing IMPORT_FROM."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_name == "__getattr__":
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None or frame.f_lasti < 0:
        return False
    return frame.f_code.co_code[frame.f_lasti] == _IMPORT_FROM


def absent(module: str, reasons: Mapping[str, str]) -> Callable[[str], NoReturn]:
    """A module ``__getattr__`` for the names in ``reasons`` (name -> why, what instead)."""

    def __getattr__(name: str) -> NoReturn:
        if name in reasons:
            message = f"{module} has no {name}: {reasons[name]}"
            if _imported_by_name():
                raise ImportError(message, name=name)
            raise AbsentName(message, name=name)
        raise AttributeError(f"module {module!r} has no attribute {name!r}", name=name)

    return __getattr__


_INTERNAL = "aiogram's internals; a bot does not need them on tgfast"
ABSENT_MODULES: dict[str, str] = {
    "tgfast.fsm.storage.mongo": "no MongoDB storage: MemoryStorage or tgfast.fsm.storage.redis",
    "tgfast.fsm.storage.pymongo": "no MongoDB storage: MemoryStorage or tgfast.fsm.storage.redis",
    "tgfast.client.context_controller": "objects bind their bot with .as_(bot); .bot reads it",
    "tgfast.loggers": "tgfast logs under logging.getLogger('tgfast') and its children",
    "tgfast.__meta__": "tgfast.__version__",
    "tgfast.dispatcher.event.event": _INTERNAL,
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
