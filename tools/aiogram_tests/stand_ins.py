"""A pytest plugin for the tgfast run (``-p``, copied beside the ported suite): the
modules named in ``$STAND_INS`` (aiogram modules tgfast does not have, that aiogram's
conftest imports for fixtures of excluded tests) import as stand-ins whose every name
is a class that refuses to be used. Tests that use them are excluded, with the reason,
in ``tools/aiogram_tests/exclusions.py``; the conftest's other fixtures keep working."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any, NoReturn

NAMES = frozenset(filter(None, os.environ.get("STAND_INS", "").split(",")))


class _StandIn(ModuleType):
    def __getattr__(self, name: str) -> type:
        if name.startswith("__"):
            raise AttributeError(name)
        module = self.__name__

        def refuse(*args: Any, **kwargs: Any) -> NoReturn:
            raise RuntimeError(f"{module}.{name} is a stand-in: tgfast has no {module}")

        return type(name, (), {"__init__": refuse, "from_url": staticmethod(refuse)})


class _Finder(MetaPathFinder, Loader):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        return ModuleSpec(fullname, self) if fullname in NAMES else None

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        return _StandIn(spec.name)

    def exec_module(self, module: ModuleType) -> None:
        pass


sys.meta_path.insert(0, _Finder())
