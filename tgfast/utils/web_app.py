"""Mini App (Web App) init data at aiogram's path: check its signature, parse it.

A Mini App sends ``Telegram.WebApp.initData`` (a query string) to the bot's server. Its
``hash`` is HMAC-SHA256 of the other fields (sorted ``key=value`` lines) under the key
HMAC-SHA256("WebAppData", bot token): only someone with the token can make it. Parse only
what passed the check (``safe_parse_webapp_init_data``); ``max_age`` also refuses data
opened too long ago, since a valid string can be replayed.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar
from urllib.parse import parse_qsl

from ..types.base import TelegramObject, as_datetime, keep_extra

__all__ = [
    "WebAppChat",
    "WebAppInitData",
    "WebAppUser",
    "check_webapp_signature",
    "parse_webapp_init_data",
    "safe_parse_webapp_init_data",
]

_T = TypeVar("_T", bound="_WebAppObject")


class _WebAppObject(TelegramObject):
    """Objects of the Mini App protocol, not of the Bot API: the generated decoder does
    not know them, so ``model_validate`` builds them here."""

    __slots__ = ()

    @classmethod
    def model_validate(
        cls: type[_T], obj: Any, *, context: dict[str, Any] | None = None, **_: Any
    ) -> _T:
        """A JSON dict (nested objects too) -> an instance; ``ValueError`` when a required
        field is missing."""
        if isinstance(obj, cls):
            return obj
        if not isinstance(obj, dict):
            raise ValueError(f"{cls.__name__} is made from a JSON object, not {obj!r}")
        kwargs = {str(key): value for key, value in obj.items()}
        for key, attr, tp, required in cls.__tg_fields__:
            value = kwargs.get(key)
            if value is None and required:
                raise ValueError(f"{cls.__name__} lacks its required field {key!r}")
            if tp in _NESTED and value is not None:
                kwargs[attr] = _NESTED[tp].model_validate(value)
        return cls(**kwargs)


class WebAppUser(_WebAppObject):
    """The user (or chat partner) a Mini App was opened by.

    https://core.telegram.org/bots/webapps#webappuser
    """

    __slots__ = (
        "id",
        "is_bot",
        "first_name",
        "last_name",
        "username",
        "language_code",
        "is_premium",
        "added_to_attachment_menu",
        "allows_write_to_pm",
        "photo_url",
    )
    __tg_fields__ = (
        ("id", "id", "int", True),
        ("is_bot", "is_bot", "bool", False),
        ("first_name", "first_name", "str", True),
        ("last_name", "last_name", "str", False),
        ("username", "username", "str", False),
        ("language_code", "language_code", "str", False),
        ("is_premium", "is_premium", "bool", False),
        ("added_to_attachment_menu", "added_to_attachment_menu", "bool", False),
        ("allows_write_to_pm", "allows_write_to_pm", "bool", False),
        ("photo_url", "photo_url", "str", False),
    )

    def __init__(
        self,
        *,
        id: int,
        first_name: str,
        is_bot: bool | None = None,
        last_name: str | None = None,
        username: str | None = None,
        language_code: str | None = None,
        is_premium: bool | None = None,
        added_to_attachment_menu: bool | None = None,
        allows_write_to_pm: bool | None = None,
        photo_url: str | None = None,
        **extra: Any,
    ) -> None:
        self.id = id
        self.is_bot = is_bot
        self.first_name = first_name
        self.last_name = last_name
        self.username = username
        self.language_code = language_code
        self.is_premium = is_premium
        self.added_to_attachment_menu = added_to_attachment_menu
        self.allows_write_to_pm = allows_write_to_pm
        self.photo_url = photo_url
        keep_extra(self, extra)


class WebAppChat(_WebAppObject):
    """The group or channel a Mini App was opened in from the attachment menu.

    https://core.telegram.org/bots/webapps#webappchat
    """

    __slots__ = ("id", "type", "title", "username", "photo_url")
    __tg_fields__ = (
        ("id", "id", "int", True),
        ("type", "type", "str", True),
        ("title", "title", "str", True),
        ("username", "username", "str", False),
        ("photo_url", "photo_url", "str", False),
    )

    def __init__(
        self,
        *,
        id: int,
        type: str,
        title: str,
        username: str | None = None,
        photo_url: str | None = None,
        **extra: Any,
    ) -> None:
        self.id = id
        self.type = type
        self.title = title
        self.username = username
        self.photo_url = photo_url
        keep_extra(self, extra)


class WebAppInitData(_WebAppObject):
    """What Telegram hands a Mini App when it opens (``Telegram.WebApp.initData``).

    https://core.telegram.org/bots/webapps#webappinitdata
    """

    __slots__ = (
        "query_id",
        "user",
        "receiver",
        "chat",
        "chat_type",
        "chat_instance",
        "start_param",
        "can_send_after",
        "auth_date",
        "hash",
        "signature",
    )
    __tg_fields__ = (
        ("query_id", "query_id", "str", False),
        ("user", "user", "WebAppUser", False),
        ("receiver", "receiver", "WebAppUser", False),
        ("chat", "chat", "WebAppChat", False),
        ("chat_type", "chat_type", "str", False),
        ("chat_instance", "chat_instance", "str", False),
        ("start_param", "start_param", "str", False),
        ("can_send_after", "can_send_after", "int", False),
        ("auth_date", "auth_date", "date", True),
        ("hash", "hash", "str", True),
        ("signature", "signature", "str", False),
    )

    def __init__(
        self,
        *,
        auth_date: datetime | int,
        hash: str,
        query_id: str | None = None,
        user: WebAppUser | None = None,
        receiver: WebAppUser | None = None,
        chat: WebAppChat | None = None,
        chat_type: str | None = None,
        chat_instance: str | None = None,
        start_param: str | None = None,
        can_send_after: int | None = None,
        signature: str | None = None,
        **extra: Any,
    ) -> None:
        self.query_id = query_id
        self.user = user
        self.receiver = receiver
        self.chat = chat
        self.chat_type = chat_type
        self.chat_instance = chat_instance
        self.start_param = start_param
        self.can_send_after = can_send_after
        self.auth_date = as_datetime(auth_date)
        self.hash = hash
        self.signature = signature
        keep_extra(self, extra)


_NESTED: dict[str, type[_WebAppObject]] = {"WebAppUser": WebAppUser, "WebAppChat": WebAppChat}


def check_webapp_signature(token: str, init_data: str) -> bool:
    """Whether ``init_data`` was signed with ``token`` (compared in constant time)."""
    try:
        fields = dict(parse_qsl(init_data, strict_parsing=True))
    except ValueError:
        return False
    received = fields.pop("hash", None)
    if received is None:
        return False
    check_string = "\n".join(f"{key}={fields[key]}" for key in sorted(fields))
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    expected = hmac.new(secret, check_string.encode(), hashlib.sha256).hexdigest()
    # as bytes: compare_digest refuses a str holding non-ASCII, which a forger may send
    return hmac.compare_digest(expected.encode(), received.encode())


def _int(value: str, name: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"init data field {name!r} is not an integer: {value!r}") from None


def parse_webapp_init_data(
    init_data: str, *, loads: Callable[..., Any] = json.loads
) -> WebAppInitData:
    """``init_data`` as a ``WebAppInitData``, unchecked: trust only what
    ``check_webapp_signature`` passed (or use ``safe_parse_webapp_init_data``)."""
    fields: dict[str, Any] = dict(parse_qsl(init_data))
    for name in ("user", "receiver", "chat"):
        if name in fields:
            fields[name] = loads(fields[name])
    for name in ("can_send_after", "auth_date"):
        if name in fields:
            fields[name] = _int(fields[name], name)
    return WebAppInitData.model_validate(fields)


def safe_parse_webapp_init_data(
    token: str,
    init_data: str,
    *,
    loads: Callable[..., Any] = json.loads,
    max_age: float | None = None,
) -> WebAppInitData:
    """``parse_webapp_init_data`` of data signed with ``token``, else ``ValueError``;
    with ``max_age`` (seconds), data whose ``auth_date`` is older is refused too."""
    if not check_webapp_signature(token, init_data):
        raise ValueError("Invalid init data signature")
    data = parse_webapp_init_data(init_data, loads=loads)
    if max_age is not None and time.time() - data.auth_date.timestamp() > max_age:
        raise ValueError(f"init data is older than {max_age} seconds")
    return data
