"""Every field and parameter aiogram gives a bot default (``Default("parse_mode")``, ...)
takes the same bot default in tgfast: found by introspecting aiogram, so a release that
adds one (aiogram 3.31 added ten, for Bot API 10.3's types) shows up here."""

from __future__ import annotations

import inspect
from typing import Any

import aiogram.methods
import aiogram.types
import pytest
from aiogram.client.default import Default as AiogramDefault

import tgfast.methods
import tgfast.types
from tgfast.defaults import Default

pytestmark = pytest.mark.once

# aiogram's bot defaults tgfast does not apply, and why
NOT_APPLIED = {
    ("SendMessage", "disable_web_page_preview"): "deprecated: tgfast sends link_preview_options",
    (
        "EditMessageText",
        "disable_web_page_preview",
    ): "deprecated: tgfast sends link_preview_options",
}


def _aiogram_defaults() -> list[tuple[str, str, str]]:
    found = []
    for module in (aiogram.types, aiogram.methods):
        for name in module.__all__:
            fields = getattr(getattr(module, name), "model_fields", None) or {}
            for field, info in fields.items():
                if isinstance(info.default, AiogramDefault):
                    found.append((name, field, info.default.name))
    return found


AIOGRAM_DEFAULTS = _aiogram_defaults()


def test_aiogram_has_bot_defaults_in_types_and_methods() -> None:
    owners = {name for name, _f, _d in AIOGRAM_DEFAULTS}
    assert {"SendMessage", "InputMediaPhoto", "ReplyParameters", "LinkPreviewOptions"} <= owners


@pytest.mark.parametrize(("owner", "field", "prop"), AIOGRAM_DEFAULTS)
def test_the_same_bot_default(owner: str, field: str, prop: str) -> None:
    if (owner, field) in NOT_APPLIED:
        return
    ours: Any = getattr(tgfast.methods, owner, None) or getattr(tgfast.types, owner)
    param = inspect.signature(ours.__init__).parameters[field]
    assert isinstance(param.default, Default), f"{owner}.{field} takes no bot default"
    # the DefaultBotProperties attribute it is filled from
    assert ours.__tg_defaults__[field] == prop
