"""The hand-written ``.pyi`` stubs match the compiled modules they describe.

``mypy.stubtest`` imports the installed compiled modules and compares every name,
signature and class with the stub beside it. Collected only when this run has the
compiled build (as ``test_twins.TestTwins``): the pure build has nothing to compare.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from implementations import COMPILED_MODULES, IMPLEMENTATIONS


class TestStubs:
    __test__ = "c" in IMPLEMENTATIONS

    def test_stubs_match_the_compiled_modules(self, tmp_path: Path) -> None:
        modules = [f"tgfast._speedups.{name}" for name in COMPILED_MODULES]
        result = subprocess.run(
            [sys.executable, "-m", "mypy.stubtest", *modules],
            cwd=tmp_path,  # not the repo root: stubtest must import the installed build
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        found = f"Success: no issues found in {len(modules)} modules"
        assert found in result.stdout, result.stdout
