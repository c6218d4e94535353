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
