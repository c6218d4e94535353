"""Every Bot API method: as an object to send (``SendMessage``) and as a description.

``METHODS`` (the descriptions, 3,400 generated lines that only ``tgfast.testing`` and
tools read) is loaded on first use, so that ``import tgfast`` does not pay for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._aiogram import absent
from ..types import API_VERSION
from . import _methods
from ._methods import *  # noqa: F403
from ._methods import METHOD_CLASSES
from .base import Request, Response, TelegramMethod
from .method_description import MethodDescription, ParamDescription

if TYPE_CHECKING:
    from .descriptions import METHODS

__all__ = [
    "METHODS",
    "METHOD_CLASSES",
    "MethodDescription",
    "ParamDescription",
    "Request",
    "Response",
    "TelegramMethod",
    *_methods.__all__,
]


_NEWER = (
    f"ephemeral messages are newer than Bot API {API_VERSION}, the version tgfast is "
    "generated from; they come when its vendored spec is updated"
)
_aiogram_names = absent(
    __name__,
    {
        **dict.fromkeys(
            [
                "DeleteEphemeralMessage",
                "EditEphemeralMessageCaption",
                "EditEphemeralMessageMedia",
                "EditEphemeralMessageReplyMarkup",
                "EditEphemeralMessageText",
            ],
            _NEWER,
        ),
    },
)


def __getattr__(name: str) -> Any:
    if name == "METHODS":
        from .descriptions import METHODS

        globals()["METHODS"] = METHODS
        return METHODS
    return _aiogram_names(name)
