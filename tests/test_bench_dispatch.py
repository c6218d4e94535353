"""The dispatch benchmark's harness (``benchmarks/micro/test_dispatch.py``) keeps working.

Each contender's benchmark runs for real, once, in a pytest subprocess (the
benchmarks have their own pytest config, and the pure twin needs a process of
its own), with the tgfast this test run imports; the benchmark itself checks
that every update fed reached the ``/cmd19`` handler and nothing else.  The
renderer's bar verdicts are checked on made-up figures.  No timing is asserted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_benchmark  # noqa: F401  (the bench extra: scripts/test.sh installs it)
import uvloop  # noqa: F401

import tgfast
from tgfast.dispatcher import routing

# the same whichever build is installed: scripts/test.sh runs it once, not per build
pytestmark = pytest.mark.once

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks" / "micro"
PATHS = ("dispatch_20", "decode_dispatch_20")
TGFAST_HOME = Path(tgfast.__file__).resolve().parents[1]  # the tgfast under test


def run_benchmarks(tmp_path: Path, contenders: list[str], *, pure: bool = False) -> list[dict]:
    """Run test_dispatch.py for these contenders, one round each; its records."""
    out = tmp_path / "results.json"
    env = {k: v for k, v in os.environ.items() if k != "TGFAST_NO_EXTENSIONS"}
    env.update(
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONPATH=str(TGFAST_HOME),
        TGFAST_BENCH_DISPATCH=",".join(contenders),
    )
    if pure:
        env["TGFAST_NO_EXTENSIONS"] = "1"
    result = subprocess.run(
        [
            sys.executable, "-m", "pytest",
            "-c", str(BENCH / "pytest.ini"), "--rootdir", str(BENCH),
            "-p", "no:cacheprovider", "-p", "no:asyncio", "-p", "no:aiohttp", "-p", "no:logging",
            "-q", "-rfEs",
            "--benchmark-max-time=0", "--benchmark-min-time=0",
            "--benchmark-min-rounds=1", "--benchmark-warmup=off",
            f"--benchmark-json={out}",
            str(BENCH / "test_dispatch.py"),
        ],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=100, check=False,
    )  # fmt: skip
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    assert "skipped" not in result.stdout, report
    records = json.loads(out.read_text())["benchmarks"]
    ran = {(r["extra_info"]["contender"], r["extra_info"]["path"]) for r in records}
    assert ran == {(c, p) for c in contenders for p in PATHS}, report
    for r in records:
        info = r["extra_info"]
        assert info["section"] == "dispatch"
        assert info["batch"] >= 100
        assert info["no_extensions"] is pure
    return records


def test_floor_and_aiogram(tmp_path: Path) -> None:
    run_benchmarks(tmp_path, ["aiogram", "floor"])


# Collected when this run's tgfast has both its decoder and its routing compiled (an
# in-place build of the source tree may have only some modules compiled).
if tgfast.__speedups__ and routing.SPEEDUPS:

    def test_tgfast_compiled(tmp_path: Path) -> None:
        run_benchmarks(tmp_path, ["tgfast-compiled", "floor"])


def test_tgfast_pure(tmp_path: Path) -> None:
    run_benchmarks(tmp_path, ["tgfast-pure", "floor"], pure=True)


def _record(contender: str, path: str, per_dispatch_us: float, *, pure: bool) -> dict[str, Any]:
    batch = 100 if contender == "aiogram" else 1000
    median = per_dispatch_us * 1e-6 * batch
    return {
        "name": f"test_dispatch[{path}-{contender}]",
        "extra_info": {
            "section": "dispatch",
            "contender": contender,
            "path": path,
            "batch": batch,
            "no_extensions": pure,
        },
        "stats": {"median": median, "iqr": median / 50, "rounds": 100},
    }


def render(tmp_path: Path, records: list[dict]) -> str:
    data = tmp_path / "records.json"
    data.write_text(json.dumps(records))
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import run; "
        "print(run.render_dispatch(json.loads(open(sys.argv[2]).read())))"
    )
    result = subprocess.run(
        [sys.executable, "-B", "-c", code, str(BENCH.parent), str(data)],
        cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(TGFAST_HOME)),
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_render_bar_verdicts(tmp_path: Path) -> None:
    main = {  # per dispatch, µs: (dispatch_20, decode_dispatch_20)
        "floor": (0.3, 1.5),
        "tgfast-compiled": (0.5, 3.3),  # 1.67x: PASS; 2.2x: FAIL
        "aiogram": (130.0, 300.0),  # aiogram / compiled decode 91x: FAIL
    }
    pure = {"floor": (0.31, 1.6), "tgfast-pure": (5.0, 16.0), "aiogram": (140.0, 310.0)}
    records = [
        _record(name, path, figures[i], pure=is_pure)
        for is_pure, table in ((False, main), (True, pure))
        for name, figures in table.items()
        for i, path in enumerate(PATHS)
    ]
    out = render(tmp_path, records)
    lines = {line.split(" | ")[0].lstrip("| "): line for line in out.splitlines()}
    assert lines["compiled `dispatch_20` ≤ 2× the floor"].endswith(
        "| compiled / floor 1.67× | PASS |"
    )
    assert "2.20×" in lines["compiled `decode_dispatch_20` ≤ 2× its floor"]
    assert lines["compiled `decode_dispatch_20` ≤ 2× its floor"].endswith("FAIL |")
    assert "90.9×" in lines["compiled `decode_dispatch_20` ≥ 100× faster than aiogram"]
    assert lines["compiled `decode_dispatch_20` ≥ 100× faster than aiogram"].endswith("FAIL |")
    pure_bar = lines["pure twin ≥ 20× faster than aiogram (both paths)"]
    assert "dispatch_20 28.0×" in pure_bar and "decode_dispatch_20 19.4×" in pure_bar
    assert pure_bar.endswith("FAIL |")
    # Each contender's ratio is to the floor of its own process.
    assert "| tgfast-pure | 2 (TGFAST_NO_EXTENSIONS=1) | 5.00 µs (16.1×) | 16.0 µs (10.0×) |" in out
    assert "| tgfast-compiled | 1 | 0.50 µs (1.67×) | 3.30 µs (2.20×) |" in out
