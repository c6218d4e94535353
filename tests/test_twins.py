"""The compiled decoder and its pure-Python twin agree on every input.

Valid Bot API JSON is generated from the metadata (``strategies``) and then broken
in the ways real inputs break: a value of the wrong JSON type, a deleted key, a
null, an unknown key, a value wrapped in a list, integers beyond 64 bits, floats
where ints go, truncated bytes. Both decoders must return equal objects, or both
raise ``DecodeError`` with the same message; anything else fails.

The comparison needs both builds: without the compiled module (or with
``TGFAST_NO_EXTENSIONS=1``) this module collects no tests at all.
"""

from __future__ import annotations

import copy
import json
from types import ModuleType
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from implementations import IMPLEMENTATIONS, pure
from strategies import INT64_MAX, INT64_MIN, floats, ints, json_values, texts, to_json, values

from tgfast import DecodeError
from tgfast.types import _types as T

TWINS = [pytest.param(IMPLEMENTATIONS["c"], id="c-vs-py")] if "c" in IMPLEMENTATIONS else []

# Classes whose JSON gets mutated: the webhook body, plus the union-heavy shapes.
TARGETS = [
    T.Update,
    T.Message,
    T.CallbackQuery,
    T.ChatMemberUpdated,
    T.MessageReactionUpdated,
    T.InlineQueryResult,
    T.InputMessageContent,
    T.RichBlock,
    T.ChatFullInfo,
    T.TransactionPartner,
]


# --- outcomes -------------------------------------------------------------------


def outcome(call: Any, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
    """``("ok", value)``, ``("error", str)`` for a DecodeError, ``("crash", ...)`` else."""
    try:
        value = call(*args, **kwargs)
    except DecodeError as e:
        return ("error", str(e), e.path, e.reason)
    except Exception as e:  # noqa: BLE001 - any other exception is a finding
        return ("crash", type(e).__name__, str(e)[:300])
    return ("ok", value)


def assert_same(compiled: tuple[Any, ...], twin: tuple[Any, ...]) -> None:
    assert compiled[0] != "crash", f"compiled decoder crashed: {compiled}"
    assert twin[0] != "crash", f"pure decoder crashed: {twin}"
    assert compiled[0] == twin[0], f"compiled: {compiled!r:.500}\npure: {twin!r:.500}"
    if compiled[0] == "error":
        assert compiled == twin
        return
    c_value, p_value = compiled[1], twin[1]
    assert type(c_value) is type(p_value)
    assert c_value == p_value
    assert repr(c_value) == repr(p_value)  # also tells 1 from 1.0 and True from 1
    assert to_json(c_value) == to_json(p_value)


def check(compiled: ModuleType, tp: Any, value: Any, raw: bytes | None = None) -> None:
    """Both decoders, on the parsed value and on its bytes."""
    assert_same(outcome(compiled.convert, tp, value), outcome(pure.convert, tp, value))
    if raw is None:
        raw = json_bytes(value)
    assert_same(outcome(compiled.decode, tp, raw), outcome(pure.decode, tp, raw))


def json_bytes(value: Any) -> bytes:
    # The stdlib writes integers of any size (orjson stops at 64 bits).
    return json.dumps(value, ensure_ascii=False, allow_nan=False).encode()


# --- mutations ------------------------------------------------------------------

WRONG_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    ints,
    floats,
    texts,
    st.builds(list),  # fresh containers: mutations must never touch a shared one
    st.builds(dict),
    st.lists(ints, min_size=1, max_size=2),
    st.dictionaries(texts, ints, min_size=1, max_size=2),
)
BIG_INTS = st.one_of(
    st.integers(INT64_MAX + 1, 2**64 - 1),  # orjson parses these as int: out of range
    st.integers(2**64, 2**80),  # orjson parses these as float
    st.integers(-(2**80), INT64_MIN - 1),
    st.sampled_from([2**63, 2**64 - 1, 2**64, -(2**63) - 1, -(2**64)]),
)
MUTATIONS = [
    "wrong_type",
    "delete_key",
    "null",
    "unknown_key",
    "wrap",
    "big_int",
    "float_for_int",
    "str_for_int",
]

Path = tuple[Any, ...]


def nodes(value: Any, path: Path = ()) -> list[tuple[Path, Any]]:
    out = [(path, value)]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(nodes(v, (*path, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(nodes(v, (*path, i)))
    return out


def replace(root: Any, path: Path, new: Any) -> Any:
    if not path:
        return new
    parent = root
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = new
    return root


@st.composite
def mutated(draw: st.DrawFn, base: st.SearchStrategy[Any]) -> Any:
    value = copy.deepcopy(draw(base, label="valid"))
    for _ in range(draw(st.integers(1, 3), label="mutations")):
        kind = draw(st.sampled_from(MUTATIONS), label="kind")
        all_nodes = nodes(value)
        if kind in ("delete_key", "unknown_key"):
            dicts = [
                (p, n) for p, n in all_nodes if isinstance(n, dict) and (n or kind == "unknown_key")
            ]
            if not dicts:
                continue
            path, node = draw(st.sampled_from(dicts), label="at")
            if kind == "delete_key":
                del node[draw(st.sampled_from(sorted(node)), label="key")]
            else:
                node[draw(texts, label="key")] = draw(WRONG_VALUES, label="value")
            continue
        if kind in ("float_for_int", "str_for_int", "big_int"):
            candidates = [(p, n) for p, n in all_nodes if type(n) is int] or all_nodes
        else:
            candidates = all_nodes
        path, node = draw(st.sampled_from(candidates), label="at")
        if kind == "wrong_type":
            new = draw(WRONG_VALUES, label="new")
        elif kind == "null":
            new = None
        elif kind == "wrap":
            new = [node]
        elif kind == "big_int":
            new = draw(BIG_INTS, label="new")
        elif kind == "float_for_int":
            new = float(node) if type(node) is int else draw(floats, label="new")
            if draw(st.booleans(), label="fraction"):
                new += 0.5
        else:
            new = str(node)
        value = replace(value, path, new)
    return value


def broken_bytes(raw: bytes, cut: int) -> bytes:
    return raw[: cut % (len(raw) + 1)]


# --- the tests ------------------------------------------------------------------


@pytest.mark.parametrize("compiled", TWINS)
class TestTwins:
    # Nothing to compare in a pure-only run: collect no tests rather than skip.
    __test__ = bool(TWINS)

    @settings(max_examples=150)
    @given(data=mutated(json_values(T.Update)))
    def test_mutated_updates(self, compiled: ModuleType, data: Any) -> None:
        check(compiled, T.Update, data)
        raw = json_bytes(data)
        assert_same(outcome(compiled.decode_update, raw), outcome(pure.decode_update, raw))

    @pytest.mark.parametrize("cls", TARGETS, ids=[c.__name__ for c in TARGETS])
    @settings(max_examples=25)
    @given(data=st.data())
    def test_mutated_objects(self, compiled: ModuleType, cls: type, data: st.DataObject) -> None:
        value = data.draw(mutated(json_values(cls)), label="value")
        check(compiled, cls, value)

    @settings(max_examples=50)
    @given(data=st.data())
    def test_valid_updates_agree_and_roundtrip(
        self, compiled: ModuleType, data: st.DataObject
    ) -> None:
        value = data.draw(json_values(T.Update), label="value")
        check(compiled, T.Update, value)
        assert compiled.convert(T.Update, value).to_dict() == value

    @settings(max_examples=40)
    @given(
        updates=st.lists(mutated(json_values(T.Update, max_depth=1)), max_size=3),
        wrap=st.booleans(),
    )
    def test_update_arrays(self, compiled: ModuleType, updates: list[Any], wrap: bool) -> None:
        data: Any = {"ok": True, "result": updates} if wrap else updates
        raw = json_bytes(data)
        assert_same(outcome(compiled.decode_updates, raw), outcome(pure.decode_updates, raw))
        check(compiled, list[T.Update], data, raw)

    @pytest.mark.parametrize(
        "expr", ["Message|bool", "int|str", "RichText", "[[PhotoSize]]", "ChatMember"]
    )
    @settings(max_examples=25)
    @given(data=st.data())
    def test_type_expressions(self, compiled: ModuleType, expr: str, data: st.DataObject) -> None:
        value = data.draw(mutated(values(expr).map(to_json)), label="value")
        check(compiled, expr, value)

    @settings(max_examples=40)
    @given(data=st.data())
    def test_truncated_and_raw_bytes(self, compiled: ModuleType, data: st.DataObject) -> None:
        raw = orjson.dumps(data.draw(json_values(T.Message, max_depth=1), label="value"))
        cut = broken_bytes(raw, data.draw(st.integers(0, 10**6), label="cut"))
        assert_same(outcome(compiled.decode, T.Message, cut), outcome(pure.decode, T.Message, cut))
        junk = data.draw(st.binary(max_size=40), label="junk")
        assert_same(outcome(compiled.decode_update, junk), outcome(pure.decode_update, junk))
        limit = data.draw(st.one_of(st.none(), st.integers(0, len(raw) + 2)), label="max_size")
        assert_same(
            outcome(compiled.decode, T.Message, raw, max_size=limit),
            outcome(pure.decode, T.Message, raw, max_size=limit),
        )

    @settings(max_examples=60)
    @given(
        value=st.recursive(
            st.one_of(st.none(), st.booleans(), ints, floats, texts, BIG_INTS),
            lambda inner: st.one_of(
                st.lists(inner, max_size=3),
                st.dictionaries(
                    st.one_of(
                        texts,
                        st.sampled_from(["update_id", "message", "chat", "type", "date", "text"]),
                    ),
                    inner,
                    max_size=4,
                ),
            ),
            max_leaves=12,
        ),
        tp=st.sampled_from(
            [T.Update, T.Message, T.ReactionType, T.RichText, T.MaybeInaccessibleMessage, "[int]"]
        ),
    )
    def test_arbitrary_json(self, compiled: ModuleType, value: Any, tp: Any) -> None:
        check(compiled, tp, value)

    @pytest.mark.parametrize("depth", [100, 600, 1000])
    def test_deep_nesting(self, compiled: ModuleType, depth: int) -> None:
        """Nesting orjson accepts (< 1024 levels): same result, and no crash."""
        raw = b'{"message_id": 0, "date": 1, "chat": {"id": 1, "type": "private"}}'
        for i in range(1, depth):  # orjson.dumps stops at 255 levels: build the bytes
            raw = (
                b'{"message_id": %d, "date": 1, "chat": {"id": 1, "type": "private"}, "reply_to_message": %s}'
                % (i, raw)
            )
        c_msg, p_msg = (
            outcome(compiled.decode, T.Message, raw),
            outcome(pure.decode, T.Message, raw),
        )
        assert c_msg[0] != "crash" and p_msg[0] != "crash", (c_msg[0], p_msg)
        assert c_msg[0] == p_msg[0]
        rich = b"[" * depth + b'"x"' + b"]" * depth
        c_rich, p_rich = (
            outcome(compiled.decode, T.RichText, rich),
            outcome(pure.decode, T.RichText, rich),
        )
        assert c_rich[0] != "crash" and p_rich[0] != "crash", (c_rich[0], p_rich)
        assert c_rich[0] == p_rich[0]
