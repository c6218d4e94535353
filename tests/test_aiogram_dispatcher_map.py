"""aiogram's dispatcher, filter and FSM modules have twins in tgfast: every public name
of each aiogram module (its ``__all__``, else what it defines and its UPPER_CASE
constants) imports from the tgfast module at the same path, or fails with an
ImportError that says why (``KNOWN_GAPS``). A new aiogram release that adds a name
shows up here."""

from __future__ import annotations

import importlib
import inspect
import typing
from types import ModuleType

import pytest

# a property of the sources and of aiogram, not of the build
pytestmark = pytest.mark.once

MODULES = [
    "dispatcher.dispatcher",
    "dispatcher.event.bases",
    "dispatcher.flags",
    "dispatcher.middlewares.base",
    "dispatcher.router",
    "filters",
    "filters.base",
    "filters.callback_data",
    "filters.chat_member_updated",
    "filters.command",
    "filters.exception",
    "filters.logic",
    "filters.magic_data",
    "filters.state",
    "fsm.context",
    "fsm.state",
    "fsm.storage.base",
    "fsm.storage.memory",
    "fsm.storage.redis",
    "fsm.strategy",
    "types.error_event",
]

# names tgfast does not have, each with why; tgfast's module raises an ImportError
# saying so (tgfast._aiogram), which the test checks
KNOWN_GAPS: dict[str, set[str]] = {
    "filters.command": {"CommandException"},
}


def public_names(module: ModuleType) -> set[str]:
    """What an aiogram user may import from ``module``."""
    declared = getattr(module, "__all__", None)
    if declared is not None:
        return set(declared)
    names = set()
    for name, value in vars(module).items():
        if name.startswith("_") or name == "TYPE_CHECKING" or inspect.ismodule(value):
            continue
        if isinstance(value, typing.TypeVar):
            continue  # typing helpers, not API
        defined_here = getattr(value, "__module__", None) == module.__name__
        foreign_class = (inspect.isclass(value) or inspect.isfunction(value)) and not (
            getattr(value, "__module__", "") or ""
        ).startswith("aiogram")
        if defined_here or (name.isupper() and not foreign_class):
            names.add(name)
    return names


@pytest.mark.parametrize("path", MODULES)
def test_every_aiogram_name_is_in_the_tgfast_twin(path: str) -> None:
    theirs = importlib.import_module(f"aiogram.{path}")
    ours = importlib.import_module(f"tgfast.{path}")
    names = public_names(theirs)
    assert names, path  # the rule found something to check
    gaps = KNOWN_GAPS.get(path, set())
    assert gaps <= names, f"stale KNOWN_GAPS for {path}: {gaps - names}"
    missing = sorted(n for n in names - gaps if not hasattr(ours, n))
    assert not missing, f"tgfast.{path} lacks aiogram's {missing}"
    for name in gaps:
        with pytest.raises(ImportError, match=rf"tgfast\.{path} has no {name}: .+"):
            exec(f"from tgfast.{path} import {name}", {})


def test_the_filters_of_aiogram_filters_all_are_tgfast_filters() -> None:
    import aiogram.filters

    import tgfast.filters

    for name in aiogram.filters.__all__:
        assert name in tgfast.filters.__all__, name


def test_top_level_names() -> None:
    import tgfast
    from tgfast.dispatcher.flags import FlagGenerator
    from tgfast.dispatcher.middleware import BaseMiddleware
    from tgfast.types import ErrorEvent
    from tgfast.types.error_event import ErrorEvent as AtPath

    assert tgfast.BaseMiddleware is BaseMiddleware
    assert isinstance(tgfast.flags, FlagGenerator)
    assert ErrorEvent is AtPath and "ErrorEvent" in tgfast.types.__all__
    for name in ("BaseMiddleware", "flags"):
        assert name in tgfast.__all__
