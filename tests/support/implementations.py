"""Which implementations this test run exercises: every compiled module and its twin.

``c``  is the compiled module (``tgfast._speedups._decode``, ``._routing``), only when
every compiled module can be imported and ``TGFAST_NO_EXTENSIONS`` is not set;
``py`` is the pure twin (``_decode_py``, ``_routing_py``), always.

``IMPLEMENTATIONS`` drives the ``decoder`` fixture, ``ROUTING_IMPLEMENTATIONS`` the
``routing`` one; a test module that needs the compiled build (twin comparisons, stub
checks) parametrizes over ``"c" in IMPLEMENTATIONS`` and so collects nothing in a
pure run. ``TGFAST_EXPECT_COMPILED=1`` makes any compiled module that is not loaded a
hard error (see ``conftest.pytest_configure``), so a broken build can never pass as a
pure-only run; ``TGFAST_EXPECT_PURE=1`` (the run against the build made with
``TGFAST_NO_EXTENSIONS=1``) makes a compiled module that is present anyway a hard error.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

from tgfast._speedups import COMPILED_MODULES, NO_EXTENSIONS
from tgfast._speedups import _decode_py as pure
from tgfast._speedups import _routing_py as pure_routing

__all__ = [
    "COMPILED",
    "COMPILED_IMPORT_ERROR",
    "COMPILED_IMPORT_ERRORS",
    "COMPILED_MODULES",
    "COMPILED_ROUTING",
    "EXPECT_COMPILED",
    "EXPECT_PURE",
    "IMPLEMENTATIONS",
    "LOADED",
    "NO_EXTENSIONS",
    "ROUTING_IMPLEMENTATIONS",
    "pure",
    "pure_routing",
]

EXPECT_COMPILED: bool = os.environ.get("TGFAST_EXPECT_COMPILED", "") not in ("", "0")
EXPECT_PURE: bool = os.environ.get("TGFAST_EXPECT_PURE", "") not in ("", "0")

LOADED: dict[str, ModuleType] = {}
"""Compiled module name (``_decode``) -> the module, for each that imports."""
COMPILED_IMPORT_ERRORS: dict[str, BaseException] = {}
"""Compiled module name -> why it does not import."""
for _name in COMPILED_MODULES:
    try:
        LOADED[_name] = importlib.import_module(f"tgfast._speedups.{_name}")
    except ImportError as exc:
        COMPILED_IMPORT_ERRORS[_name] = exc

COMPILED: ModuleType | None = LOADED.get("_decode")
COMPILED_IMPORT_ERROR: BaseException | None = COMPILED_IMPORT_ERRORS.get("_decode")
COMPILED_ROUTING: ModuleType | None = LOADED.get("_routing")
_ALL_COMPILED = not COMPILED_IMPORT_ERRORS and not NO_EXTENSIONS

IMPLEMENTATIONS: dict[str, ModuleType] = {}
"""id -> decoder module, in the order the ``decoder`` fixture runs them."""
ROUTING_IMPLEMENTATIONS: dict[str, ModuleType] = {}
"""id -> routing runtime, in the order the ``routing`` fixture runs them."""
if _ALL_COMPILED:
    IMPLEMENTATIONS["c"] = LOADED["_decode"]
    ROUTING_IMPLEMENTATIONS["c"] = LOADED["_routing"]
IMPLEMENTATIONS["py"] = pure
ROUTING_IMPLEMENTATIONS["py"] = pure_routing
