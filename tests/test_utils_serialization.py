"""tgfast.utils.serialization: the same plain data as aiogram's for the same objects."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import aiogram
import aiogram.client.default
import pytest
from aiogram.utils import serialization as aiogram_ser

import tgfast
import tgfast.client.default
from tgfast.utils import serialization as ours

MESSAGE = {
    "message_id": 5,
    "date": 1700000000,
    "chat": {"id": -100, "type": "supergroup", "title": "G"},
    "from": {"id": 1, "is_bot": False, "first_name": "A", "language_code": "en"},
    "text": "hi /start https://x.io",
    "entities": [
        {"type": "bold", "offset": 0, "length": 2},
        {"type": "bot_command", "offset": 3, "length": 6},
        {"type": "text_link", "offset": 10, "length": 12, "url": "https://x.io"},
    ],
    "reply_markup": {"inline_keyboard": [[{"text": "b", "callback_data": "d"}]]},
}


def _media(m: ModuleType) -> Any:
    return m.types.InputMediaPhoto(
        media=m.types.BufferedInputFile(b"jpeg", "cat.jpg"), caption="<b>c</b>"
    )


# each builds the same object with aiogram's or tgfast's classes
BUILDERS: dict[str, Callable[[ModuleType], Any]] = {
    "message": lambda m: m.types.Message.model_validate(MESSAGE),
    "input_media_photo": _media,
    "send_message": lambda m: m.methods.SendMessage(chat_id=1, text="<b>x</b>"),
    "send_message_parse_mode_none": lambda m: m.methods.SendMessage(
        chat_id=1, text="x", parse_mode=None
    ),
    "send_photo_upload": lambda m: m.methods.SendPhoto(
        chat_id=1, photo=m.types.BufferedInputFile(b"png", "a.png"), caption="c"
    ),
    "send_media_group": lambda m: m.methods.SendMediaGroup(
        chat_id=1, media=[_media(m), m.types.InputMediaPhoto(media="AgAD-file-id")]
    ),
    "list_of_entities": lambda m: [
        m.types.MessageEntity(type="bold", offset=0, length=1),
        m.types.MessageEntity(type="pre", offset=1, length=2, language="py"),
    ],
    "plain_values": lambda m: {
        "a": [1, None, "x"],
        "b": None,
        "entity": m.types.MessageEntity(type="bold", offset=0, length=1),
    },
}
DEFAULTS: dict[str, dict[str, Any] | None] = {
    "no_default": None,
    "html": {"parse_mode": "HTML"},
    "html_protected": {"parse_mode": "HTML", "protect_content": True},
}


def _numbered(value: Any, names: list[str]) -> Any:
    """``attach://<random>`` (aiogram) and ``attach://fileN`` (tgfast) as ``attach://#i``,
    numbered by first appearance, so the structures compare."""
    if isinstance(value, str) and value.startswith("attach://"):
        name = value.removeprefix("attach://")
        if name not in names:
            names.append(name)
        return f"attach://#{names.index(name)}"
    if isinstance(value, dict):
        return {key: _numbered(item, names) for key, item in value.items()}
    if isinstance(value, list):
        return [_numbered(item, names) for item in value]
    return value


def _run(fw: ModuleType, ser: Any, default_ns: Any, case: str, default: str, **kw: Any) -> Any:
    props = DEFAULTS[default]
    result = ser.deserialize_telegram_object(
        BUILDERS[case](fw),
        default=None if props is None else default_ns.DefaultBotProperties(**props),
        **kw,
    )
    names: list[str] = []
    data = _numbered(result.data, names)
    assert sorted(names) == sorted(result.files)
    return data, [result.files[name].filename for name in names]


@pytest.mark.parametrize("default", sorted(DEFAULTS))
@pytest.mark.parametrize("case", sorted(BUILDERS))
@pytest.mark.parametrize("with_method", [True, False])
def test_same_data_as_aiogram(case: str, default: str, with_method: bool) -> None:
    kw = {"include_api_method_name": with_method}
    theirs = _run(aiogram, aiogram_ser, aiogram.client.default, case, default, **kw)
    mine = _run(tgfast, ours, tgfast.client.default, case, default, **kw)
    assert mine == theirs


def test_default_parse_mode_and_files() -> None:
    result = ours.deserialize_telegram_object(
        BUILDERS["send_media_group"](tgfast),
        default=tgfast.client.default.DefaultBotProperties(parse_mode="HTML"),
    )
    assert result.data["method"] == "sendMediaGroup"
    first, second = result.data["media"]
    assert first["parse_mode"] == second["parse_mode"] == "HTML"
    assert first["media"] == "attach://file0"
    assert second["media"] == "AgAD-file-id"
    assert list(result.files) == ["file0"]
    assert result.files["file0"].filename == "cat.jpg"
    assert ours.deserialize_telegram_object_to_python(
        tgfast.methods.SendMessage(chat_id=1, text="x"), include_api_method_name=False
    ) == {"chat_id": 1, "text": "x"}


def test_plain_values_pass_through() -> None:
    assert ours.deserialize_telegram_object_to_python({"a": [1, None, "x"], "b": None}) == {
        "a": [1, "x"]
    }
    assert ours.deserialize_telegram_object_to_python(None) is None
