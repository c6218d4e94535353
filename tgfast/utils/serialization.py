"""Telegram objects as plain data at aiogram's path: ``deserialize_telegram_object``.

What a bot would send, as JSON-ready Python: nested objects become dicts keyed by
attribute name (``from_user``, as aiogram's ``model_dump`` has it), unset
parameters take the given ``DefaultBotProperties`` (or are left out), ``None`` is left
out, dates become Unix times, and each file is split out and replaced by
``attach://<name>``. Useful to store a message or a prepared call, or to compare them
in tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum
from typing import Any

from ..defaults import DefaultBotProperties
from ..methods.base import TelegramMethod
from ..types.base import TelegramObject, unix_time
from ..types.input_file import InputFile

__all__ = [
    "DeserializedTelegramObject",
    "deserialize_telegram_object",
    "deserialize_telegram_object_to_python",
]


@dataclass
class DeserializedTelegramObject:
    """The plain ``data`` of an object, and the ``files`` its ``attach://`` names point to."""

    data: Any
    files: dict[str, InputFile]


def deserialize_telegram_object(
    obj: Any,
    default: DefaultBotProperties | None = None,
    include_api_method_name: bool = True,
) -> DeserializedTelegramObject:
    """``obj`` (an object, a method call, or lists and dicts of them) as plain data.

    ``default`` fills the parameters left to the bot's defaults (``parse_mode`` and
    the like; without it they are left out). A method call also gets its Bot API name
    under ``"method"`` unless ``include_api_method_name`` is false.
    """
    files: dict[str, InputFile] = {}
    data = _plain(obj, default or DefaultBotProperties(), files)
    if include_api_method_name and isinstance(obj, TelegramMethod):
        data["method"] = obj.__api_method__
    return DeserializedTelegramObject(data=data, files=files)


def deserialize_telegram_object_to_python(
    obj: Any,
    default: DefaultBotProperties | None = None,
    include_api_method_name: bool = True,
) -> Any:
    """``deserialize_telegram_object(...).data``: the plain data, files left aside."""
    return deserialize_telegram_object(obj, default, include_api_method_name).data


def _plain(value: Any, defaults: DefaultBotProperties, files: dict[str, InputFile]) -> Any:
    if isinstance(value, InputFile):
        name = f"file{len(files)}"
        files[name] = value
        return f"attach://{name}"
    if isinstance(value, TelegramObject):
        value = _fields(value, defaults)
    if isinstance(value, dict):
        return {
            key: item
            for key, item in ((key, _plain(item, defaults, files)) for key, item in value.items())
            if item is not None
        }
    if isinstance(value, (list, tuple)):
        return [
            item for item in (_plain(item, defaults, files) for item in value) if item is not None
        ]
    if isinstance(value, Enum):
        return _plain(value.value, defaults, files)
    if isinstance(value, (datetime, timedelta)):
        return unix_time(value)
    return value


def _fields(value: TelegramObject, defaults: DefaultBotProperties) -> dict[str, Any]:
    """The fields as sent (``_sent_fields``), by attribute name (``from_user``)."""
    names = {key: attr for key, attr, _tp, _req in value.__tg_fields__}
    return {names.get(key, key): item for key, item in value._sent_fields(defaults).items()}
