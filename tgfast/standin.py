"""tgfast standing in for the ``aiogram`` package, for libraries built on aiogram.

A library such as aiogram-dialog imports ``aiogram``; mixed into a tgfast bot, its
routers and types are aiogram's, and tgfast refuses them ("takes a Router, not Router").
``install()``, called before the library is imported, makes ``import aiogram.x.y`` give
the module ``tgfast.x.y`` itself: the same module objects, hence the same classes, so the
library's routers, filters and types are tgfast's. Opt-in and per process: nothing
changes for a process that does not call it, and it refuses once the real aiogram is in.

aiogram's ``F`` is a ``magic_filter.MagicFilter``, and libraries test for that class, so
``magic_filter`` stands in too (``install(magic_filter=False)`` leaves it alone): its
``MagicFilter`` and ``F`` are tgfast's.

The dispatcher objects libraries use and bots do not (``FilterObject``, ``HandlerObject``,
``TelegramEventObserver``, ``aiogram.dispatcher.event.handler`` and ``.telegram``) are
tgfast's own, at aiogram's paths.

Only the top-level ``aiogram`` is a module of its own: it answers ``__version__`` with the
aiogram release tgfast follows (libraries check it) and hands every other name to
``tgfast``. A module or name tgfast does not have fails as it does under ``tgfast``, with
the ImportError that says why.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

from .errors import TgfastError
from .types import API_VERSION

__all__ = ["AIOGRAM_VERSION", "AiogramStandIn", "StandInError", "install", "is_installed"]

AIOGRAM_VERSION = "3.31.0"
"""The aiogram release whose API tgfast follows: what ``aiogram.__version__`` answers."""

_PACKAGE = "aiogram"
_MAGIC = "magic_filter"
_MARK = "__tgfast_standin__"


class StandInError(TgfastError, RuntimeError):
    """The stand-in cannot be installed: the real aiogram (or magic_filter) is imported."""


def _twin_name(fullname: str) -> str:
    """``aiogram.fsm.context`` -> ``tgfast.fsm.context``."""
    return "tgfast" + fullname[len(_PACKAGE) :]


def _missing(fullname: str, twin: str) -> ModuleNotFoundError:
    return ModuleNotFoundError(
        f"No module named {fullname!r}: tgfast stands in for aiogram in this process "
        f"(tgfast.standin) and has no {twin}",
        name=fullname,
    )


def _import_twin(fullname: str) -> ModuleType:
    """Import the tgfast module at ``fullname``'s path, with errors naming the aiogram one."""
    twin = _twin_name(fullname)
    try:
        return importlib.import_module(twin)
    except ModuleNotFoundError as error:
        if error.name is not None and (twin == error.name or twin.startswith(error.name + ".")):
            raise _missing(fullname, twin) from None
        raise
    except ImportError as error:
        # tgfast's own explanation (a module aiogram has and tgfast does not)
        raise ImportError(
            f"{fullname} (tgfast standing in for aiogram): {error}", name=fullname
        ) from error


class _SameModule(Loader):
    """Gives the import system an existing tgfast module instead of a new one.

    The import system writes the new spec onto the module it is given; ``exec_module``
    puts the tgfast one back, so the module still knows its own name and origin.
    """

    def __init__(self, module: ModuleType) -> None:
        self.module = module
        self.own_spec = module.__spec__

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        return self.module

    def exec_module(self, module: ModuleType) -> None:
        module.__spec__ = self.own_spec


def _top_level_getattr(name: str) -> Any:
    return getattr(importlib.import_module("tgfast"), name)


def _top_level_dir() -> list[str]:
    tgfast = importlib.import_module("tgfast")
    return sorted({*dir(tgfast), "__version__", "__api_version__"})


class _TopLevel(Loader):
    """The ``aiogram`` module: aiogram's version, every other name from ``tgfast``."""

    def create_module(self, spec: ModuleSpec) -> None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        tgfast = importlib.import_module("tgfast")
        module.__doc__ = "tgfast standing in for aiogram (tgfast.standin)."
        module.__version__ = AIOGRAM_VERSION  # type: ignore[attr-defined]
        module.__api_version__ = API_VERSION  # type: ignore[attr-defined]
        module.__all__ = list(tgfast.__all__)  # type: ignore[attr-defined]
        module.__getattr__ = _top_level_getattr  # type: ignore[method-assign]
        module.__dir__ = _top_level_dir  # type: ignore[method-assign]
        setattr(module, _MARK, True)


class _Meta(Loader):
    """``aiogram.__meta__``: the two versions aiogram keeps there."""

    def create_module(self, spec: ModuleSpec) -> None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        module.__version__ = AIOGRAM_VERSION  # type: ignore[attr-defined]
        module.__api_version__ = API_VERSION  # type: ignore[attr-defined]


def _magic_filter_getattr(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(f"module {_MAGIC!r} has no attribute {name!r}")
    raise ImportError(
        f"magic_filter.{name}: tgfast stands in for magic_filter in this process "
        "(tgfast.standin) and has only MagicFilter and F; "
        "tgfast.standin.install(magic_filter=False) keeps the real magic_filter",
        name=name,
    )


class _MagicFilter(Loader):
    """``magic_filter``: aiogram's ``F`` is its ``MagicFilter``; here both are tgfast's."""

    def create_module(self, spec: ModuleSpec) -> None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        from .filters.magic import F, MagicFilter

        module.__doc__ = "tgfast's MagicFilter standing in for magic_filter (tgfast.standin)."
        module.MagicFilter = MagicFilter  # type: ignore[attr-defined]
        module.F = F  # type: ignore[attr-defined]
        module.__all__ = ["F", "MagicFilter"]  # type: ignore[attr-defined]
        module.__getattr__ = _magic_filter_getattr  # type: ignore[method-assign]
        setattr(module, _MARK, True)


class AiogramStandIn(MetaPathFinder):
    """First on ``sys.meta_path``: ``aiogram`` and ``aiogram.*`` resolve to tgfast.

    It never answers None for an aiogram name, so no other finder can load an installed
    aiogram (or a second copy of a tgfast module) behind it. With ``magic_filter`` it
    answers for ``magic_filter`` too.
    """

    def __init__(self, *, magic_filter: bool = True) -> None:
        self.magic_filter = magic_filter

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname == _PACKAGE:
            return ModuleSpec(fullname, _TopLevel(), is_package=True)
        if self.magic_filter and fullname == _MAGIC:
            return ModuleSpec(fullname, _MagicFilter())
        if not fullname.startswith(_PACKAGE + "."):
            return None
        if fullname == _PACKAGE + ".__meta__":
            return ModuleSpec(fullname, _Meta())
        module = _import_twin(fullname)
        return ModuleSpec(fullname, _SameModule(module), is_package=hasattr(module, "__path__"))


def is_installed() -> bool:
    """True when ``install()`` has run in this process."""
    return any(isinstance(finder, AiogramStandIn) for finder in sys.meta_path)


def _really_imported(name: str) -> bool:
    module = sys.modules.get(name)
    return module is not None and not getattr(module, _MARK, False)


def install(*, magic_filter: bool = True) -> None:
    """Make ``import aiogram`` (and every ``aiogram.x.y``) resolve to tgfast in this process.

    Call it before importing a library built on aiogram. Raises ``StandInError`` if the
    real aiogram is already imported: its classes would then live beside tgfast's and the
    library would still hand tgfast aiogram's objects. ``magic_filter=False`` keeps the
    real ``magic_filter`` (a library's ``isinstance(f, MagicFilter)`` then misses tgfast's
    ``F``). Calling it again is harmless.
    """
    if is_installed():
        return
    if _really_imported(_PACKAGE):
        raise StandInError(
            "the real aiogram is already imported in this process: call "
            "tgfast.standin.install() before anything imports aiogram (or a library built on it)"
        )
    if magic_filter and _really_imported(_MAGIC):
        raise StandInError(
            "magic_filter is already imported in this process: call tgfast.standin.install() "
            "before anything imports it, or install(magic_filter=False) to keep it"
        )
    sys.meta_path.insert(0, AiogramStandIn(magic_filter=magic_filter))
