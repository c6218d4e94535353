"""Telegram Login Widget checks at aiogram's path: ``check_signature``, ``check_integrity``.

The widget redirects with the user's fields and a ``hash``: the hex HMAC-SHA256 of the
sorted ``key=value`` lines, keyed with the SHA256 of the bot token. Unlike aiogram, the
hashes are compared in constant time, so a forger cannot learn the digest byte by byte.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

__all__ = ["check_integrity", "check_signature"]


def check_signature(token: str, hash: str, **kwargs: Any) -> bool:
    """Whether ``hash`` signs the fields in ``kwargs`` (every field the widget sent
    except ``hash`` itself) for the bot with ``token``."""
    if not isinstance(hash, str):
        return False
    key = hashlib.sha256(token.encode()).digest()
    check_string = "\n".join(f"{name}={kwargs[name]}" for name in sorted(kwargs))
    expected = hmac.new(key, check_string.encode(), hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode(), hash.encode())


def check_integrity(token: str, data: dict[str, Any]) -> bool:
    """``check_signature`` over the whole query the widget sent (``hash`` included;
    without one this raises TypeError, as aiogram does)."""
    return check_signature(token, **data)
