"""The test catalogues (tests/support/locales/<locale>/LC_MESSAGES/messages.po), compiled to
``.mo`` with Babel, as ``pybabel compile`` would: only the ``.po`` sources are committed.

``compile_catalogues(target)`` writes them under ``target`` (a test's tmp dir);
``compiled_locales()`` is one compiled copy for this process, for the bot modules of
tests/support/aiogram_bots, which run on both frameworks and need a path at import time.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from functools import cache
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

__all__ = ["LOCALES", "compile_catalogues", "compiled_locales"]

LOCALES = Path(__file__).resolve().parent / "locales"


def compile_catalogues(target: Path, source: Path = LOCALES) -> Path:
    """Every ``<locale>/LC_MESSAGES/<domain>.po`` under ``source`` compiled to the same
    place under ``target``; returns ``target``."""
    for po in sorted(source.glob("*/LC_MESSAGES/*.po")):
        relative = po.relative_to(source)
        with po.open("rb") as fp:
            catalog = read_po(fp, locale=relative.parts[0])
        mo = target / relative.with_suffix(".mo")
        mo.parent.mkdir(parents=True, exist_ok=True)
        with mo.open("wb") as fp:
            write_mo(fp, catalog)
    return target


@cache
def compiled_locales() -> Path:
    """One compiled copy of the test catalogues, removed when the process exits."""
    target = Path(tempfile.mkdtemp(prefix="tgfast-locales-"))
    atexit.register(shutil.rmtree, target, ignore_errors=True)
    return compile_catalogues(target)
