"""``ChatMemberUpdatedFilter``: a member's status, or its change, in ``chat_member`` and
``my_chat_member`` updates.

Statuses are markers (``MEMBER``, ``ADMINISTRATOR``, ...) combined with ``|`` into a
group; ``old >> new`` (or ``new << old``) is a transition, ``~transition`` the
reverse one. ``+RESTRICTED`` is a restricted user who is still a member of the chat
(``is_member``), ``-RESTRICTED`` one who is not: so ``IS_MEMBER`` counts a muted
member in and ``IS_NOT_MEMBER`` a restricted user who left. A marker alone (or a
group) checks the new status only.
"""

from __future__ import annotations

from typing import Any

from .base import Filter, sync_twin

__all__ = [
    "ADMINISTRATOR",
    "CREATOR",
    "IS_ADMIN",
    "IS_MEMBER",
    "IS_NOT_MEMBER",
    "JOIN_TRANSITION",
    "KICKED",
    "LEAVE_TRANSITION",
    "LEFT",
    "MEMBER",
    "PROMOTED_TRANSITION",
    "RESTRICTED",
    "ChatMemberUpdatedFilter",
    "MemberStatus",
    "MemberStatusGroup",
    "MemberStatusTransition",
]


class MemberStatus:
    """One ``ChatMember.status``, optionally with the ``is_member`` it must have."""

    __slots__ = ("is_member", "name")

    def __init__(self, name: str, *, is_member: bool | None = None) -> None:
        self.name = name
        self.is_member = is_member

    def __pos__(self) -> MemberStatus:
        return MemberStatus(self.name, is_member=True)

    def __neg__(self) -> MemberStatus:
        return MemberStatus(self.name, is_member=False)

    def __or__(self, other: MemberStatus | MemberStatusGroup) -> MemberStatusGroup:
        return MemberStatusGroup(self) | other

    __ror__ = __or__

    def __rshift__(self, other: MemberStatus | MemberStatusGroup) -> MemberStatusTransition:
        return MemberStatusGroup(self) >> other

    def __lshift__(self, other: MemberStatus | MemberStatusGroup) -> MemberStatusTransition:
        return MemberStatusGroup(self) << other

    def check(self, *, member: Any) -> bool:
        if self.is_member is not None and getattr(member, "is_member", None) != self.is_member:
            return False  # only ChatMemberRestricted has is_member
        return getattr(member, "status", None) == self.name

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, MemberStatus)
            and other.name == self.name
            and other.is_member == self.is_member
        )

    def __hash__(self) -> int:
        return hash((self.name, self.is_member))

    def __str__(self) -> str:
        sign = "" if self.is_member is None else "+" if self.is_member else "-"
        return sign + self.name.upper()

    __repr__ = __str__


class MemberStatusGroup:
    """Any of several statuses: ``MEMBER | ADMINISTRATOR``."""

    __slots__ = ("statuses",)

    def __init__(self, *statuses: MemberStatus) -> None:
        if not statuses:
            raise ValueError("a member status group needs at least one status")
        self.statuses = frozenset(statuses)

    def __or__(self, other: MemberStatus | MemberStatusGroup) -> MemberStatusGroup:
        return MemberStatusGroup(*self.statuses, *_group(other, "|").statuses)

    __ror__ = __or__

    def __rshift__(self, other: MemberStatus | MemberStatusGroup) -> MemberStatusTransition:
        return MemberStatusTransition(old=self, new=_group(other, ">>"))

    def __lshift__(self, other: MemberStatus | MemberStatusGroup) -> MemberStatusTransition:
        return MemberStatusTransition(old=_group(other, "<<"), new=self)

    def check(self, *, member: Any) -> bool:
        return any(status.check(member=member) for status in self.statuses)

    def __str__(self) -> str:
        text = " | ".join(sorted(map(str, self.statuses)))
        return text if len(self.statuses) == 1 else f"({text})"

    __repr__ = __str__


class MemberStatusTransition:
    """A change of status: ``old`` before, ``new`` after."""

    __slots__ = ("new", "old")

    def __init__(self, *, old: MemberStatusGroup, new: MemberStatusGroup) -> None:
        self.old = old
        self.new = new

    def __invert__(self) -> MemberStatusTransition:
        return MemberStatusTransition(old=self.new, new=self.old)

    def check(self, *, old: Any, new: Any) -> bool:
        return self.old.check(member=old) and self.new.check(member=new)

    def __str__(self) -> str:
        return f"{self.old} >> {self.new}"

    __repr__ = __str__


def _group(other: object, op: str) -> MemberStatusGroup:
    if isinstance(other, MemberStatus):
        return MemberStatusGroup(other)
    if isinstance(other, MemberStatusGroup):
        return other
    raise TypeError(f"unsupported operand for {op}: a member status, not {type(other).__name__}")


# aiogram's private names of the same classes, which its users' tests import
_MemberStatusMarker = MemberStatus
_MemberStatusGroupMarker = MemberStatusGroup
_MemberStatusTransition = MemberStatusTransition

CREATOR = MemberStatus("creator")
ADMINISTRATOR = MemberStatus("administrator")
MEMBER = MemberStatus("member")
RESTRICTED = MemberStatus("restricted")
LEFT = MemberStatus("left")
KICKED = MemberStatus("kicked")

IS_MEMBER = CREATOR | ADMINISTRATOR | MEMBER | +RESTRICTED
IS_ADMIN = CREATOR | ADMINISTRATOR
IS_NOT_MEMBER = LEFT | KICKED | -RESTRICTED

JOIN_TRANSITION = IS_NOT_MEMBER >> IS_MEMBER
LEAVE_TRANSITION = ~JOIN_TRANSITION
PROMOTED_TRANSITION = (MEMBER | RESTRICTED | LEFT | KICKED) >> ADMINISTRATOR


class ChatMemberUpdatedFilter(Filter):
    """``@router.chat_member(ChatMemberUpdatedFilter(JOIN_TRANSITION))``: passes when
    the update's status change matches (a status or group: the new status does)."""

    __slots__ = ("member_status_changed",)

    def __init__(
        self, member_status_changed: MemberStatus | MemberStatusGroup | MemberStatusTransition
    ) -> None:
        if not isinstance(
            member_status_changed, (MemberStatus, MemberStatusGroup, MemberStatusTransition)
        ):
            raise TypeError(
                "ChatMemberUpdatedFilter takes a status (MEMBER), a group (IS_MEMBER) or a "
                f"transition (JOIN_TRANSITION), not {member_status_changed!r}"
            )
        self.member_status_changed = member_status_changed

    @sync_twin
    async def __call__(self, member_updated: Any) -> bool:
        return self.check(member_updated)

    def check(self, event: Any, /) -> bool:
        rule = self.member_status_changed
        new = getattr(event, "new_chat_member", None)
        if isinstance(rule, MemberStatusTransition):
            return rule.check(old=getattr(event, "old_chat_member", None), new=new)
        return rule.check(member=new)

    def __repr__(self) -> str:
        return f"ChatMemberUpdatedFilter(member_status_changed={self.member_status_changed})"
