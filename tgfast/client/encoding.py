"""Parameters -> request body: JSON by default, multipart only when a file is sent."""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from typing import Any

import aiohttp
import orjson

from ..types.base import TelegramObject
from ..types.input_file import _Upload

__all__ = ["JSON_HEADERS", "dumps", "multipart", "prepare"]

JSON_HEADERS = {"Content-Type": "application/json"}
_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME


def _default(value: Any) -> Any:
    if isinstance(value, TelegramObject):
        return value.to_dict()
    if isinstance(value, datetime):  # until_date and friends are Unix times
        return int(value.timestamp())
    if isinstance(value, timedelta):  # ... and a duration means "from now"
        return int(time.time() + value.total_seconds())
    raise TypeError(f"cannot send a {type(value).__name__} to the Bot API")


def dumps(params: dict[str, Any]) -> bytes:
    """The JSON body; types become their Telegram JSON, datetimes Unix times."""
    return orjson.dumps(params, default=_default, option=_OPTIONS)


def prepare(params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, _Upload]]:
    """Take the files out of ``params``: a top-level file keeps its parameter's name,
    a nested one (``InputMediaPhoto.media``) is replaced by ``attach://<name>``."""
    files: dict[str, _Upload] = {}
    out: dict[str, Any] = {}
    for key, value in params.items():
        if isinstance(value, _Upload):
            files[key] = value
        else:
            out[key] = _attach(value, files)
    return out, files


def _attach(value: Any, files: dict[str, _Upload]) -> Any:
    if isinstance(value, _Upload):
        name = f"file{len(files)}"
        files[name] = value
        return f"attach://{name}"
    if isinstance(value, TelegramObject):
        out = {
            key: _attach(item, files)
            for key, attr, _tp, _req in value.__tg_fields__
            if (item := getattr(value, attr)) is not None
        }
        if value._extra:
            for key, item in value._extra.items():
                out.setdefault(key, item)
        return out
    if type(value) is list:
        return [_attach(item, files) for item in value]
    return value


def multipart(params: dict[str, Any], files: dict[str, _Upload]) -> aiohttp.FormData:
    """A fresh multipart body (built per attempt: file streams are read once)."""
    form = aiohttp.FormData(quote_fields=False)
    for key, value in params.items():
        form.add_field(key, value if type(value) is str else dumps(value).decode())
    for name, upload in files.items():
        form.add_field(
            name, upload.chunks(), filename=upload.filename, content_type=upload.content_type
        )
    return form
