"""Every module of the package imports on its own, in a fresh interpreter."""

from __future__ import annotations

import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest
from implementations import COMPILED, COMPILED_ROUTING

import tgfast

MODULES = sorted(info.name for info in pkgutil.walk_packages(tgfast.__path__, prefix="tgfast."))


def test_module_list() -> None:
    expected = {
        "tgfast.decoding",
        "tgfast.errors",
        "tgfast._speedups",
        "tgfast._speedups._decode_py",
        "tgfast._speedups._routing_py",
        "tgfast.types",
        "tgfast.types._types",
        "tgfast.types.base",
        "tgfast.types.enums",
        "tgfast.methods",
        "tgfast.methods.descriptions",
    }
    assert expected <= set(MODULES)
    assert ("tgfast._speedups._decode" in MODULES) is (COMPILED is not None)
    assert ("tgfast._speedups._routing" in MODULES) is (COMPILED_ROUTING is not None)


BOT_IMPORTS = """
import sys
import tgfast
from tgfast import Bot, Dispatcher, F, Router
from tgfast.filters import Command, CommandStart
from tgfast.fsm import FSMContext, State, StatesGroup
from tgfast.methods import SendMessage
from tgfast.server import WebhookServer, serve_polling, serve_webhook
from tgfast.types import CallbackQuery, InlineKeyboardMarkup, Message
import tgfast.cli
loaded = "tgfast.methods.descriptions" in sys.modules
print("loaded" if loaded else "not loaded")
from tgfast.methods import METHODS
from tgfast.testing import FakeTelegram
import tgfast.methods.descriptions as descriptions
assert METHODS is descriptions.METHODS and len(METHODS) > 150
assert tgfast.methods.METHODS is METHODS
"""


def test_a_bot_does_not_load_the_method_descriptions(tmp_path: Path) -> None:
    """The 3,400 generated lines of ``METHODS`` are for FakeTelegram and tools: a bot's
    imports leave them out; the first use of ``tgfast.methods.METHODS`` loads them."""
    result = subprocess.run(
        [sys.executable, "-W", "error", "-c", BOT_IMPORTS],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["not", "loaded"]


def test_an_unknown_methods_attribute_is_still_an_error() -> None:
    import tgfast.methods

    with pytest.raises(AttributeError, match="NoSuchMethod"):
        tgfast.methods.NoSuchMethod  # noqa: B018


@pytest.mark.parametrize("module", ["tgfast", *MODULES])
def test_imports_alone(module: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "TGFAST_NO_EXTENSIONS"}
    result = subprocess.run(
        [sys.executable, "-W", "error", "-c", f"import {module}"],
        env=env,
        cwd=tmp_path,  # not the repo root: that would import the source tree
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
