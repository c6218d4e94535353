"""Deep links: ``https://t.me/<bot>?start=<payload>`` and its group and Mini App forms.

Telegram allows only ``A-Z a-z 0-9 _ -`` in a payload, at most 64 characters (512 for
``startapp``). ``encode=True`` carries any text as unpadded base64url;
``CommandStart(deep_link_encoded=True)`` decodes it on the way back. An ``encoder``
(say, a cipher's encrypt) transforms the UTF-8 bytes before base64url, and the matching
``decoder`` undoes it after. ``tgfast.utils.deep_linking`` is aiogram's path to the same.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from .errors import TgfastError
from .utils.link import create_telegram_link

if TYPE_CHECKING:
    from .client import Bot

__all__ = [
    "MAX_PAYLOAD",
    "MAX_STARTAPP_PAYLOAD",
    "DeepLinkError",
    "create_deep_link",
    "create_start_link",
    "create_startapp_link",
    "create_startgroup_link",
    "decode_payload",
    "encode_payload",
]

_ALPHABET = re.compile(r"[A-Za-z0-9_-]*")
MAX_PAYLOAD = 64
MAX_STARTAPP_PAYLOAD = 512
_LIMITS = {"start": MAX_PAYLOAD, "startgroup": MAX_PAYLOAD, "startapp": MAX_STARTAPP_PAYLOAD}


class DeepLinkError(TgfastError, ValueError):
    """A payload that cannot go into a deep link, or cannot be decoded from one."""


def encode_payload(payload: str, encoder: Callable[[bytes], bytes] | None = None) -> str:
    """``payload`` (``str()`` of anything else, as aiogram) as unpadded base64url of its
    UTF-8 bytes, passed through ``encoder`` first if given: safe in any deep link."""
    data = str(payload).encode("utf-8")
    if encoder is not None:
        data = encoder(data)
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def decode_payload(payload: str, decoder: Callable[[bytes], bytes] | None = None) -> str:
    """The text ``encode_payload`` encoded (with the ``decoder`` matching its ``encoder``);
    ``DeepLinkError`` when it is not that."""
    if not _ALPHABET.fullmatch(payload):
        raise DeepLinkError(f"not a base64url payload: {payload!r}")
    padded = payload + "=" * (-len(payload) % 4)
    try:
        data = base64.b64decode(padded, altchars=b"-_", validate=True)
        return (decoder(data) if decoder is not None else data).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError) as exc:
        raise DeepLinkError(f"not a base64url payload: {payload!r} ({exc})") from None


def _payload(
    payload: str, encode: bool, limit: int, encoder: Callable[[bytes], bytes] | None
) -> str:
    encode = encode or encoder is not None
    value = encode_payload(payload, encoder) if encode else str(payload)
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


def create_deep_link(
    username: str,
    link_type: Literal["start", "startgroup", "startapp"],
    payload: str,
    app_name: str | None = None,
    encode: bool = False,
    encoder: Callable[[bytes], bytes] | None = None,
) -> str:
    """The ``link_type`` deep link of the bot ``username``, without asking Telegram."""
    if link_type not in _LIMITS:
        raise ValueError(f"link_type is 'start', 'startgroup' or 'startapp', not {link_type!r}")
    return _link(
        username, link_type, _payload(payload, encode, _LIMITS[link_type], encoder), app_name
    )


def _link(username: str, link_type: str, value: str, app_name: str | None = None) -> str:
    path = (username, app_name) if app_name else (username,)
    return create_telegram_link(*path, **{link_type: value})


async def create_start_link(
    bot: Bot,
    payload: str,
    encode: bool = False,
    encoder: Callable[[bytes], bytes] | None = None,
) -> str:
    """A link that opens a private chat with the bot and sends ``/start <payload>``."""
    value = _payload(payload, encode, MAX_PAYLOAD, encoder)  # refused before asking getMe
    return _link(await _username(bot), "start", value)


async def create_startgroup_link(
    bot: Bot,
    payload: str,
    encode: bool = False,
    encoder: Callable[[bytes], bytes] | None = None,
) -> str:
    """A link that adds the bot to a group; it then gets ``/start <payload>`` there."""
    value = _payload(payload, encode, MAX_PAYLOAD, encoder)
    return _link(await _username(bot), "startgroup", value)


async def create_startapp_link(
    bot: Bot,
    payload: str,
    encode: bool = False,
    app_name: str | None = None,
    encoder: Callable[[bytes], bytes] | None = None,
) -> str:
    """A link that opens the bot's Mini App (its main one, or ``app_name``) with
    ``start_param`` set to ``payload``."""
    value = _payload(payload, encode, MAX_STARTAPP_PAYLOAD, encoder)
    return _link(await _username(bot), "startapp", value, app_name)
