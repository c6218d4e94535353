"""aiogram 3.31's helpers that real bots use, on tgfast's types: ``ChatFullInfo`` (what
``get_chat`` returns) with ``Chat``'s shortcuts, ``InaccessibleMessage.as_reply_parameters``,
``Contact.full_name``, ``MessageEntity.extract_from``, ``ChatType.SENDER``."""

from __future__ import annotations

import inspect

import aiogram.enums as ae
import aiogram.methods
import aiogram.types as at
import pytest

import tgfast.enums as te
import tgfast.types as tt
from tgfast.methods import TelegramMethod

FULL = {
    "id": -5,
    "type": "supergroup",
    "title": "G",
    "accent_color_id": 1,
    "max_reaction_count": 3,
    "accepted_gift_types": {
        "unlimited_gifts": True,
        "limited_gifts": True,
        "unique_gifts": True,
        "premium_subscription": True,
        "gifts_from_channels": True,
    },
}


def _returns_a_method(fn: object) -> bool:
    annotation = str(inspect.signature(fn).return_annotation)  # type: ignore[arg-type]
    return annotation in aiogram.methods.__all__ and annotation != "TelegramMethod"


# Chat's shortcuts, as aiogram's ChatFullInfo inherits them
CHAT_SHORTCUTS = sorted(
    name
    for name, fn in vars(at.Chat).items()
    if inspect.isfunction(fn) and not name.startswith("_") and _returns_a_method(fn)
)


def test_aiogram_chat_has_shortcuts() -> None:
    assert {"leave", "ban", "get_member", "do"} <= set(CHAT_SHORTCUTS)


@pytest.mark.parametrize("name", CHAT_SHORTCUTS)
def test_chat_full_info_has_chat_s_shortcuts(name: str) -> None:
    full = tt.ChatFullInfo.model_validate(FULL)
    ours, as_chat = getattr(full, name), getattr(tt.Chat, name)
    assert inspect.signature(ours) == inspect.signature(as_chat).replace(
        parameters=list(inspect.signature(as_chat).parameters.values())[1:]
    )
    theirs = inspect.signature(getattr(at.ChatFullInfo, name)).return_annotation
    assert inspect.signature(ours).return_annotation in str(theirs)
    if name in ("leave", "get_member_count", "get_administrators", "delete_photo"):
        method = ours()
        assert isinstance(method, TelegramMethod) and method.to_dict()["chat_id"] == -5


def test_inaccessible_message_as_reply_parameters() -> None:
    chat = {"id": -5, "type": "supergroup", "title": "G"}
    ours = tt.InaccessibleMessage.model_validate({"chat": chat, "message_id": 4, "date": 0})
    theirs = at.InaccessibleMessage.model_validate({"chat": chat, "message_id": 4, "date": 0})
    got = ours.as_reply_parameters(quote="q").to_dict()
    want = theirs.as_reply_parameters(quote="q").model_dump(exclude_none=True)
    assert got == {k: v for k, v in want.items() if type(v).__name__ != "Default"}
    assert got == {"message_id": 4, "chat_id": -5, "quote": "q"}


@pytest.mark.parametrize(
    ("text", "offset", "length"),
    [("hello world", 6, 5), ("😀 ab", 3, 2), ("a😀b", 1, 2), ("𝒳y", 0, 2)],
)
def test_extract_from_counts_utf16_as_aiogram(text: str, offset: int, length: int) -> None:
    ours = tt.MessageEntity(type="bold", offset=offset, length=length).extract_from(text)
    theirs = at.MessageEntity(type="bold", offset=offset, length=length).extract_from(text)
    assert ours == theirs


def test_contact_full_name_and_chat_type_sender() -> None:
    assert tt.Contact(phone_number="1", first_name="A", last_name="B").full_name == "A B"
    assert tt.Contact(phone_number="1", first_name="A").full_name == "A"
    assert te.ChatType.SENDER == ae.ChatType.SENDER == "sender"
    assert [m.value for m in te.ChatType] == [m.value for m in ae.ChatType]
