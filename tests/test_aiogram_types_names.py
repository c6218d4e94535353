"""Every name of ``aiogram.types.__all__`` imports from ``tgfast.types`` (a union alias is
tgfast's union base class), or is missing with an error that says why (an
AttributeError, an ImportError from the import statement); and
``URLInputFile`` uploads what it fetches."""

from __future__ import annotations

import typing

import aiogram.types
import pytest

import tgfast.types
from tgfast import Bot
from tgfast.testing import FakeTelegram
from tgfast.types import URLInputFile


@pytest.mark.once
@pytest.mark.parametrize("name", aiogram.types.__all__)
def test_every_aiogram_type_name_is_here_or_says_why(name: str) -> None:
    try:
        ours = getattr(tgfast.types, name)
    except AttributeError as exc:  # a missing attribute, as Python has it: why, it says
        assert "tgfast.types.aiogram_names has no" in str(exc), exc
        with pytest.raises(ImportError, match="tgfast.types.aiogram_names has no"):
            exec(f"from tgfast.types import {name}", {})
        return
    theirs = getattr(aiogram.types, name)
    if name.endswith("Union") and isinstance(ours, type):
        # every variant aiogram's union names is one of tgfast's union's subclasses
        for variant in typing.get_args(theirs):
            if isinstance(variant, type) and hasattr(tgfast.types, variant.__name__):
                assert issubclass(getattr(tgfast.types, variant.__name__), ours), variant


async def test_url_input_file_uploads_what_it_fetches(fake: FakeTelegram) -> None:
    stored = fake.add_file(b"fetched from the web", file_path="documents/report.txt")
    url = f"{fake.url}/file/bot{fake.token}/{stored['file_path']}"
    async with Bot(fake.token, server=fake.url, rate_limiter=None) as bot:
        await bot.send_document(1, URLInputFile(url, headers={"X-Test": "1"}))
    upload = fake.calls_to("sendDocument")[0].files["document"]
    assert upload.data == b"fetched from the web"
    assert upload.filename == "report.txt"


async def test_url_input_file_that_cannot_be_fetched_fails_the_call(fake: FakeTelegram) -> None:
    async with Bot(fake.token, server=fake.url, rate_limiter=None) as bot:
        with pytest.raises(Exception, match="404"):
            await bot.send_document(1, URLInputFile(f"{fake.url}/nowhere/x.txt"))
    assert fake.calls_to("sendDocument") == []
