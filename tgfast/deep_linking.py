"""Deep links: ``https://t.me/<bot>?start=<payload>`` and its group and Mini App forms.

Telegram allows only ``A-Z a-z 0-9 _ -`` in a payload, at most 64 characters (512 for
``startapp``). ``encode=True`` carries any text as unpadded base64url;
``CommandStart(deep_link_encoded=True)`` decodes it on the way back.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import TYPE_CHECKING

from .errors import TgfastError

if TYPE_CHECKING:
    from .client import Bot

__all__ = [
    "MAX_PAYLOAD",
    "MAX_STARTAPP_PAYLOAD",
    "DeepLinkError",
    "create_start_link",
    "create_startapp_link",
    "create_startgroup_link",
    "decode_payload",
    "encode_payload",
]

_ALPHABET = re.compile(r"[A-Za-z0-9_-]*")
MAX_PAYLOAD = 64
MAX_STARTAPP_PAYLOAD = 512


class DeepLinkError(TgfastError, ValueError):
    """A payload that cannot go into a deep link, or cannot be decoded from one."""


def encode_payload(payload: str) -> str:
    """``payload`` as unpadded base64url of its UTF-8 bytes: safe in any deep link."""
    return base64.urlsafe_b64encode(payload.encode("utf-8")).rstrip(b"=").decode("ascii")


def decode_payload(payload: str) -> str:
    """The text ``encode_payload`` encoded; ``DeepLinkError`` when it is not that."""
    if not _ALPHABET.fullmatch(payload):
        raise DeepLinkError(f"not a base64url payload: {payload!r}")
    padded = payload + "=" * (-len(payload) % 4)
    try:
        return base64.b64decode(padded, altchars=b"-_", validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError) as exc:
        raise DeepLinkError(f"not a base64url payload: {payload!r} ({exc})") from None


def _payload(payload: str, encode: bool, limit: int) -> str:
    if not isinstance(payload, str):
        raise TypeError(f"a deep-link payload is a str, got {payload!r}")
    value = encode_payload(payload) if encode else payload
    if len(value) > limit:
        encoded = " once base64-encoded" if encode else ""
        raise DeepLinkError(
            f"a deep-link payload is at most {limit} characters; this one is {len(value)}{encoded}"
        )
    if not _ALPHABET.fullmatch(value):
        raise DeepLinkError(
            f"a deep-link payload may hold only A-Z, a-z, 0-9, _ and -: {payload!r};"
            " pass encode=True to carry any text"
        )
    return value


async def _username(bot: Bot) -> str:
    username = (await bot.me()).username
    if not username:
        raise DeepLinkError("the bot has no username, so it has no t.me link")
    return username


async def create_start_link(bot: Bot, payload: str, encode: bool = False) -> str:
    """A link that opens a private chat with the bot and sends ``/start <payload>``."""
    value = _payload(payload, encode, MAX_PAYLOAD)
    return f"https://t.me/{await _username(bot)}?start={value}"


async def create_startgroup_link(bot: Bot, payload: str, encode: bool = False) -> str:
    """A link that adds the bot to a group; it then gets ``/start <payload>`` there."""
    value = _payload(payload, encode, MAX_PAYLOAD)
    return f"https://t.me/{await _username(bot)}?startgroup={value}"


async def create_startapp_link(
    bot: Bot, payload: str, encode: bool = False, app_name: str | None = None
) -> str:
    """A link that opens the bot's Mini App (its main one, or ``app_name``) with
    ``start_param`` set to ``payload``."""
    value = _payload(payload, encode, MAX_STARTAPP_PAYLOAD)
    path = f"{await _username(bot)}/{app_name}" if app_name else await _username(bot)
    return f"https://t.me/{path}?startapp={value}"
