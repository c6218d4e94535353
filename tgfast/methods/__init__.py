"""Every Bot API method: as an object to send (``SendMessage``) and as a description."""

from __future__ import annotations

from . import _methods
from ._methods import *  # noqa: F403
from ._methods import METHOD_CLASSES
from .base import TelegramMethod
from .description import MethodDescription, ParamDescription
from .descriptions import METHODS

__all__ = [
    "METHODS",
    "METHOD_CLASSES",
    "MethodDescription",
    "ParamDescription",
    "TelegramMethod",
    *_methods.__all__,
]
