"""Parameters -> request body: JSON by default, multipart only when a file is sent."""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import aiohttp
import orjson

from ..defaults import DefaultBotProperties
from ..types.base import TelegramObject
from ..types.input_file import _Upload

__all__ = ["JSON_HEADERS", "dumps", "multipart", "prepare"]

JSON_HEADERS = {"Content-Type": "application/json"}
_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME


def _default(defaults: DefaultBotProperties | None, value: Any) -> Any:
    if isinstance(value, TelegramObject):
        return value._sent_fields(defaults)
    if isinstance(value, datetime):  # until_date and friends are Unix times
        return int(value.timestamp())
    if isinstance(value, timedelta):  # ... and a duration means "from now"
        return int(time.time() + value.total_seconds())
    raise TypeError(f"cannot send a {type(value).__name__} to the Bot API")


_NO_DEFAULTS = partial(_default, None)
# the hook of the defaults used last: a process usually has one bot, so one entry hits
_last: tuple[DefaultBotProperties | None, partial[Any]] = (None, _NO_DEFAULTS)


def dumps(params: dict[str, Any], defaults: DefaultBotProperties | None = None) -> bytes:
    """The JSON body; types become their Telegram JSON with the bot's ``defaults``
    filled in, datetimes Unix times."""
    global _last
    last_defaults, hook = _last
    if defaults is not last_defaults:
        hook = _NO_DEFAULTS if defaults is None else partial(_default, defaults)
        if defaults is not None:
            _last = (defaults, hook)
    return orjson.dumps(params, default=hook, option=_OPTIONS)


def prepare(
    params: dict[str, Any], defaults: DefaultBotProperties | None = None
) -> tuple[dict[str, Any], dict[str, _Upload]]:
    """Take the files out of ``params``: a top-level file keeps its parameter's name,
    a nested one (``InputMediaPhoto.media``) is replaced by ``attach://<name>``; the
    objects around it get the bot's ``defaults``."""
    files: dict[str, _Upload] = {}
    out: dict[str, Any] = {}
    for key, value in params.items():
        if isinstance(value, _Upload):
            files[key] = value
        else:
            out[key] = _attach(value, files, defaults)
    return out, files


def _attach(value: Any, files: dict[str, _Upload], defaults: DefaultBotProperties | None) -> Any:
    if isinstance(value, _Upload):
        name = f"file{len(files)}"
        files[name] = value
        return f"attach://{name}"
    if isinstance(value, TelegramObject):
        return {
            key: _attach(item, files, defaults)
            for key, item in value._sent_fields(defaults).items()
        }
    if type(value) is list:
        return [_attach(item, files, defaults) for item in value]
    return value


def multipart(
    params: dict[str, Any],
    files: dict[str, _Upload],
    defaults: DefaultBotProperties | None = None,
) -> aiohttp.FormData:
    """A fresh multipart body (built per attempt: file streams are read once)."""
    form = aiohttp.FormData(quote_fields=False)
    for key, value in params.items():
        form.add_field(key, value if type(value) is str else dumps(value, defaults).decode())
    for name, upload in files.items():
        form.add_field(
            name, upload.chunks(), filename=upload.filename, content_type=upload.content_type
        )
    return form
