"""aiogram's ``aiogram.enums`` path: every enum of the Bot API values, by aiogram's names.

The enums themselves are generated into ``tgfast.types.enums`` (and exported by
``tgfast.types``); this module re-exports them where an aiogram bot imports them. One
name differs: aiogram's ``EncryptedPassportElement`` enum shares its name with the
type, so tgfast calls it ``EncryptedPassportElementType`` and keeps aiogram's name as
an alias here only. Names aiogram has that tgfast does not raise an ImportError that
says why and what to use instead.
"""

from __future__ import annotations

from ._aiogram import absent
from .types.enums import *  # noqa: F403
from .types.enums import EncryptedPassportElementType
from .types.enums import __all__ as _generated

__all__ = [*_generated, "EncryptedPassportElement"]

EncryptedPassportElement = EncryptedPassportElementType


_MISSING = {
    "Currency": "the Bot API spec does not list currencies: pass the ISO 4217 code as a str",
}


__getattr__ = absent(__name__, _MISSING)

__path__: list[str] = []  # a package, for aiogram's tgfast.enums.<name> paths (_aiogram.py)
