"""aiogram's own scene examples (``scene.py``, ``quiz_scene.py`` from the installed
aiogram's sdist), ported by changing imports only, make the same Bot API calls on
tgfast as on aiogram for the updates tools/aiogram_examples/scripts.py walks them
through (every scene, Back, Cancel, Exit, the quiz to its end).

Run as a user runs it, ``python -m tools.aiogram_examples NAME`` from the repository:
each example in its own process per framework, 0.4 s of quiet after each update (the
compat harness's), about 25 s each, hence ``slow``.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]
ROOT = Path(__file__).parent.parent


@pytest.mark.parametrize("name", ["scene", "quiz_scene"])
async def test_scene_examples_make_aiogram_calls(name: str) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tools.aiogram_examples", name, "-v", "--quiet", "0.4",
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    output = (await proc.communicate())[0].decode(errors="replace")
    assert proc.returncode == 0, output
    row = next(line for line in output.splitlines() if line.startswith(name + " "))
    _, theirs, ours, verdict = row.split(None, 3)
    assert verdict == "same calls" and int(theirs) == int(ours) > 20, output
