"""aiogram's path to the payload codec; the one implementation is ``tgfast.deep_linking``."""

from __future__ import annotations

from ..deep_linking import decode_payload, encode_payload

__all__ = ["decode_payload", "encode_payload"]
