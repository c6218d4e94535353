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


# -- the same property from tgfast's side: every parameter and field by these names ----------
# (aiogram's TestBotDefaultsAreWired, which collects pydantic models only)

# received, never sent: no bot default applies (aiogram's test leaves out the same)
RECEIVED_ONLY = {
    ("Message", "link_preview_options"),
    ("Message", "show_caption_above_media"),
    ("ExternalReplyInfo", "link_preview_options"),
}
# a copy carries the entities and link preview already parsed (aiogram's choice too)
NO_DEFAULT_METHODS = {("Message", "send_copy")}


def _prop(name: str) -> str | None:
    """The DefaultBotProperties attribute a parameter of this name defaults to."""
    if name == "parse_mode" or name.endswith("_parse_mode"):
        return "parse_mode"
    return {
        "protect_content": "protect_content",
        "show_caption_above_media": "show_caption_above_media",
        "link_preview_options": "link_preview",
    }.get(name)


def _tgfast_parameters() -> list[tuple[str, Any, str]]:
    from tgfast import Bot

    owners: list[tuple[str, Any]] = [("Bot", Bot)]
    for module in (tgfast.methods, tgfast.types):
        owners += [
            (name, obj)
            for name in module.__all__
            if inspect.isclass(obj := getattr(module, name)) and hasattr(obj, "__tg_fields__")
        ]
    found = []
    for owner, cls in owners:
        functions = inspect.getmembers(cls, inspect.isfunction)
        for fname, fn in functions:
            if fname.startswith("_") and fname != "__init__":
                continue
            if (owner, fname) in NO_DEFAULT_METHODS:
                continue
            for pname, param in inspect.signature(fn).parameters.items():
                prop = _prop(pname)
                if prop is None or (fname == "__init__" and (owner, pname) in RECEIVED_ONLY):
                    continue
                found.append((f"{owner}.{fname}({pname})", param, prop))
    return found


TGFAST_PARAMETERS = _tgfast_parameters()


def test_the_tgfast_side_finds_bot_methods_shortcuts_methods_and_types() -> None:
    where = {path.split("(")[0] for path, _p, _d in TGFAST_PARAMETERS}
    expected = {"Bot.send_message", "Message.answer", "Message.reply_photo"}
    expected |= {"SendMessage.__init__", "InputMediaPhoto.__init__", "ReplyParameters.__init__"}
    expected |= {"Message.as_reply_parameters", "Bot.send_poll"}
    assert expected <= where


@pytest.mark.parametrize(
    ("param", "prop"),
    [pytest.param(p, d, id=path) for path, p, d in TGFAST_PARAMETERS],
)
def test_every_tgfast_parameter_by_a_default_s_name_defaults_to_it(param: Any, prop: str) -> None:
    assert param.default == Default(prop)
