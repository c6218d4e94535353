"""Constructors take what aiogram's take: a keyword the Bot API type does not list (a
deprecated name aiogram keeps, a field of a later Bot API) is kept, read back as an
attribute and sent, as aiogram's models keep it. Decoding does not go through
``__init__``, so this costs decoding nothing."""

from __future__ import annotations

from typing import Any

import aiogram.types as at
import pytest

import tgfast.types as tt

USER = {"id": 1, "is_bot": False, "first_name": "Ann"}

# aiogram's deprecated (or unknown) keywords that bots and aiogram's own tests pass
CASES: list[tuple[str, dict[str, Any]]] = [
    (
        "Poll",
        {
            "id": "p",
            "question": "q?",
            "options": [],
            "total_voter_count": 0,
            "is_closed": False,
            "is_anonymous": True,
            "type": "quiz",
            "allows_multiple_answers": False,
            "allows_revoting": False,
            "members_only": False,
            "correct_option_id": 1,
        },
    ),
    (
        "StickerSet",
        {
            "name": "s",
            "title": "S",
            "sticker_type": "regular",
            "stickers": [],
            "is_animated": False,
        },
    ),
    (
        "BusinessConnection",
        {
            "id": "b",
            "user": USER,
            "user_chat_id": 1,
            "date": 1_700_000_000,
            "is_enabled": True,
            "can_reply": True,
        },
    ),
    ("ChatMemberLeft", {"user": USER, "until_date": 0}),
]


def _build(module: Any, name: str, data: dict[str, Any]) -> Any:
    cls = getattr(module, name)
    if module is at:
        return cls.model_validate(data)
    kwargs = dict(data)
    if "user" in kwargs:
        kwargs["user"] = tt.User(**USER)
    return cls(**kwargs)


@pytest.mark.parametrize(("name", "data"), CASES, ids=[c[0] for c in CASES])
def test_an_extra_keyword_is_kept_as_aiogram_keeps_it(name: str, data: dict[str, Any]) -> None:
    ours = _build(tt, name, data)
    theirs = _build(at, name, data)
    extra = next(k for k in data if not any(row[0] == k for row in ours.__tg_fields__))
    assert getattr(ours, extra) == getattr(theirs, extra) == data[extra]
    dumped = theirs.model_dump(mode="json", exclude_none=True, by_alias=True)
    assert ours.to_dict()[extra] == dumped[extra]


def test_an_unknown_attribute_still_raises() -> None:
    user = tt.User(id=1, is_bot=False, first_name="Ann", nickname="a")
    assert user.nickname == "a"  # type: ignore[attr-defined]
    with pytest.raises(AttributeError, match="'User' object has no attribute 'surname'"):
        _ = user.surname  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        _ = user._private  # type: ignore[attr-defined]
    assert tt.User(id=1, is_bot=False, first_name="A")._extra is None


def test_an_inaccessible_message_defaults_to_date_0_as_aiogram_s() -> None:
    chat = tt.Chat(id=1, type="private")
    ours = tt.InaccessibleMessage(chat=chat, message_id=3)
    theirs = at.InaccessibleMessage(chat=at.Chat(id=1, type="private"), message_id=3)
    assert ours.date == theirs.date == 0
    assert ours.to_dict() == {"chat": {"id": 1, "type": "private"}, "message_id": 3, "date": 0}
