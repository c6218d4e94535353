"""aiogram's path to deep links; the one implementation is ``tgfast.deep_linking``."""

from __future__ import annotations

from ..deep_linking import (
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
