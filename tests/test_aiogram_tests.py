"""aiogram's own test suite, ported mechanically (``python -m tools.aiogram_tests``, read
from the installed aiogram's sdist at run time): every test that passes on aiogram passes
on tgfast, or tools/aiogram_tests/exclusions.py names it with its reason.

The tool runs the suite twice (once per framework, each in its own pytest process, about
20 s each), hence ``slow``; what it checks is the sources', hence ``once``.
"""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
sys.path.append(str(ROOT))  # last: tgfast stays the build under test, not the source tree
from tools.aiogram_tests.run import compare, matches, port  # noqa: E402

pytestmark = [pytest.mark.once, pytest.mark.slow, pytest.mark.timeout(900)]
# as ``python -m tools.aiogram_tests``, with the repository after the build under test
RUN = (
    f"import runpy, sys; sys.path.pop(0); sys.path.append({str(ROOT)!r}); "
    "runpy.run_module('tools.aiogram_tests', run_name='__main__')"
)


async def test_what_passes_on_aiogram_passes_on_tgfast_or_is_excluded() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", RUN,
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    output = (await proc.communicate())[0].decode(errors="replace")
    assert proc.returncode == 0, output
    total = re.search(r"passing on aiogram: (\d+); on tgfast: (\d+) .* failing: (\d+)", output)
    assert total is not None, output
    theirs, ours, failing = map(int, total.groups())
    assert theirs > 2000 and failing == 0, output  # the whole suite ran, on both
    assert ours > 1000, output


def test_the_rewrite_is_the_users() -> None:
    source = (
        "import aiogram\n"
        "from aiogram.types import Message\n"
        "    from aiogram import Bot\n"
        'patch("aiogram.client.session.aiohttp.AiohttpSession.make_request")\n'
        "x = aiogram.types.Chat\n"
        'url = "https://docs.aiogram.dev/en"\n'
        "aiogram_version = 1\n"
    )
    assert port(source) == (
        "import tgfast\n"
        "from tgfast.types import Message\n"
        "    from tgfast import Bot\n"
        'patch("tgfast.client.session.aiohttp.AiohttpSession.make_request")\n'
        "x = tgfast.types.Chat\n"
        'url = "https://docs.aiogram.dev/en"\n'
        "aiogram_version = 1\n"
    )


def test_exclusions_match_ids_or_their_prefixes() -> None:
    assert matches("tests/a.py::T::t[x-1]", "tests/a.py::T::t[x-1]")
    assert matches("tests/a.py::T::t[x-1]", "tests/a.py::T::*")
    assert not matches("tests/a.py::T::t[x-1]", "tests/a.py::T::t[x-2]")
    assert not matches("tests/a.py::T::t", "tests/a.py::T::t[*")


def test_compare_counts_by_directory_and_names_what_fails() -> None:
    passed, failed = ["passed", ""], ["failed", "E   boom"]
    theirs = {
        "outcomes": {
            "tests/d/test_a.py::test_one": passed,
            "tests/d/test_a.py::test_two": passed,
            "tests/d/test_a.py::test_p[AError]": passed,
            "tests/d/test_b.py::test_skipped_there": ["skipped", ""],
            "tests/test_fsm/storage/test_mongo_mock.py::test_x": passed,
        },
        "positions": {"tests/d/test_a.py::test_p[AError]": "tests/d/test_a.py::test_p[#0]"},
    }
    ours = {
        "outcomes": {
            "tests/d/test_a.py::test_one": passed,
            "tests/d/test_a.py::test_two": failed,
            "tests/d/test_a.py::test_p[BError]": passed,  # the same test, another class name
            "tests/test_fsm/storage/test_mongo_mock.py::test_x": failed,
        },
        "positions": {"tests/d/test_a.py::test_p[BError]": "tests/d/test_a.py::test_p[#0]"},
    }
    result = compare(theirs, ours)
    assert result.passing == {"tests/d": 3, "tests/test_fsm/storage": 1}
    assert result.ported == {"tests/d": 2}
    assert result.excluded == {"tests/test_fsm/storage": 1}
    assert result.failing == {"tests/d/test_a.py::test_two": failed}
