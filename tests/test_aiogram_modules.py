"""Every module of aiogram has a tgfast twin at the same path, or importing that path
says why not and what to use: never a bare "No module named". A new aiogram release
with a new module shows up here."""

from __future__ import annotations

import importlib
import pkgutil

import aiogram
import pytest

from tgfast._absent import ABSENT_MODULES

# a property of the sources and of aiogram, not of the build
pytestmark = pytest.mark.once

# generated per Bot API type or method: tgfast has them in one module (names checked by
# tests/test_aiogram_methods.py, test_aiogram_enums.py and the types' tests)
PER_OBJECT = ("aiogram.methods.", "aiogram.types.", "aiogram.enums.")
MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(aiogram.__path__, "aiogram.")
    if not info.name.startswith(PER_OBJECT)
)


@pytest.mark.parametrize("name", MODULES)
def test_each_aiogram_module_is_here_or_says_why(name: str) -> None:
    twin = "tgfast" + name[len("aiogram") :]
    try:
        importlib.import_module(twin)
    except ImportError as exc:
        assert "is not in tgfast: " in str(exc), exc
        assert any(twin == m or twin.startswith(m + ".") for m in ABSENT_MODULES)


def test_every_listed_module_is_really_absent() -> None:
    """A twin written later must leave the list (the real module wins: this fails)."""
    for module in ABSENT_MODULES:
        with pytest.raises(ImportError, match=f"^{module} is not in tgfast: "):
            importlib.import_module(module)
    with pytest.raises(ModuleNotFoundError, match="No module named 'tgfast.no_such_thing'"):
        importlib.import_module("tgfast.no_such_thing")  # anything else: Python's own error
