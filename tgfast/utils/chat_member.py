"""Groups of chat member states at aiogram's path: ``ADMINS``, ``USERS``, ``MEMBERS``,
``NOT_MEMBERS`` (tuples for ``isinstance``), and ``ChatMemberAdapter`` to decode one.
"""

from __future__ import annotations

from typing import Any, TypeAlias

import orjson

from ..decoding import convert
from ..types import (
    ChatMember,
    ChatMemberAdministrator,
    ChatMemberBanned,
    ChatMemberLeft,
    ChatMemberMember,
    ChatMemberOwner,
    ChatMemberRestricted,
)

__all__ = [
    "ADMINS",
    "MEMBERS",
    "NOT_MEMBERS",
    "USERS",
    "ChatMemberAdapter",
    "ChatMemberCollection",
    "ChatMemberUnion",
]

ChatMemberUnion: TypeAlias = (
    ChatMemberOwner
    | ChatMemberAdministrator
    | ChatMemberMember
    | ChatMemberRestricted
    | ChatMemberLeft
    | ChatMemberBanned
)
ChatMemberCollection: TypeAlias = tuple[type[ChatMember], ...]

ADMINS: ChatMemberCollection = (ChatMemberOwner, ChatMemberAdministrator)
USERS: ChatMemberCollection = (ChatMemberMember, ChatMemberRestricted)
MEMBERS: ChatMemberCollection = ADMINS + USERS
NOT_MEMBERS: ChatMemberCollection = (ChatMemberLeft, ChatMemberBanned)


class _ChatMemberAdapter:
    """The two calls bots make on aiogram's pydantic ``TypeAdapter``, by ``status``
    through tgfast's decoder (no pydantic here)."""

    __slots__ = ()

    def validate_python(self, data: Any) -> ChatMemberUnion:
        """A parsed JSON object -> the ``ChatMember*`` class its ``status`` names."""
        member: ChatMemberUnion = convert(ChatMember, data)
        return member

    def validate_json(self, data: str | bytes | bytearray) -> ChatMemberUnion:
        """JSON text -> the ``ChatMember*`` class its ``status`` names."""
        return self.validate_python(orjson.loads(data))


ChatMemberAdapter = _ChatMemberAdapter()
