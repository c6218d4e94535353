"""Mini App init data checked without the bot token: Telegram's Ed25519 ``signature``.

The ``hash`` of init data (``tgfast.utils.web_app``) can only be checked by whoever holds
the bot token. For a third party (another service the Mini App talks to) Telegram also
signs the data with its own Ed25519 key: the message is ``"<bot_id>:WebAppData"``, a
newline, then the ``key=value`` lines of every field except ``hash`` and ``signature``,
sorted by key; ``signature`` is that signature in unpadded URL-safe base64. Anyone who
knows the bot id can check it with Telegram's public key (one for production, one for
the test environment).

Ed25519 comes from ``cryptography``: ``pip install 'tgfast[signature]'``.

https://core.telegram.org/bots/webapps#validating-data-for-third-party-use
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl

from .web_app import WebAppInitData, parse_webapp_init_data

try:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
except ImportError as exc:  # pragma: no cover - the test extra installs it
    raise ImportError(
        "tgfast.utils.web_app_signature needs the 'cryptography' package for Ed25519: "
        "pip install 'tgfast[signature]'",
        name=__name__,
    ) from exc

__all__ = [
    "PRODUCTION_PUBLIC_KEY",
    "TEST_PUBLIC_KEY",
    "check_webapp_signature",
    "safe_check_webapp_init_data_from_signature",
]

PRODUCTION_PUBLIC_KEY = bytes.fromhex(
    "e7bf03a2fa4602af4580703d88dda5bb59f32ed8b02a56c187fe7d34caed242d"
)
"""Telegram's Ed25519 public key for init data of the production environment."""
TEST_PUBLIC_KEY = bytes.fromhex("40055058a4ee38156a06562e52eece92a771bcd8346a8c4615cb7376eddf72ec")
"""Telegram's Ed25519 public key for init data of the test environment."""


def _signed_message(bot_id: int, fields: dict[str, str]) -> bytes:
    lines = "\n".join(f"{key}={fields[key]}" for key in sorted(fields))
    return f"{bot_id}:WebAppData\n{lines}".encode()


def check_webapp_signature(
    bot_id: int, init_data: str, public_key_bytes: bytes = PRODUCTION_PUBLIC_KEY
) -> bool:
    """Whether Telegram signed ``init_data`` for the bot ``bot_id`` (its Ed25519
    ``signature``; the ``hash`` is not looked at). Malformed data is simply not valid."""
    try:
        fields = dict(parse_qsl(init_data, strict_parsing=True))
    except ValueError:
        return False
    encoded = fields.pop("signature", None)
    if not encoded:
        return False
    fields.pop("hash", None)
    try:
        signature = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
    except ValueError:  # binascii.Error too: not base64
        return False
    key = Ed25519PublicKey.from_public_bytes(public_key_bytes)
    try:
        key.verify(signature, _signed_message(bot_id, fields))
    except InvalidSignature:
        return False
    return True


def safe_check_webapp_init_data_from_signature(
    bot_id: int,
    init_data: str,
    public_key_bytes: bytes = PRODUCTION_PUBLIC_KEY,
    *,
    loads: Callable[..., Any] = json.loads,
    max_age: float | None = None,
) -> WebAppInitData:
    """``init_data`` parsed, once its signature checks out, else ``ValueError``; with
    ``max_age`` (seconds), data whose ``auth_date`` is older is refused too (a valid
    string can be replayed)."""
    if not check_webapp_signature(bot_id, init_data, public_key_bytes):
        raise ValueError("Invalid init data signature")
    data = parse_webapp_init_data(init_data, loads=loads)
    if max_age is not None and time.time() - data.auth_date.timestamp() > max_age:
        raise ValueError(f"init data is older than {max_age} seconds")
    return data
