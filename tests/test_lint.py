"""The source tree is lint-clean, formatted and type-checked: ruff and mypy (configured in
pyproject.toml) report nothing.

The tools are the venv's (beside ``sys.executable``: the test extra installs them) and
they read the source tree found from this file, never the ``tgfast`` under test, which
is an installed copy in the pure-build run of ``scripts/test.sh``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# the same whichever build is installed: scripts/test.sh runs it once, not per build
pytestmark = pytest.mark.once

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
TARGETS = ["tgfast", "tests", "benchmarks", "examples", "tools"]


def run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    exe = BIN / tool
    assert exe.is_file(), f"{exe} not found: install the test extra (pip install '.[test]')"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the tree, not an install
    return subprocess.run(
        [str(exe), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return run("ruff", *args, *TARGETS)


def test_ruff_check() -> None:
    result = ruff("check", "--no-cache", "--output-format", "concise")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format() -> None:
    result = ruff("format", "--no-cache", "--check", "--diff")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.timeout(600)
def test_mypy() -> None:
    result = run("mypy")  # [tool.mypy] packages = ["tgfast"], .pyi stubs included
    assert result.returncode == 0, result.stdout + result.stderr
