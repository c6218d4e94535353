"""The docs build with --strict, and every ``python`` block in them runs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

# the same whichever build is installed: scripts/test.sh runs it once, not per build
pytestmark = pytest.mark.once

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)

_MESSAGE = {"message_id": 7, "date": 1, "chat": {"id": 42, "type": "private"}, "text": "hi"}
# Inputs the snippets name but do not define, as a reader's own program would have them.
SNIPPET_INPUTS = {
    "body": orjson.dumps({"update_id": 1, "message": _MESSAGE}),
    "result_array": orjson.dumps([{"update_id": 1, "message": _MESSAGE}]),
    "data": orjson.dumps(_MESSAGE),
    "already_parsed": _MESSAGE,
}


def test_docs_build_strict(tmp_path: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "types" / "index.html").exists()
    # the API reference is generated from the docstrings (mkdocstrings)
    reference = (tmp_path / "reference" / "index.html").read_text(encoding="utf-8")
    assert "api_call_hooks" in reference and "UpdateContextFilter" in reference


def _blocks() -> list[tuple[str, int, str]]:
    out = []
    for page in sorted(DOCS.glob("*.md")):
        for i, match in enumerate(BLOCK.finditer(page.read_text(encoding="utf-8"))):
            out.append((page.name, i, match.group(1)))
    return out


@pytest.mark.parametrize(("page", "index", "code"), _blocks(), ids=lambda v: str(v)[:20])
def test_docs_snippet_runs(page: str, index: int, code: str) -> None:
    exec(compile(code, f"{page}#{index}", "exec"), dict(SNIPPET_INPUTS))


def test_the_deploy_dockerfile_can_build_tgfast() -> None:
    """docker cannot run here: the rules a slim image needs to build the sdist. Before
    pip builds tgfast, a compiler is installed or the pure build is asked for, and tgfast
    comes from the clone (it is not on PyPI yet)."""
    text = (DOCS / "deploy.md").read_text(encoding="utf-8")
    (dockerfile,) = re.findall(r"^```dockerfile\n(.*?)^```", text, re.S | re.M)
    lines = [line.strip() for line in dockerfile.splitlines() if not line.strip().startswith("#")]
    joined = "\n".join(lines).replace("\\\n", " ")
    steps = [line for line in joined.splitlines() if line]
    first_pip = next(
        i for i, step in enumerate(steps) if re.search(r"\bpip (wheel|install)\b", step)
    )
    before = " ".join(steps[:first_pip])
    compiler = re.search(r"apt-get install .*\bgcc\b", before) and "libc6-dev" in before
    assert compiler or "TGFAST_NO_EXTENSIONS=1" in before, steps
    assert steps[0].startswith("FROM python:3.") and "slim" in steps[0]
    assert any(step.startswith("COPY tgfast/") for step in steps[:first_pip])
    assert not any(re.search(r"pip install[^\n]* tgfast\b(?!/)", step) for step in steps)
    final = steps[max(i for i, step in enumerate(steps) if step.startswith("FROM ")) :]
    assert any("--no-index" in step for step in final)  # the image that runs: no compiler
    assert not any("gcc" in step for step in final)
