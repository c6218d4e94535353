"""The compiled decoder's slots-only dealloc frees deep chains and leaks nothing."""

from __future__ import annotations

import gc
import sys
import tracemalloc
from types import ModuleType

import orjson
import pytest

from tgfast import DecodeError
from tgfast.types import Chat, Message


def _chain(depth: int) -> Message:
    chat = Chat(id=1, type="private")
    message = Message(message_id=0, date=1, chat=chat)
    for i in range(1, depth):
        message = Message(message_id=i, date=1, chat=chat, reply_to_message=message)
    return message


def test_deep_chain_is_freed_without_overflowing_the_stack(decoder: ModuleType) -> None:
    decoder.convert(Message, {"message_id": 1, "date": 1, "chat": {"id": 1, "type": "private"}})
    chain = _chain(200_000)
    del chain  # recursion this deep needs the trashcan, as CPython's own dealloc has
    gc.collect()


def test_repeated_decoding_leaks_nothing(decoder: ModuleType) -> None:
    body = orjson.dumps(
        {
            "update_id": 1,
            "message": {
                "message_id": 2,
                "date": 3,
                "chat": {"id": 4, "type": "private"},
                "text": "hi",
                "entities": [{"type": "bold", "offset": 0, "length": 2}],
                "unknown_field": {"x": [1, 2]},
            },
        }
    )
    for _ in range(200):
        decoder.decode_update(body)
    gc.collect()
    none_before = sys.getrefcount(None)
    tracemalloc.start()
    try:
        gc.collect()
        before, _ = tracemalloc.get_traced_memory()
        for _ in range(3000):
            assert decoder.decode_update(body).message.entities[0].length == 2
        gc.collect()
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # A leaked object per decode would be 3000 objects: hundreds of kilobytes.
    assert after - before < 20_000
    # Each object holds ~150 None slots: a miscount per object would show here.
    assert abs(sys.getrefcount(None) - none_before) < 50


def test_failed_decoding_leaks_nothing(decoder: ModuleType) -> None:
    """An object abandoned half-built (a wrong value after some fields were written)
    is freed with every slot it held, None's count included."""
    bodies = [
        orjson.dumps({"update_id": 1, "message": {"message_id": 2, "date": 3, "text": 5}}),
        orjson.dumps({"update_id": 1, "message": {"message_id": 2, "date": 3, "chat": {}}}),
        orjson.dumps(
            {"update_id": 1, "message": {"message_id": 2, "chat": {"id": 1, "type": "x"}}}
        ),
        orjson.dumps({"update_id": 2**63, "message": {"message_id": 2}}),
    ]
    for body in bodies * 50:
        assert_fails(decoder, body)
    gc.collect()
    none_before = sys.getrefcount(None)
    for body in bodies * 1000:
        assert_fails(decoder, body)
    gc.collect()
    assert abs(sys.getrefcount(None) - none_before) < 50


def assert_fails(decoder: ModuleType, body: bytes) -> None:
    with pytest.raises(DecodeError):
        decoder.decode_update(body)
