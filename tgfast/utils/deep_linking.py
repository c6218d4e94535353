"""aiogram's path to deep links; the one implementation is ``tgfast.deep_linking``."""

from __future__ import annotations

import re

from ..deep_linking import (
    MAX_PAYLOAD,
    DeepLinkError,
    create_deep_link,
    create_start_link,
    create_startapp_link,
    create_startgroup_link,
    decode_payload,
    encode_payload,
)
from .link import create_telegram_link

__all__ = [
    "DeepLinkError",
    "create_deep_link",
    "create_start_link",
    "create_startapp_link",
    "create_startgroup_link",
    "create_telegram_link",
    "decode_payload",
    "encode_payload",
]

# aiogram's constants, for code that reads them
BAD_PATTERN = re.compile(r"[^A-Za-z0-9_-]")
"""A character a deep-link payload may not hold."""
DEEPLINK_PAYLOAD_LENGTH = MAX_PAYLOAD
"""The longest ``start``/``startgroup`` payload (``startapp`` takes 512)."""
