"""Names aiogram has at a path that tgfast does not: an ImportError that says why.

A module at one of aiogram's paths sets ``__getattr__ = absent(__name__, reasons)``.
It raises ImportError, not AttributeError: ``from tgfast.x import Name`` turns an
AttributeError into a bare "cannot import name", losing the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NoReturn

__all__ = ["absent"]


def absent(module: str, reasons: Mapping[str, str]) -> Callable[[str], NoReturn]:
    """A module ``__getattr__`` for the names in ``reasons`` (name -> why, what instead)."""

    def __getattr__(name: str) -> NoReturn:
        if name in reasons:
            raise ImportError(f"{module} has no {name}: {reasons[name]}", name=name)
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__
