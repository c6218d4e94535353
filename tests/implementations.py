"""Which decoder implementations this test run exercises.

``c``  is the compiled ``tgfast._speedups._decode`` (only when it can be imported),
``py`` is the pure twin ``tgfast._speedups._decode_py`` (always).

``TGFAST_NO_EXTENSIONS=1`` limits the run to ``py``. ``TGFAST_EXPECT_COMPILED=1``
makes a missing compiled module a hard error (see ``conftest.pytest_configure``), so
a broken build can never pass as a pure-only run; ``TGFAST_EXPECT_PURE=1`` (the
run against the build made with ``TGFAST_NO_EXTENSIONS=1``) makes a compiled module
that is present anyway a hard error.
"""

from __future__ import annotations

import os
from types import ModuleType

from tgfast._speedups import NO_EXTENSIONS
from tgfast._speedups import _decode_py as pure

__all__ = [
    "COMPILED",
    "COMPILED_IMPORT_ERROR",
    "EXPECT_COMPILED",
    "EXPECT_PURE",
    "IMPLEMENTATIONS",
    "NO_EXTENSIONS",
    "pure",
]

EXPECT_COMPILED: bool = os.environ.get("TGFAST_EXPECT_COMPILED", "") not in ("", "0")
EXPECT_PURE: bool = os.environ.get("TGFAST_EXPECT_PURE", "") not in ("", "0")

COMPILED: ModuleType | None
COMPILED_IMPORT_ERROR: BaseException | None
try:
    from tgfast._speedups import _decode as COMPILED

    COMPILED_IMPORT_ERROR = None
except ImportError as exc:
    COMPILED = None
    COMPILED_IMPORT_ERROR = exc

IMPLEMENTATIONS: dict[str, ModuleType] = {}
"""id -> decoder module, in the order the ``decoder`` fixture runs them."""
if COMPILED is not None and not NO_EXTENSIONS:
    IMPLEMENTATIONS["c"] = COMPILED
IMPLEMENTATIONS["py"] = pure
