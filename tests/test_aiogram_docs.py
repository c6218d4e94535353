"""The snippets of aiogram's documentation of keyboards, formatting, media groups, chat
actions, callback answers, i18n, web apps, scenes, deep links, flags and callback data behave on tgfast as on aiogram once
their imports say tgfast (``python -m tools.aiogram_docs``, read from the installed
aiogram's sdist at run time): same exception or none, same Bot API calls, same values."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
sys.path.append(str(ROOT))  # last: tgfast stays the build under test, not the source tree
from tools.aiogram_docs.run import Outcome, filled_in, placeholder, verdict  # noqa: E402
from tools.aiogram_docs.snippets import Snippet, extract  # noqa: E402

pytestmark = pytest.mark.timeout(300)
# run as ``python -m tools.aiogram_docs``, with the repository after the build under test
# (the current directory, first on the path of ``-c``, taken off: ``-P`` is 3.11+)
RUN = (
    f"import runpy, sys; sys.path.pop(0); sys.path.append({str(ROOT)!r}); "
    "runpy.run_module('tools.aiogram_docs', run_name='__main__')"
)
# the blocks that cannot run, each for a reason of the docs' own (the placeholders the
# tool fills in, FILL_INS, are not counted here)
NOT_RUNNABLE = {
    ("utils/i18n.rst", 3),  # an unbalanced parenthesis
    ("utils/i18n.rst", 5),  # a pybabel command
    ("dispatcher/flags.rst", 1),  # a def without a body
    ("dispatcher/flags.rst", 2),  # a def without a body
    ("dispatcher/flags.rst", 3),  # a decorator without a def
    ("dispatcher/filters/callback_data.rst", 6),  # a decorator without a def
}


async def test_doc_snippets_behave_as_on_aiogram() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", RUN,
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    output = (await proc.communicate())[0].decode(errors="replace")
    verdicts: dict[tuple[str, int], str] = {}
    for line in output.splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[0].endswith(".rst") and parts[1].isdigit():
            verdicts[parts[0], int(parts[1])] = line
    assert proc.returncode == 0, output
    assert f"{ROOT / 'tgfast'})" not in output.splitlines()[0], output
    assert not [line for line in verdicts.values() if "DIFFERENT" in line], output
    unrunnable = {key for key, line in verdicts.items() if "not runnable" in line}
    assert unrunnable == NOT_RUNNABLE, output
    same = [key for key, line in verdicts.items() if line.endswith(" same")]
    assert len(same) >= 39 and len(verdicts) == len(same) + len(NOT_RUNNABLE), output


def test_extract_takes_python_blocks_without_options() -> None:
    page = "\n".join([
        "Title", "", ".. code-block:: python", "    :emphasize-lines: 2", "",
        "    x = 1", "    y = x + 1", "", "text", "", ".. code-block:: bash", "",
        "    ls", "", ".. code-block::", "", "    z = 3", "",
    ])  # fmt: skip
    assert extract(page) == [(3, "x = 1\ny = x + 1\n"), (15, "z = 3\n")]


def test_fill_ins_make_placeholders_code() -> None:
    assert filled_in("@router.message(...)\nasync def f(m): ...\n").startswith("@router.message()")
    filled = filled_in("@router.message(F.text == 'x')\n...\n")
    assert "async def _handler(message: Message)" in filled
    assert not placeholder(filled_in("m = InlineKeyboardMarkup(inline_keyboard=[...])"))


def test_placeholder_is_ellipsis_as_a_value_only() -> None:
    assert placeholder("m = Markup(rows=[...])")
    assert not placeholder("async def f():\n    ...\n")


def test_verdict_tells_a_difference_in_calls_values_or_errors() -> None:
    snippet = Snippet("p.rst", 1, 1, "x = 1\n")
    call = [("sendMessage", {"chat_id": 1, "text": "a"})]
    assert verdict(snippet, Outcome(calls=call), Outcome(calls=call)) == "same"
    assert verdict(snippet, Outcome(calls=call), Outcome()) == "DIFFERENT"
    assert verdict(snippet, Outcome(values={"x": 1}), Outcome(values={"x": 2})) == "DIFFERENT"
    assert verdict(snippet, Outcome(error="TypeError"), Outcome()) == "DIFFERENT"
    assert verdict(snippet, Outcome(error="NameError: foo"), Outcome()).startswith("not runnable")
