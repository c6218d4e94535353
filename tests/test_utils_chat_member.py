"""tgfast.utils.chat_member: aiogram's member groups over tgfast's ChatMember* classes."""

from __future__ import annotations

import aiogram.types
import pytest
from aiogram.utils import chat_member as aiogram_cm

import tgfast.types
from tgfast.utils import chat_member

GROUPS = ["ADMINS", "USERS", "MEMBERS", "NOT_MEMBERS"]


@pytest.mark.parametrize("group", GROUPS)
def test_groups_hold_aiogram_classes_by_name(group: str) -> None:
    ours = getattr(chat_member, group)
    theirs = getattr(aiogram_cm, group)
    assert [cls.__name__ for cls in ours] == [cls.__name__ for cls in theirs]
    assert all(cls is getattr(tgfast.types, cls.__name__) for cls in ours)


def test_module_names_match_aiogram() -> None:
    public = {name for name in vars(aiogram_cm) if name.isupper() or name.startswith("ChatMember")}
    public -= {"ChatMember"} | {n for n in vars(aiogram.types) if n.startswith("ChatMember")}
    assert public <= set(chat_member.__all__)


MEMBER_JSON = {
    "owner": {"status": "creator", "is_anonymous": False},
    "member": {"status": "member"},
    "banned": {"status": "kicked", "until_date": 0},
    "left": {"status": "left"},
}


@pytest.mark.parametrize("kind", sorted(MEMBER_JSON))
def test_adapter_picks_the_class_aiogram_picks(kind: str) -> None:
    data = {**MEMBER_JSON[kind], "user": {"id": 7, "is_bot": False, "first_name": "U"}}
    ours = chat_member.ChatMemberAdapter.validate_python(data)
    theirs = aiogram_cm.ChatMemberAdapter.validate_python(data)
    assert type(ours).__name__ == type(theirs).__name__
    assert ours.user.id == 7
    assert isinstance(ours, chat_member.MEMBERS) == isinstance(theirs, aiogram_cm.MEMBERS)
    from_json = chat_member.ChatMemberAdapter.validate_json(
        aiogram_cm.ChatMemberAdapter.dump_json(theirs)
    )
    assert type(from_json) is type(ours)
