"""``tgfast.enums`` at aiogram's path: every name of ``aiogram.enums.__all__`` imports from
it and holds the same values, or fails with an ImportError that says why. A new aiogram
release that adds an enum shows up here."""

from __future__ import annotations

import aiogram.enums
import pytest

import tgfast.enums
import tgfast.types

# a property of the sources and of aiogram, not of the build
pytestmark = pytest.mark.once

UNSUPPORTED = {"Currency"}
AIOGRAM_ONLY = "aiogram's own value, not the Bot API's"
# values aiogram's enums have and tgfast's do not, each with its reason (issue #14 tracks
# the aiogram-only ones); anything else missing fails
KNOWN_GAPS: dict[str, dict[str, str]] = {
    "InlineQueryResultType": {"sticker": "aiogram's: no InlineQueryResult has type sticker"},
    "InputMediaType": {
        "location": AIOGRAM_ONLY,
        "sticker": AIOGRAM_ONLY,
        "venue": AIOGRAM_ONLY,
    },
}


@pytest.mark.parametrize("name", sorted(aiogram.enums.__all__))
def test_every_aiogram_enum_is_here_or_says_why(name: str) -> None:
    theirs = getattr(aiogram.enums, name)
    if name in UNSUPPORTED:
        with pytest.raises(ImportError, match=f"tgfast.enums has no {name}: .+"):
            exec(f"from tgfast.enums import {name}", {})
        return
    ours = getattr(tgfast.enums, name)
    assert name in tgfast.enums.__all__
    # the same values, less the known gaps; tgfast may know more (a value aiogram has
    # not caught up with)
    missing = {m.value for m in theirs} - {m.value for m in ours}
    assert missing == set(KNOWN_GAPS.get(name, {})), name
    for member in theirs:
        if member.value not in missing:
            assert ours(member.value) == member.value  # a str enum compares as its value


def test_unknown_names_are_attribute_errors() -> None:
    assert not hasattr(tgfast.enums, "NoSuchEnum")
    with pytest.raises(ImportError, match="cannot import name 'NoSuchEnum'"):
        exec("from tgfast.enums import NoSuchEnum", {})


def test_encrypted_passport_element_keeps_both_names() -> None:
    assert tgfast.enums.EncryptedPassportElement is tgfast.enums.EncryptedPassportElementType
    # the type of that name stays the type in tgfast.types
    assert tgfast.types.EncryptedPassportElement is not tgfast.enums.EncryptedPassportElement
