"""tgfast: an asyncio Telegram Bot API framework with compiled hot paths."""

from __future__ import annotations

from . import types
from .decoding import SPEEDUPS, convert, decode, decode_update, decode_updates
from .errors import DecodeError, TgfastError
from .types import API_VERSION

__version__ = "0.1.0"
__speedups__: bool = SPEEDUPS
"""True when the compiled extensions are in use, False for the pure-Python twins."""

__all__ = [
    "API_VERSION",
    "DecodeError",
    "TgfastError",
    "__speedups__",
    "__version__",
    "convert",
    "decode",
    "decode_update",
    "decode_updates",
    "types",
]
