"""aiogram's one-module-per-object paths: ``from tgfast.enums.parse_mode import ParseMode``.

aiogram keeps each type, method and enum in a module of its own
(``aiogram.types.message``); tgfast generates each family into one module. A finder last
on ``sys.meta_path`` makes ``tgfast.types.message`` (and the like) a small module holding
the names of ``tgfast.types`` whose snake-case name is ``message``, made when first
imported. Real submodules (``tgfast.types.base``) are found first and win. Like aiogram's
modules, which import what they use, such a module also gives the other public names of
its package and the enums (``from tgfast.types.message import ContentType``).
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable, Sequence
from functools import cache
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

__all__ = ["PerObjectModules", "install_per_object_modules"]

PACKAGES = frozenset({"tgfast.types", "tgfast.methods", "tgfast.enums"})
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
    enums; else AttributeError as for any module."""

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
        if package not in PACKAGES:
            return None
        names = _names_by_module(package).get(leaf)
        if names is None:
            return None
        return ModuleSpec(fullname, _Reexport(package, names))


def install_per_object_modules() -> None:
    """Put ``PerObjectModules`` last on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, PerObjectModules) for finder in sys.meta_path):
        sys.meta_path.append(PerObjectModules())
