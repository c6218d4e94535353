"""Telegram links at aiogram's path: ``tg://`` and ``https://t.me/`` with a query.

``create_channel_bot_link`` asks Telegram to add a bot to a channel or group with the
admin rights named here (``?startgroup=...&admin=post_messages+...``). ``docs_url``
links into tgfast's documentation, where aiogram's links into aiogram's.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode, urljoin

__all__ = [
    "BASE_DOCS_URL",
    "BASE_PAGE_URL",
    "BRANCH",
    "create_channel_bot_link",
    "create_telegram_link",
    "create_tg_link",
    "docs_url",
]

BASE_DOCS_URL = "https://github.com/tgfast/tgfast/blob"
"""Where tgfast's documentation is published: the ``docs/`` of its repository."""
BRANCH = "main"
BASE_PAGE_URL = f"{BASE_DOCS_URL}/{BRANCH}/docs/"

# the order aiogram writes them in, which Telegram does not care about but tests do
_ADMIN_RIGHTS = (
    "change_info",
    "post_messages",
    "edit_messages",
    "delete_messages",
    "restrict_members",
    "invite_users",
    "pin_messages",
    "promote_members",
    "manage_video_chats",
    "anonymous",
    "manage_chat",
)


def _link(base: str, path: tuple[str, ...], fragment: str | None, query: dict[str, Any]) -> str:
    url = urljoin(base, "/".join(path))
    if query:
        url = f"{url}?{urlencode(query)}"
    return f"{url}#{fragment}" if fragment else url


def docs_url(*path: str, fragment_: str | None = None, **query: Any) -> str:
    """A page of tgfast's documentation: ``docs_url("fsm.md", fragment_="storages")``."""
    return _link(BASE_PAGE_URL, path, fragment_, query)


def create_tg_link(link: str, *, fragment_: str | None = None, **query: Any) -> str:
    """``tg://<link>?<query>``: opens the Telegram app itself (``tg://user?id=42``)."""
    return _link(f"tg://{link}", (), fragment_, query)


def create_telegram_link(*path: str, fragment_: str | None = None, **query: Any) -> str:
    """``https://t.me/<path...>?<query>``: works in a browser too."""
    return _link("https://t.me", path, fragment_, query)


def create_channel_bot_link(
    username: str,
    parameter: str | None = None,
    change_info: bool = False,
    post_messages: bool = False,
    edit_messages: bool = False,
    delete_messages: bool = False,
    restrict_members: bool = False,
    invite_users: bool = False,
    pin_messages: bool = False,
    promote_members: bool = False,
    manage_video_chats: bool = False,
    anonymous: bool = False,
    manage_chat: bool = False,
) -> str:
    """A link adding bot ``username`` to a chat, asking for the rights passed as ``True``;
    ``parameter`` comes back to the bot as ``/start <parameter>``."""
    wanted = locals()
    query: dict[str, str] = {}
    if parameter is not None:
        query["startgroup"] = parameter
    rights = [right for right in _ADMIN_RIGHTS if wanted[right]]
    if rights:
        query["admin"] = "+".join(rights)
    return create_telegram_link(username, **query)
