"""Compiled hot paths, each with a pure-Python twin of the same name plus ``_py``.

``TGFAST_NO_EXTENSIONS=1`` (read here at import, and by setup.py at build time)
forces the twins; off CPython they are always used.
"""

from __future__ import annotations

import os
import sys

__all__ = ["NO_EXTENSIONS"]

NO_EXTENSIONS: bool = bool(os.environ.get("TGFAST_NO_EXTENSIONS")) or (
    sys.implementation.name != "cpython"
)
