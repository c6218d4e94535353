"""Every Bot API method: as an object to send (``SendMessage``) and as a description.

``METHODS`` (the descriptions, 3,400 generated lines that only ``tgfast.testing`` and
tools read) is loaded on first use, so that ``import tgfast`` does not pay for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import _methods
from ._methods import *  # noqa: F403
from ._methods import METHOD_CLASSES
from .base import TelegramMethod
from .description import MethodDescription, ParamDescription

if TYPE_CHECKING:
    from .descriptions import METHODS

__all__ = [
    "METHODS",
    "METHOD_CLASSES",
    "MethodDescription",
    "ParamDescription",
    "TelegramMethod",
    *_methods.__all__,
]


def __getattr__(name: str) -> Any:
    if name == "METHODS":
        from .descriptions import METHODS

        globals()["METHODS"] = METHODS
        return METHODS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
