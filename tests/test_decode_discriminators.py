"""Union discriminators (issue #16 item 10), in both builds.

The unions are read from the vendored spec, not from the generated rules, so a union
whose discriminator the generator lost is caught too: a union is discriminated when
every member has a ``type`` / ``status`` / ``source`` field the spec describes as
"always X". A known value picks the variant, an unknown string is a newer variant
(the base class with the raw fields, forward-compatible), and a discriminator that is
missing, ``null`` or not a string is a malformed object: a ``DecodeError`` at its path.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import union_members, variant_objects

from tgfast import DecodeError
from tgfast.types import _types as T
from tgfast.types.base import TelegramObject

SPEC = Path(__file__).resolve().parents[1] / "tools" / "codegen" / "spec" / "api.json"
_CONSTANT = re.compile(r"(?:always|must be) [\"“]?([A-Za-z0-9_]+)[\"”]?")
UNKNOWN = "x_no_such_variant"


def _discriminated() -> list[tuple[type[TelegramObject], str, dict[str, list[str]]]]:
    """(union base, discriminator key, value -> member names) for every union of the spec
    whose members all carry a constant discriminator."""
    types = json.loads(SPEC.read_bytes())["types"]
    out = []
    for name, raw in types.items():
        members = [s for s in raw.get("subtypes", ()) if s in types and "subtypes" not in types[s]]
        for key in ("type", "status", "source"):
            values: dict[str, list[str]] = {}
            for sub in members:
                fld = next((f for f in types[sub].get("fields", ()) if f["name"] == key), None)
                match = _CONSTANT.search(fld["description"]) if fld else None
                if match is None:
                    break
                values.setdefault(match.group(1), []).append(sub)
            else:
                if members:
                    out.append((getattr(T, name), key, values))
                    break
    return out


UNIONS = _discriminated()
IDS = [base.__name__ for base, _key, _values in UNIONS]
BAD = {
    "missing": (None, "missing required field"),
    "null": (None, "expected str, got null"),
    "int": (7, "expected str, got int"),
    "zero": (0, "expected str, got int"),
    "bool": (True, "expected str, got bool"),
    "float": (1.5, "expected str, got float"),
    "list": (["emoji"], "expected str, got array"),
    "object": ({"type": "emoji"}, "expected str, got object"),
}


def test_the_spec_has_the_unions_the_issue_names() -> None:
    found = {base.__name__: key for base, key, _values in UNIONS}
    assert found["ReactionType"] == "type"
    assert found["ChatBoostSource"] == "source"
    assert found["ChatMember"] == "status"
    assert found["RichText"] == "type"
    assert len(found) >= 20
    # rules that are not a discriminator keep them (overrides/unions.json)
    assert "MaybeInaccessibleMessage" not in found and "InputMessageContent" not in found


def _decode(decoder: ModuleType, base: type, value: Any) -> Any:
    return decoder.decode(base, orjson.dumps(value))


@pytest.mark.parametrize("bad", list(BAD))
@pytest.mark.parametrize(("base", "key", "values"), UNIONS, ids=IDS)
def test_a_bad_discriminator_is_a_decode_error(
    decoder: ModuleType, base: type, key: str, values: dict[str, list[str]], bad: str
) -> None:
    tag, reason = BAD[bad]
    obj: dict[str, Any] = {"x_other": 1}
    if bad != "missing":
        obj[key] = tag
    with pytest.raises(DecodeError) as info:
        _decode(decoder, base, obj)
    assert (info.value.path, info.value.reason) == (f"$.{key}", reason)
    # and nested: the path names where it is
    with pytest.raises(DecodeError) as info:
        _decode(decoder, list[base], [obj])  # type: ignore[valid-type]
    assert str(info.value) == f"$[0].{key}: {reason}"


@pytest.mark.parametrize(("base", "key", "values"), UNIONS, ids=IDS)
def test_an_unknown_string_is_the_base_class(
    decoder: ModuleType, base: type, key: str, values: dict[str, list[str]]
) -> None:
    obj = {key: UNKNOWN, "x_other": [1, None]}
    value = _decode(decoder, base, obj)
    assert type(value) is base
    assert value._extra == obj
    assert value.to_dict() == obj


@pytest.mark.parametrize(("base", "key", "values"), UNIONS, ids=IDS)
def test_the_generated_rule_knows_every_value(
    base: type, key: str, values: dict[str, list[str]]
) -> None:
    rule = base.__tg_union__
    assert rule.key == key and rule.default is None
    presence = {cls.__name__ for _k, cls in rule.presence}
    for value, members in values.items():
        plain = [m for m in members if m not in presence]
        if plain:
            assert rule.variants[value].__name__ in plain, (value, members)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
@pytest.mark.parametrize(("base", "key", "values"), UNIONS, ids=IDS)
def test_known_values_pick_the_variant_and_broken_ones_fail(
    decoder: ModuleType, base: type, key: str, values: dict[str, list[str]], data: st.DataObject
) -> None:
    member = data.draw(st.sampled_from(union_members(base)))
    obj = data.draw(variant_objects(base, member, max_depth=1)).to_dict()
    assert obj[key] in values and member.__name__ in values[obj[key]]
    value = _decode(decoder, base, obj)
    assert type(value) is member
    assert value.to_dict() == obj
    bad = data.draw(st.sampled_from(list(BAD)))
    tag, reason = BAD[bad]
    broken = dict(obj)
    if bad == "missing":
        del broken[key]
    else:
        broken[key] = tag
    with pytest.raises(DecodeError) as info:
        _decode(decoder, base, broken)
    assert (info.value.path, info.value.reason) == (f"$.{key}", reason)


REACTION_UPDATE: dict[str, Any] = {
    "update_id": 3,
    "message_reaction": {
        "chat": {"id": 5, "type": "group", "title": "g"},
        "message_id": 11,
        "date": 1718000000,
        "old_reaction": [],
        "new_reaction": [{"type": "emoji", "emoji": "x"}],
    },
}


@pytest.mark.parametrize("bad", list(BAD))
def test_an_update_with_a_bad_reaction_type_names_the_path(decoder: ModuleType, bad: str) -> None:
    tag, reason = BAD[bad]
    reaction: dict[str, Any] = {"emoji": "x"}
    if bad != "missing":
        reaction["type"] = tag
    update = json.loads(json.dumps(REACTION_UPDATE))
    update["message_reaction"]["new_reaction"] = [{"type": "paid"}, reaction]
    with pytest.raises(DecodeError) as info:
        decoder.decode_update(orjson.dumps(update))
    assert str(info.value) == f"$.message_reaction.new_reaction[1].type: {reason}"


def test_an_update_with_a_bad_chat_member_status_names_the_path(decoder: ModuleType) -> None:
    user = {"id": 1, "is_bot": False, "first_name": "a"}
    update = {
        "update_id": 4,
        "chat_member": {
            "chat": {"id": -100, "type": "supergroup", "title": "s"},
            "from": user,
            "date": 1,
            "old_chat_member": {"status": "left", "user": user},
            "new_chat_member": {"status": None, "user": user},
        },
    }
    with pytest.raises(DecodeError) as info:
        decoder.decode_update(orjson.dumps(update))
    assert str(info.value) == "$.chat_member.new_chat_member.status: expected str, got null"


def test_rules_that_are_not_a_discriminator_keep_them(decoder: ModuleType) -> None:
    # MaybeInaccessibleMessage by date: a missing date is the Message's own required field
    chat = {"id": 5, "type": "private"}
    got = _decode(decoder, T.MaybeInaccessibleMessage, {"message_id": 1, "chat": chat, "date": 0})
    assert type(got) is T.InaccessibleMessage
    # InputMessageContent by fields: nothing matched is still the base class
    got = _decode(decoder, T.InputMessageContent, {"x_other": 1})
    assert type(got) is T.InputMessageContent
    # RichText is also a plain string or a list of itself
    assert _decode(decoder, T.RichText, "plain") == "plain"
    got = _decode(decoder, T.RichText, ["a", {"type": UNKNOWN}])
    assert got[0] == "a" and type(got[1]) is T.RichText
    with pytest.raises(DecodeError) as info:
        _decode(decoder, T.RichText, ["a", {"text": "b"}])
    assert str(info.value) == "$[1].type: missing required field"


def _repeat(key: str, first: str, obj: dict[str, Any]) -> bytes:
    """``obj`` as JSON with ``"key": first`` written once more before its own ``key``."""
    body = orjson.dumps(obj)
    return b"{" + orjson.dumps(key) + b":" + orjson.dumps(first) + b"," + body[1:]


@pytest.mark.parametrize("first", ["known", "unknown"])
@pytest.mark.parametrize(("base", "key", "values"), UNIONS, ids=IDS)
def test_a_repeated_discriminator_is_a_decode_error(
    decoder: ModuleType, base: type, key: str, values: dict[str, list[str]], first: str
) -> None:
    """orjson keeps the last of two equal keys; which variant that is depends on the
    parser, so the object is malformed, at any depth, however the key is written."""
    known = next(iter(values))
    raw = _repeat(key, known if first == "known" else UNKNOWN, {key: UNKNOWN, "x_other": 1})
    escaped = raw.replace(f'"{key}"'.encode(), f'"\\u{ord(key[0]):04x}{key[1:]}"'.encode(), 1)
    nested = b"[" + orjson.dumps({key: UNKNOWN, "x_other": [1, {"a": 2}]}) + b", " + raw + b"]"
    cases = [
        (base, raw, f"$.{key}"),
        (base, escaped, f"$.{key}"),
        (list[base], nested, f"$[1].{key}"),
    ]  # type: ignore[valid-type]
    for tp, data, path in cases:
        with pytest.raises(DecodeError) as info:
            decoder.decode(tp, data)
        assert (info.value.path, info.value.reason) == (path, "repeated discriminator key")
    # the same key once in each of two sibling objects is not a repeat
    pair = b"[" + orjson.dumps({key: UNKNOWN}) + b"," + orjson.dumps({key: UNKNOWN}) + b"]"
    assert len(decoder.decode(list[base], pair)) == 2  # type: ignore[valid-type]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
@pytest.mark.parametrize(("base", "key", "values"), UNIONS, ids=IDS)
def test_a_variant_with_its_discriminator_repeated_is_a_decode_error(
    decoder: ModuleType, base: type, key: str, values: dict[str, list[str]], data: st.DataObject
) -> None:
    member = data.draw(st.sampled_from(union_members(base)))
    obj = data.draw(variant_objects(base, member, max_depth=1)).to_dict()
    assert type(_decode(decoder, base, obj)) is member
    first = data.draw(st.sampled_from([UNKNOWN, *values]))
    with pytest.raises(DecodeError) as info:
        decoder.decode(base, _repeat(key, first, obj))
    assert (info.value.path, info.value.reason) == (f"$.{key}", "repeated discriminator key")


def test_a_repeated_key_in_an_update_names_the_path(decoder: ModuleType) -> None:
    raw = orjson.dumps(REACTION_UPDATE).replace(
        b'{"type":"emoji"', b'{"type":"paid", \n "type"\t:\r"emoji"'
    )
    with pytest.raises(DecodeError) as info:
        decoder.decode_update(raw)
    assert str(info.value) == "$.message_reaction.new_reaction[0].type: repeated discriminator key"
    with pytest.raises(DecodeError) as info:
        decoder.decode_updates(b"[" + orjson.dumps({"update_id": 1}) + b"," + raw + b"]")
    assert (
        str(info.value) == "$[1].message_reaction.new_reaction[0].type: repeated discriminator key"
    )
    # strings that only look like keys are not keys
    text = orjson.dumps(REACTION_UPDATE).replace(
        b'"emoji":"x"', b'"emoji":"\\"type\\":1,\\"type\\":", "x_note": ["type", "type"]'
    )
    assert decoder.decode_update(text).message_reaction.new_reaction[0].emoji.startswith('"type"')


@settings(max_examples=200, deadline=None)
@given(
    keys=st.lists(st.sampled_from(["type", "status", "x", "typ"]), min_size=0, max_size=4),
    nest=st.sampled_from(["top", "list", "object"]),
)
def test_the_byte_scan_agrees_with_the_exact_check(
    decoder: ModuleType, keys: list[str], nest: str
) -> None:
    """The compiled scan finds candidates in the raw bytes, the exact check (the twin's)
    names the path: both builds refuse exactly the objects holding ``type`` twice."""
    body = b"{" + b",".join(orjson.dumps(k) + b':"paid"' for k in ["type", *keys]) + b"}"
    data = {"top": body, "list": b"[" + body + b"]", "object": b'{"a": ' + body + b"}"}[nest]
    tp = {"top": T.ReactionType, "list": list[T.ReactionType], "object": dict}[nest]
    if tp is dict:
        data = (
            b'{"update_id": 1, "message_reaction": {"chat": {"id": 1, "type": "private"}, "message_id": 1, "date": 1, "old_reaction": [], "new_reaction": ['
            + body
            + b"]}}"
        )
    repeated = "type" in keys
    try:
        (decoder.decode_update(data) if tp is dict else decoder.decode(tp, data))
    except DecodeError as e:
        assert repeated and e.reason == "repeated discriminator key"
    else:
        assert not repeated
