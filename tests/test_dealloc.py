"""The compiled decoder's slots-only dealloc frees deep chains and leaks nothing."""

from __future__ import annotations

import gc
import sys
from types import ModuleType

import orjson

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


def test_repeated_decoding_keeps_reference_counts_steady(decoder: ModuleType) -> None:
    body = orjson.dumps(
        {
            "update_id": 1,
            "message": {
                "message_id": 2,
                "date": 3,
                "chat": {"id": 4, "type": "private"},
                "text": "hi",
                "unknown_field": {"x": [1, 2]},
            },
        }
    )
    for _ in range(100):
        decoder.decode_update(body)
    gc.collect()
    text_before = sys.getrefcount("hi")
    none_before = sys.getrefcount(None)
    kept = [decoder.decode_update(body) for _ in range(1000)]
    assert kept[0].message.text == "hi"
    del kept
    gc.collect()
    # Each object holds ~150 None slots: an off-by-one per object would show here.
    assert abs(sys.getrefcount(None) - none_before) < 50
    assert sys.getrefcount("hi") == text_before
