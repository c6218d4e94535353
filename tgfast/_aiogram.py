"""The aiogram layer in one table: aiogram's module paths and what tgfast has at each.

An aiogram bot ports by changing ``aiogram`` to ``tgfast`` in its imports, so every
module path of aiogram answers here in one of four ways:

- a real module of tgfast at the same path (``tgfast.dispatcher.router``): not listed;
- ``SHIM_MODULES``: a module that only re-exports what lives elsewhere in tgfast
  (``tests/test_layers.py`` checks that it does, and that no module of tgfast imports
  one);
- ``PER_OBJECT_PACKAGES``: aiogram keeps each type, method and enum in a module of its
  own (``aiogram.types.message``); tgfast generates each family into one module, and a
  finder makes ``tgfast.types.message`` on first import, holding the names of
  ``tgfast.types`` whose snake-case name is ``message``;
- ``ABSENT_MODULES``: a module tgfast has no twin of; importing it raises an
  ImportError that says what to use instead.

A name aiogram has that a module lacks: that module sets ``__getattr__ = absent(__name__,
reasons)``. Looked up as an attribute (``getattr``, ``hasattr``, ``module.Name``) such a
name raises ``AbsentName``, an AttributeError, as Python expects of a name a module lacks;
named in ``from tgfast.x import Name`` it raises ImportError with the same reason (the
import statement would otherwise turn an AttributeError into a bare "cannot import name",
losing the reason). The two finders sit last on ``sys.meta_path``: real modules always
win.
"""

from __future__ import annotations

import dis
import importlib
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any, NoReturn

__all__ = [
    "ABSENT_MODULES",
    "PER_OBJECT_PACKAGES",
    "SHIM_MODULES",
    "AbsentModules",
    "AbsentName",
    "PerObjectModules",
    "absent",
    "install",
]

SHIM_MODULES: dict[str, str] = {
    "tgfast.client.default": "DefaultBotProperties and Default, from tgfast.defaults",
    "tgfast.dispatcher.middlewares": "BaseMiddleware, from its base",
    "tgfast.dispatcher.middlewares.base": "BaseMiddleware, from tgfast.dispatcher.middleware",
    "tgfast.dispatcher.middlewares.manager": "MiddlewareManager, from tgfast.dispatcher.observer",
    "tgfast.dispatcher.event.event": "EventObserver, from tgfast.dispatcher.observer",
    "tgfast.dispatcher.event.handler": "HandlerObject and co., from tgfast.dispatcher.callables",
    "tgfast.dispatcher.event.telegram": "TelegramEventObserver, tgfast.dispatcher.observer's",
    "tgfast.enums": "the generated enums, from tgfast.types.enums",
    "tgfast.exceptions": "aiogram's error names, aliases of tgfast.errors",
    "tgfast.filters.logic": "and_f, or_f, invert_f, from tgfast.filters.base",
    "tgfast.filters.state": "StateFilter, from tgfast.fsm.filter",
    "tgfast.utils.class_attrs_resolver": "the scenes' attrs_resolver orders, from tgfast.fsm.scene",
    "tgfast.fsm.storage.redis": "RedisStorage and RedisEventIsolation, from tgfast.redis",
    "tgfast.utils.payload": "the payload codec, from tgfast.deep_linking",
    "tgfast.utils.warnings": "TgfastWarning (AiogramWarning), Recommendation, from tgfast.errors",
}
"""aiogram's paths that only re-export: module -> what, from where."""

PER_OBJECT_PACKAGES = frozenset({"tgfast.types", "tgfast.methods", "tgfast.enums"})
"""Packages whose ``<package>.<snake_name>`` modules are made from their exports."""


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
    "tgfast.loggers": "tgfast logs under logging.getLogger('tgfast') and its children",
    "tgfast.__meta__": "tgfast.__version__",
    "tgfast.dispatcher.middlewares.data": _INTERNAL,
    "tgfast.dispatcher.middlewares.error": _INTERNAL + " (errors go to @router.errors())",
    "tgfast.utils.dataclass": _INTERNAL,
    "tgfast.utils.mixins": _INTERNAL,
    "tgfast.utils.mypy_hacks": _INTERNAL,
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


# names aiogram keeps beside another object's instead of in a module of their own
_BESIDE = {"tgfast.types": {"DiceEmoji": "dice"}}
_WORD = re.compile(r"(?<!^)(?=[A-Z])")


@cache
def _names_by_module(package: str) -> dict[str, tuple[str, ...]]:
    """``{"message": ("Message",), ...}`` for the names a package exports."""
    by_module: dict[str, list[str]] = {}
    beside = _BESIDE.get(package, {})
    for name in importlib.import_module(package).__all__:
        if name[:1].isupper():
            module = beside.get(name) or _WORD.sub("_", name).lower()
            by_module.setdefault(module, []).append(name)
    return {module: tuple(names) for module, names in by_module.items()}


class _Reexport(Loader):
    def __init__(self, package: str, names: tuple[str, ...]) -> None:
        self.package, self.names = package, names

    def exec_module(self, module: ModuleType) -> None:
        source = importlib.import_module(self.package)
        for name in self.names:
            setattr(module, name, getattr(source, name))
        module.__all__ = list(self.names)  # type: ignore[attr-defined]
        setattr(module, "__getattr__", _beside(module.__name__, source))  # noqa: B010


def _beside(name: str, package: ModuleType) -> Callable[[str], Any]:
    """A per-object module's ``__getattr__``: the public names of its package, then the
    enums (aiogram's modules import what they use: ``from tgfast.types.message import
    ContentType``); else AttributeError as for any module."""

    def __getattr__(attr: str) -> Any:
        enums = importlib.import_module("tgfast.enums")
        for source in (package, enums):
            if attr in getattr(source, "__all__", ()):
                return getattr(source, attr)
        raise AttributeError(f"module {name!r} has no attribute {attr!r}", name=attr)

    return __getattr__


class PerObjectModules(MetaPathFinder):
    """Finds ``tgfast.<types|methods|enums>.<snake_name>`` for the names those export."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        package, _, leaf = fullname.rpartition(".")
        if package not in PER_OBJECT_PACKAGES:
            return None
        names = _names_by_module(package).get(leaf)
        if names is None:
            return None
        return ModuleSpec(fullname, _Reexport(package, names))


def install() -> None:
    """Put ``AbsentModules`` and ``PerObjectModules`` last on ``sys.meta_path`` (once
    each): real modules win."""
    for finder in (AbsentModules, PerObjectModules):
        if not any(isinstance(f, finder) for f in sys.meta_path):
            sys.meta_path.append(finder())
