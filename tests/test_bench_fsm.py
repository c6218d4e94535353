"""The FSM benchmark (``benchmarks/micro/fsm.py``) runs and prints a table that parses.

A tiny run in a subprocess, with the tgfast under test, against the redis-server the
script starts itself. The script fails when a contender does not complete every
conversation, so a run that prints its table ran all four for real. No timing is
asserted.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tgfast

# the same whichever build is installed: scripts/test.sh runs it once, not per build
pytestmark = pytest.mark.once

ROOT = Path(__file__).resolve().parents[1]
TGFAST_HOME = Path(tgfast.__file__).resolve().parents[1]
ROW = re.compile(
    r"^\| (memory|redis|redis-aiogram-layout) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+)× \| (PASS|FAIL) \|$",
    re.MULTILINE,
)


def test_fsm_benchmark_smoke(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(TGFAST_HOME), "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run(
        [sys.executable, "-W", "error", str(ROOT / "benchmarks" / "micro" / "fsm.py"),
         "--count", "5", "--rounds", "2", "--json", str(tmp_path / "rounds.json")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert out.startswith("machine: ") and "redis-server " in out.splitlines()[0]
    assert "## FSM" in out and "median of 2 rounds of 5/5/5" in out
    rows = {m.group(1): m.groups()[1:] for m in ROW.finditer(out)}
    assert set(rows) == {"memory", "redis", "redis-aiogram-layout"}, out
    for ours, theirs, ratio, verdict in rows.values():
        assert float(ours) > 0 and float(theirs) > 0 and float(ratio) > 0
        assert verdict == ("PASS" if float(ratio) >= 1.0 else "FAIL")
    rounds = (tmp_path / "rounds.json").read_text()
    for name in ("tgfast/memory", "aiogram/memory", "tgfast/redis", "aiogram/redis",
                 "tgfast/redis-aiogram-layout", "aiogram/redis-aiogram-layout"):  # fmt: skip
        assert f'"{name}"' in rounds
