"""The generated classes, enums and method descriptions have the promised shape."""

from __future__ import annotations

import enum
import inspect
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import ALL_CLASSES, UNION_BASES, objects, split_alternatives, union_members

from tgfast import types as tgtypes
from tgfast.defaults import Default
from tgfast.methods import METHODS, MethodDescription, ParamDescription
from tgfast.types import _types, enums
from tgfast.types.base import TelegramObject, UnionRule
from tgfast.types.enum_base import TelegramEnum

CLASS_IDS = [cls.__name__ for cls in ALL_CLASSES]
PRIMITIVES = {"int", "str", "bool", "float", "true", "InputFile", "date"}
RENAMED = {("from", "from_user"), ("bot", "bot_user")}  # overrides/names.json
ANCHOR = re.compile(r"Bot API: https://core\.telegram\.org/bots/api#([a-z0-9]+)\Z")


def type_names(expr: str) -> list[str]:
    names = []
    for alt in split_alternatives(expr):
        inner = alt
        while inner.startswith("[") and inner.endswith("]"):
            inner = inner[1:-1]
        if inner != alt:
            names.extend(type_names(inner))
        else:
            names.append(alt)
    return names


# --- classes --------------------------------------------------------------------


@pytest.mark.parametrize("cls", ALL_CLASSES, ids=CLASS_IDS)
def test_class_shape(cls: type[TelegramObject]) -> None:
    # slotted all the way up: no instance __dict__ anywhere in the hierarchy
    for klass in cls.__mro__[:-1]:
        assert "__slots__" in klass.__dict__, klass
        assert "__dict__" not in klass.__dict__, klass
    instance = cls.__new__(cls)
    assert not hasattr(instance, "__dict__")
    with pytest.raises(AttributeError):
        instance.not_a_field = 1  # type: ignore[attr-defined]

    doc = inspect.getdoc(cls)
    assert doc, cls
    anchor = ANCHOR.search(doc.rstrip())
    assert anchor, f"{cls.__name__}: docstring does not end with its Bot API anchor"
    # a union the generator names for a field (InputRichMessageMediaUnion) has no anchor of
    # its own: it points at the type whose field takes it
    assert anchor.group(1) == cls.__name__.lower() or (
        cls.__name__.endswith("Union") and anchor.group(1) == cls.__name__[:-5].lower()
    )

    rows = cls.__tg_fields__
    assert isinstance(rows, tuple)
    attrs = [attr for _key, attr, _tp, _req in rows]
    keys = [key for key, _attr, _tp, _req in rows]
    assert len(set(attrs)) == len(attrs) and len(set(keys)) == len(keys)
    # beside the fields, a class with shortcuts remembers the bot that produced it
    bound = {"_bot"} if any(k.__name__.endswith("Shortcuts") for k in cls.__mro__) else set()
    assert set(cls.__dict__.get("__slots__", ())) == set(attrs) | bound
    for key, attr, tp, req in rows:
        assert isinstance(req, bool)
        assert attr.isidentifier() and not attr.startswith("_"), attr
        assert key == attr or (key, attr) in RENAMED, (key, attr)
        for name in type_names(tp):
            assert name in PRIMITIVES or name in _types.__all__, (cls, tp)

    rule = cls.__dict__.get("__tg_union__")
    if rule is not None:
        assert isinstance(rule, UnionRule)
        assert rows == () and cls.__slots__ == ()
        for member in union_members(cls):
            assert issubclass(member, cls) and member is not cls
        assert rule.key is not None or rule.presence
    else:
        # keyword-only __init__ that takes the fields, then any other keyword as aiogram's
        # models do (kept in _extra); required ones have no default
        params = list(inspect.signature(cls.__init__).parameters.values())[1:]
        assert params[-1].name == "extra" and params[-1].kind is inspect.Parameter.VAR_KEYWORD
        params = params[:-1]
        assert [p.name for p in params] == attrs
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params)
        for (key, attr, _tp, req), p in zip(rows, params, strict=True):
            if req and key != attr:
                # the JSON key may give it instead (ManagedBotCreated(bot=...)): checked
                # in __init__, so the signature's default is None
                assert p.default is None, (cls, p)
                with pytest.raises(TypeError, match=f"'{attr}' \\(or '{key}'\\)"):
                    cls(**{a: None for _k, a, _t, _r in rows if a != attr})
            elif not req:
                # a marker naming the bot default it is left to (tools/codegen
                # type_defaults.json)
                fill = cls.__tg_defaults__.get(attr)
                assert p.default is (None if fill is None else Default(fill)), (cls, attr)
            elif p.default is not inspect.Parameter.empty:
                # discriminator constants, and overrides/constants.json's
                assert isinstance(p.default, str) or p.default in (True, 0), (cls, p)
    # a generated class that is a union member lists in its base's rule
    for base in cls.__mro__[1:]:
        if base.__dict__.get("__tg_union__") is not None:
            assert cls in union_members(base), (cls, base)


@pytest.mark.parametrize("cls", ALL_CLASSES, ids=CLASS_IDS)
@settings(max_examples=3)
@given(data=st.data())
def test_to_dict_omits_none(cls: type[TelegramObject], data: st.DataObject) -> None:
    obj = data.draw(objects(cls), label="obj")
    out = obj.to_dict()
    rows = type(obj).__tg_fields__
    present = {key for key, attr, _tp, _req in rows if getattr(obj, attr) is not None}
    assert set(out) == present | set(obj._extra or ())
    assert None not in [out[key] for key in present]
    for key, _attr, _tp, req in rows:
        if req:
            assert key in out, (type(obj), key)


def test_to_dict_example() -> None:
    user = _types.User(id=5, is_bot=True, first_name="Bot", username=None)
    assert user.to_dict() == {"id": 5, "is_bot": True, "first_name": "Bot"}
    msg = _types.Message(
        message_id=1, date=2, chat=_types.Chat(id=3, type="private"), from_user=user
    )
    assert msg.to_dict() == {
        "message_id": 1,
        "from": {"id": 5, "is_bot": True, "first_name": "Bot"},
        "date": 2,
        "chat": {"id": 3, "type": "private"},
    }
    msg._extra = {"future": [1], "date": "ignored: a known field wins"}
    assert msg.to_dict()["future"] == [1]
    assert msg.to_dict()["date"] == 2
    keyboard = _types.InlineKeyboardMarkup(
        inline_keyboard=[[_types.InlineKeyboardButton(text="a", callback_data="1")], []]
    )
    assert keyboard.to_dict() == {"inline_keyboard": [[{"text": "a", "callback_data": "1"}], []]}


def test_new_instances_have_no_extra() -> None:
    assert _types.User(id=1, is_bot=False, first_name="x")._extra is None
    assert _types.ReactionType()._extra is None
    assert _types.ReactionType(type="x")._extra == {"type": "x"}


def test_discriminator_defaults() -> None:
    assert _types.ReactionTypeEmoji(emoji="x").type == "emoji"
    assert _types.ReactionTypePaid().type == "paid"
    assert (
        _types.ChatMemberOwner(
            user=_types.User(id=1, is_bot=False, first_name="a"), is_anonymous=False
        ).status
        == "creator"
    )
    assert (
        _types.ChatMemberBanned(
            user=_types.User(id=1, is_bot=False, first_name="a"), until_date=0
        ).status
        == "kicked"
    )
    assert (
        _types.ChatBoostSourcePremium(user=_types.User(id=1, is_bot=False, first_name="a")).source
        == "premium"
    )
    assert _types.BotCommandScopeDefault().to_dict() == {"type": "default"}
    assert _types.ReactionTypeEmoji(emoji="x").to_dict() == {"type": "emoji", "emoji": "x"}


@pytest.mark.parametrize("base", UNION_BASES, ids=[c.__name__ for c in UNION_BASES])
def test_union_tags_match_init_defaults(base: type[TelegramObject]) -> None:
    rule: UnionRule = base.__dict__["__tg_union__"]
    for tag, member in rule.variants.items():
        attr = next(a for k, a, _t, _r in member.__tg_fields__ if k == rule.key)
        default = inspect.signature(member.__init__).parameters[attr].default
        # every variant but InaccessibleMessage (date == 0, no default) is built with its tag
        if default is inspect.Parameter.empty:
            assert (base, tag, member) == (
                _types.MaybeInaccessibleMessage,
                0,
                _types.InaccessibleMessage,
            )
        else:
            assert default == tag
    for key, member in rule.presence:
        assert any(k == key and req for k, _a, _t, req in member.__tg_fields__), (member, key)


def test_union_base_counts() -> None:
    # the spec's 26 unions and InputRichMessageMediaUnion, which the generator names
    assert len(UNION_BASES) == 27
    assert _types.MaybeInaccessibleMessage.__tg_union__.default is _types.Message
    assert _types.RichText.__tg_union__.allow_str and _types.RichText.__tg_union__.allow_list


def test_types_package_exports() -> None:
    assert tgtypes.API_VERSION == "10.3"
    for name in _types.__all__:
        assert getattr(tgtypes, name) is getattr(_types, name)
    for name in enums.__all__:
        assert getattr(tgtypes, name) is getattr(enums, name)
    assert tgtypes.TelegramObject is TelegramObject


# --- enums ----------------------------------------------------------------------


class ChatType(str, enum.Enum):
    """Declared as aiogram declares its enums (the suite's debug run has no aiogram)."""

    SUPERGROUP = "supergroup"
    CHANNEL = "channel"


def test_enum_known_value() -> None:
    assert enums.ChatType("private") is enums.ChatType.PRIVATE
    assert enums.ChatType.PRIVATE == "private"
    # text made from a member is what aiogram's (str, Enum) gives on this Python
    assert str(enums.ChatType.SUPERGROUP) == str(ChatType.SUPERGROUP)
    assert f"{enums.ChatType.CHANNEL}" == f"{ChatType.CHANNEL}"
    assert enums.ChatType.CHANNEL.value == "channel"
    assert isinstance(enums.ChatType.PRIVATE, str)
    assert enums.UpdateType("message") is enums.UpdateType.MESSAGE
    assert enums.ChatMemberStatus("kicked") is enums.ChatMemberStatus("kicked")


def test_enum_unknown_value() -> None:
    value = enums.ChatType("space_station")
    assert value == "space_station"
    assert value.value == "space_station"
    assert isinstance(value, enums.ChatType) and isinstance(value, str)
    assert "space_station" not in enums.ChatType._value2member_map_
    assert value not in list(enums.ChatType)
    with pytest.raises(ValueError):
        enums.ChatType(5)


@pytest.mark.parametrize("name", enums.__all__)
def test_every_enum(name: str) -> None:
    enum = getattr(enums, name)
    if issubclass(enum, int):  # a numeric enum (TopicIconColor): plain, as aiogram's
        assert all(isinstance(m.value, int) and enum(m.value) is m for m in enum)
        with pytest.raises(ValueError):
            enum(1)
        return
    assert issubclass(enum, TelegramEnum) and issubclass(enum, str)
    members = list(enum)
    assert members
    for member in members:
        assert enum(member.value) is member
        assert member == member.value and str.__str__(member) == member.value
    assert enum("zz_unknown_value") == "zz_unknown_value"


def test_update_type_enum_matches_update_fields() -> None:
    kinds = {key for key, _a, _t, req in _types.Update.__tg_fields__ if not req}
    assert {m.value for m in enums.UpdateType} == kinds


# --- methods --------------------------------------------------------------------


def test_method_count_and_send_message() -> None:
    assert len(METHODS) == 185
    send = METHODS["sendMessage"]
    assert isinstance(send, MethodDescription)
    assert send.name == "sendMessage"
    assert send.returns == "Message"
    assert send.href == "https://core.telegram.org/bots/api#sendmessage"
    params = {p.name: p for p in send.params}
    assert params["chat_id"].required is True
    assert params["chat_id"].type == "int|str"
    assert params["text"].required is True and params["text"].type == "str"
    assert params["parse_mode"].required is False
    assert params["entities"].type == "[MessageEntity]"
    assert METHODS["getUpdates"].returns == "[Update]"
    assert METHODS["getMe"].params == ()
    assert METHODS["getMe"].returns == "User"


@pytest.mark.parametrize("name", sorted(METHODS))
def test_every_method(name: str) -> None:
    method = METHODS[name]
    assert method.name == name
    assert method.href == f"https://core.telegram.org/bots/api#{name.lower()}"
    assert method.description
    for expr in [method.returns, *(p.type for p in method.params)]:
        for tp in type_names(expr):
            assert tp in PRIMITIVES or tp in _types.__all__, (name, expr)
    seen: set[str] = set()
    for p in method.params:
        assert isinstance(p, ParamDescription)
        assert p.attr.isidentifier() and p.name not in seen
        seen.add(p.name)


def test_type_names_helper() -> None:
    assert type_names("[[PhotoSize]]") == ["PhotoSize"]
    assert type_names("InputFile|str") == ["InputFile", "str"]
    assert type_names("[A|B]|C") == ["A", "B", "C"]
