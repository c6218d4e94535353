"""Every module of aiogram has a tgfast twin at the same path, or importing that path
says why not and what to use: never a bare "No module named". A new aiogram release
with a new module shows up here."""

from __future__ import annotations

import importlib
import pkgutil

import aiogram
import pytest

from tgfast._aiogram import ABSENT_MODULES, PER_OBJECT_PACKAGES, SHIM_MODULES

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


# aiogram's per-object modules whose object tgfast lacks (names checked elsewhere, with
# reasons: Bot API 10.2+ objects, aiogram-only enums)
def _aiogram_objects(module: str) -> list[str]:
    mod = importlib.import_module(module)
    return [
        name
        for name, value in vars(mod).items()
        if isinstance(value, type) and value.__module__ == module and not name.startswith("_")
    ]


PER_OBJECT_MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(aiogram.__path__, "aiogram.")
    if info.name.startswith(PER_OBJECT)
)


@pytest.mark.parametrize("name", PER_OBJECT_MODULES)
def test_each_per_object_module_is_here(name: str) -> None:
    """``from tgfast.types.message import Message`` and the like, as aiogram's."""
    twin = "tgfast" + name[len("aiogram") :]
    package = twin.rpartition(".")[0]
    expected = _aiogram_objects(name)
    exported = set(importlib.import_module(package).__all__)
    if not expected or not set(expected) & exported:
        return  # an object tgfast does not have: its name's own test says why
    module = importlib.import_module(twin)
    for object_name in expected:
        if object_name in exported:
            assert getattr(module, object_name) is getattr(
                importlib.import_module(package), object_name
            )


def test_the_aiogram_table_is_one_table() -> None:
    """Each shim stands at a path aiogram has, and no path is in two parts of the table
    (that each shim only re-exports is tests/test_layers.py's)."""
    aiogram_paths = {"tgfast" + name[len("aiogram") :] for name in MODULES}
    for shim in SHIM_MODULES:
        assert shim in aiogram_paths, f"{shim}: not aiogram's path, so not a shim"
        importlib.import_module(shim)
    assert not set(SHIM_MODULES) & set(ABSENT_MODULES)
    assert not {m.rpartition(".")[0] for m in SHIM_MODULES} & PER_OBJECT_PACKAGES
    assert {"tgfast.types", "tgfast.methods", "tgfast.enums"} == PER_OBJECT_PACKAGES
