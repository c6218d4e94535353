"""The goal of issue #14, as a test: a bot written for aiogram runs on tgfast after
``s/aiogram/tgfast/`` in its imports and makes the same Bot API calls, call for call.

Each bot in tests/support/aiogram_bots/ runs on both frameworks against its own FakeTelegram
(tests/support/aiogram_compat.py); the recorded calls, parameters normalized by the fake,
must be equal.
"""

from __future__ import annotations

from typing import Any

import pytest
from aiogram_compat import BOTS, port, record

Calls = list[tuple[str, dict[str, Any]]]


def without_aiogram_quirks(calls: Calls) -> Calls:
    """aiogram 3.31 also sends the deprecated ``disable_web_page_preview`` (as the string
    "true") whenever ``link_preview_is_disabled`` is a default; Telegram reads
    ``link_preview_options``, which both send. Nothing else is normalized."""
    out = []
    for method, params in calls:
        params = dict(params)
        params.pop("disable_web_page_preview", None)
        out.append((method, params))
    return out


def test_port_changes_imports_only() -> None:
    source = "import aiogram\nfrom aiogram.types import Message\n  from aiogram import F\ntext = 'aiogram'\n"
    assert port(source) == (
        "import tgfast\nfrom tgfast.types import Message\n  from tgfast import F\ntext = 'aiogram'\n"
    )


@pytest.mark.parametrize("name", BOTS)
async def test_same_calls_as_aiogram(name: str) -> None:
    expected = without_aiogram_quirks(await record(name, "aiogram"))
    assert expected, "the bot made no call at all on aiogram: the test would prove nothing"
    actual = await record(name, "tgfast")
    assert actual == expected


@pytest.mark.parametrize("name", ["echo", "form"])
async def test_same_calls_as_aiogram_when_polling(name: str) -> None:
    """The same bots run by ``dp.start_polling`` on both: tgfast's poller (ordering,
    offsets) makes the calls aiogram's does."""
    expected = without_aiogram_quirks(await record(name, "aiogram", "polling"))
    actual = await record(name, "tgfast", "polling")
    assert actual == expected
