"""Compiled hot paths, each with a pure-Python twin of the same name plus ``_py``.

The choice is made once, here, for every module in ``COMPILED_MODULES`` together:

- ``TGFAST_NO_EXTENSIONS=1`` (read here at import, and by setup.py at build time), or
  an interpreter other than CPython: the twins;
- no compiled module file in this package at all (the build made with
  ``TGFAST_NO_EXTENSIONS=1``): the twins;
- otherwise every compiled module is used, and one that is missing while another is
  present, or present but failing to import, raises ``ImportError`` naming it. A half
  built package never runs half accelerated without anyone noticing.

The modules themselves are imported by their users (``tgfast.decoding``,
``tgfast.dispatcher.routing``, the webhook server) through ``load``, not here:
``_routing`` imports ``tgfast.decoding``, which imports this package first. ``import
tgfast`` imports the first two users, and ``_intake`` (which imports nothing of
tgfast's: the server hands it what it needs) is imported at the end of this module, so
a broken compiled module fails every import of tgfast. ``_wire`` is not compiled: the
bytes both intake twins answer with.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import sys
from pathlib import Path
from types import ModuleType

__all__ = ["COMPILED_MODULES", "NO_EXTENSIONS", "SPEEDUPS", "built", "load"]

COMPILED_MODULES: tuple[str, ...] = ("_decode", "_http", "_intake", "_routing")
"""Every module that setup.py compiles from a ``.pyx`` here; each has a ``_py`` twin."""

NO_EXTENSIONS: bool = bool(os.environ.get("TGFAST_NO_EXTENSIONS")) or (
    sys.implementation.name != "cpython"
)


def built(name: str) -> bool:
    """Whether a compiled file of module ``name`` sits in this package."""
    here = Path(__file__).parent
    return any(
        (here / (name + suffix)).is_file() for suffix in importlib.machinery.EXTENSION_SUFFIXES
    )


def _decide() -> bool:
    if NO_EXTENSIONS:
        return False
    present = [name for name in COMPILED_MODULES if built(name)]
    if not present:
        return False
    missing = [f"{__name__}.{name}" for name in COMPILED_MODULES if name not in present]
    if missing:
        raise ImportError(
            f"tgfast: compiled module {', '.join(missing)} is missing while "
            f"{', '.join(f'{__name__}.{name}' for name in present)} is built: a broken "
            "build (reinstall tgfast, or set TGFAST_NO_EXTENSIONS=1 for the pure twins)"
        )
    return True


SPEEDUPS: bool = _decide()
"""True: every module of ``COMPILED_MODULES`` is the compiled one; False: every one is
its pure twin."""


def load(name: str) -> ModuleType:
    """The implementation of ``name`` (one of ``COMPILED_MODULES``) chosen above.

    A compiled module that fails to import raises ``ImportError`` naming it, never
    falls back to its twin.
    """
    if not SPEEDUPS:
        return importlib.import_module(f"{__name__}.{name}_py")
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ImportError as exc:
        raise ImportError(
            f"tgfast: the compiled module {__name__}.{name} is built but fails to import "
            f"({exc}); reinstall tgfast, or set TGFAST_NO_EXTENSIONS=1 for the pure twins",
            name=f"{__name__}.{name}",
        ) from exc


if SPEEDUPS:
    load("_intake")  # the server's, loaded by it when it starts: here a broken one fails early
