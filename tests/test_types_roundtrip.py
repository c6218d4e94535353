"""Every generated class survives ``to_dict`` -> decode, on both decoders.

The values come from ``strategies``, which reads the generated metadata, so a new
class or field in the spec is covered without touching this file.
"""

from __future__ import annotations

import copy
import pickle
from types import ModuleType
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import (
    ALL_CLASSES,
    UNION_BASES,
    objects,
    roundtrip_values,
    to_json,
    union_members,
    values,
    variant_objects,
)

from tgfast.types import _types
from tgfast.types.base import TelegramObject

CLASS_IDS = [cls.__name__ for cls in ALL_CLASSES]


def test_every_generated_class_is_parametrized() -> None:
    # 400 of Bot API 10.3, InputRichMessageMediaUnion, and two aiogram keeps (legacy_types.json)
    assert len(ALL_CLASSES) == len(_types.__all__) == 403
    assert len(set(CLASS_IDS)) == len(CLASS_IDS)
    assert all(issubclass(cls, TelegramObject) for cls in ALL_CLASSES)


@pytest.mark.parametrize("cls", ALL_CLASSES, ids=CLASS_IDS)
@settings(max_examples=6)
@given(data=st.data())
def test_roundtrip(decoder: ModuleType, cls: type[TelegramObject], data: st.DataObject) -> None:
    value = data.draw(roundtrip_values(cls), label="value")
    encoded = to_json(value)

    converted = decoder.convert(cls, encoded)
    assert type(converted) is type(value)
    assert converted == value
    # repr tells 1 from 1.0 and names every nested class, which == does not.
    assert repr(converted) == repr(value)
    assert to_json(converted) == encoded

    decoded = decoder.decode(cls, orjson.dumps(encoded))
    assert decoded == value
    assert repr(decoded) == repr(value)


UNION_PAIRS = [(base, member) for base in UNION_BASES for member in union_members(base)]


@pytest.mark.parametrize(
    ("cls", "member"), UNION_PAIRS, ids=[f"{b.__name__}-{m.__name__}" for b, m in UNION_PAIRS]
)
@settings(max_examples=3)
@given(data=st.data())
def test_union_member_decodes_to_itself(
    decoder: ModuleType,
    cls: type[TelegramObject],
    member: type[TelegramObject],
    data: st.DataObject,
) -> None:
    """Each member of a union, decoded through the union base, comes back as itself."""
    obj = data.draw(variant_objects(cls, member), label="obj")
    assert type(obj) is member
    again = decoder.decode(cls, orjson.dumps(obj.to_dict()))
    assert type(again) is member
    assert again == obj
    # inside a list of the union, too
    listed = decoder.convert(f"[{cls.__name__}]", [obj.to_dict(), obj.to_dict()])
    assert [type(x) for x in listed] == [member, member]
    assert listed == [obj, obj]


@pytest.mark.parametrize("name", ["RichText", "[RichText]", "[[PhotoSize]]", "int|str", "[int]"])
@settings(max_examples=10)
@given(data=st.data())
def test_type_expressions_roundtrip(decoder: ModuleType, name: str, data: st.DataObject) -> None:
    value = data.draw(values(name), label="value")
    assert decoder.convert(name, to_json(value)) == value
    assert decoder.decode(name, orjson.dumps(to_json(value))) == value


# --- pickling -------------------------------------------------------------------

PICKLED = [
    _types.Update,
    _types.Message,
    _types.ChatMemberAdministrator,
    _types.MaybeInaccessibleMessage,
    _types.InlineQueryResult,
    _types.InputMessageContent,
    _types.ReactionType,
    _types.RichBlock,
    _types.Sticker,
    _types.User,
]


@pytest.mark.parametrize("cls", PICKLED, ids=[c.__name__ for c in PICKLED])
@settings(max_examples=5)
@given(data=st.data())
def test_pickle_roundtrip(
    decoder: ModuleType, cls: type[TelegramObject], data: st.DataObject
) -> None:
    obj = data.draw(objects(cls), label="obj")
    # both a constructed object and one the decoder built slot by slot
    for value in (obj, decoder.decode(cls, orjson.dumps(obj.to_dict()))):
        for protocol in (2, pickle.HIGHEST_PROTOCOL):
            restored = pickle.loads(pickle.dumps(value, protocol=protocol))
            assert type(restored) is type(value)
            assert restored == value
            assert restored._extra == value._extra
            assert restored.to_dict() == value.to_dict()


def test_pickle_keeps_unknown_fields(decoder: ModuleType) -> None:
    update = decoder.decode_update(b'{"update_id": 1, "brand_new_kind": {"a": [1, 2.5]}}')
    restored = pickle.loads(pickle.dumps(update))
    assert restored._extra == {"brand_new_kind": {"a": [1, 2.5]}}
    reaction = decoder.convert(_types.ReactionType, {"type": "future", "x": 1})
    restored_reaction = pickle.loads(pickle.dumps(reaction))
    assert type(restored_reaction) is _types.ReactionType
    assert restored_reaction == reaction
    assert restored_reaction.to_dict() == {"type": "future", "x": 1}


# --- equality and repr ----------------------------------------------------------


class _Other:
    """A value equal to nothing a decoder can produce."""

    def __repr__(self) -> str:
        return "<other>"


def _different(data: st.DataObject, tp: str, required: bool, current: Any) -> Any:
    if current is None:
        return data.draw(values(tp), label="new value")
    if not required:
        return None
    if tp == "true":
        return False
    new = data.draw(values(tp), label="new value")
    return new if new != current else _Other()


@pytest.mark.parametrize("cls", ALL_CLASSES, ids=CLASS_IDS)
@settings(max_examples=4)
@given(data=st.data())
def test_equality_and_repr(cls: type[TelegramObject], data: st.DataObject) -> None:
    obj = data.draw(objects(cls), label="obj")
    clone = copy.copy(obj)
    assert clone is not obj
    assert clone == obj
    assert not (clone != obj)  # __ne__ itself is under test

    text = repr(obj)
    assert text.startswith(type(obj).__name__ + "(") and text.endswith(")")
    for _key, attr, _tp, _req in type(obj).__tg_fields__:
        value = getattr(obj, attr)
        if value is not None:
            assert f"{attr}={value!r}" in text
    for key, value in (obj._extra or {}).items():
        assert f"{key}={value!r}" in text

    # change one field: the objects no longer compare equal
    rows = type(obj).__tg_fields__
    if rows:
        _key, attr, tp, req = data.draw(st.sampled_from(rows), label="field")
        changed = copy.copy(obj)
        setattr(changed, attr, _different(data, tp, req, getattr(obj, attr)))
        assert changed != obj
        assert not (changed == obj)  # __eq__ itself is under test
        assert obj != changed

    # unknown fields take part in equality too
    extra = copy.copy(obj)
    extra._extra = {**(obj._extra or {}), "x_unknown_field": 1}
    assert extra != obj


def test_equality_needs_the_same_class() -> None:
    emoji = _types.ReactionTypeEmoji(emoji="x")
    # a bare union base holding the very same fields is not the variant
    bare = _types.ReactionType(type="emoji", emoji="x")
    assert bare.to_dict() == emoji.to_dict()
    assert bare != emoji
    assert emoji != bare
    # two variants with identical fields but different classes
    left = _types.BotCommandScopeDefault()
    assert left != _types.BotCommandScopeAllPrivateChats()
    assert left == _types.BotCommandScopeDefault()
    assert emoji != {"type": "emoji", "emoji": "x"}


def test_objects_are_unhashable() -> None:
    with pytest.raises(TypeError):
        hash(_types.User(id=1, is_bot=False, first_name="a"))


def test_repr_of_a_nested_object() -> None:
    user = _types.User(id=7, is_bot=False, first_name="Ann")
    msg = _types.Message(
        message_id=1, date=2, chat=_types.Chat(id=7, type="private"), from_user=user, text="hi"
    )
    text = repr(msg)
    assert text.startswith("Message(message_id=1, ")
    assert "from_user=User(id=7, is_bot=False, first_name='Ann')" in text
    assert "chat=Chat(id=7, type='private')" in text
    assert "text='hi'" in text
    assert "caption" not in text  # unset optionals are left out
    bare = _types.ReactionType(type="future", extra=[1])
    assert repr(bare) == "ReactionType(type='future', extra=[1])"
