"""Docstrings and docs that stay true: every repository path they name exists, and every
``tgfast <command>`` they show is a command of ``tgfast``.

A file moved or a command renamed leaves its old name behind in prose nobody runs; this
reads the prose. Paths are the ones under the repository's own top folders
(``tgfast/server/runner.py``, ``docs/media.md``, ``tests/support/``); commands are the
word after ``tgfast`` at the start of a code span or after ``bin/``.
"""

from __future__ import annotations

import argparse
import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tgfast.cli import build_parser

# a property of the sources, not of the build: once
pytestmark = pytest.mark.once

ROOT = Path(__file__).resolve().parents[1]
TOP = ("tgfast", "tests", "docs", "benchmarks", "tools", "scripts", "examples", ".ci")
PATH = re.compile(r"(?<![\w./<{-])((?:" + "|".join(re.escape(t) for t in TOP) + r")/[\w./-]*[\w/])")
COMMAND = re.compile(r"(?:`|bin/)tgfast ([a-z][a-z-]*)")
DOCS = [
    ROOT / "README.md",
    ROOT / "ARCHITECTURE.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "benchmarks").glob("*/README.md")),
    ROOT / "benchmarks" / "README.md",
    ROOT / "tools" / "codegen" / "spec" / "README.md",
]
"""Prose read whole (``benchmarks/HISTORY.md`` is history: the names of its day)."""
CODE = sorted(
    p for top in ("tgfast", "tools", "tests", "benchmarks", "examples") for p in
    (ROOT / top).rglob("*.py")
)  # fmt: skip


def docstrings(path: Path) -> Iterator[str]:
    """The module's, classes' and functions' docstrings of a Python file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            text = ast.get_docstring(node, clean=False)
            if text:
                yield text


def texts() -> Iterator[tuple[str, str]]:
    """(where, text) for every doc page and every docstring."""
    for page in DOCS:
        yield page.relative_to(ROOT).as_posix(), page.read_text(encoding="utf-8")
    for path in CODE:
        for text in docstrings(path):
            yield path.relative_to(ROOT).as_posix(), text


def paths_in(text: str) -> set[str]:
    found = set()
    for match in PATH.finditer(text):
        path = match[1].rstrip(".")
        if "..." in path or text[match.end() : match.end() + 1] in ("*", "<", "{"):
            continue  # a pattern (tests/test_<package>.py), not a path
        found.add(path)
    return found


def commands() -> set[str]:
    parser = build_parser()
    return {
        name
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
        for name in action.choices
    }


def test_the_scan_sees_what_it_must() -> None:
    text = "see ``tgfast/server/runner.py``, docs/media.md. and `tgfast polling app:dp`"
    assert paths_in(text) == {"tgfast/server/runner.py", "docs/media.md"}
    assert paths_in("https://host/tgfast/x.py, tests/*.py, tests/test_<name>.py") == set()
    assert COMMAND.findall(text + " .venv/bin/tgfast webhook x, tgfast follows") == [
        "polling",
        "webhook",
    ]
    assert {"webhook", "polling", "set-webhook"} <= commands()
    # what the first version of this test found: a command that never was
    assert COMMAND.findall("(``tgfast run --redis URL``)") == ["run"]
    assert "run" not in commands()
    where = dict(texts())
    assert "ARCHITECTURE.md" in where and "tgfast/utils/album.py" in where


def test_every_path_named_exists() -> None:
    missing = sorted(
        f"{where}: {path}"
        for where, text in texts()
        for path in paths_in(text)
        if not (ROOT / path).exists()
    )
    assert not missing, "named but not in the repository:\n" + "\n".join(missing)


def test_every_tgfast_command_shown_exists() -> None:
    known = commands()
    unknown = sorted(
        f"{where}: tgfast {name}"
        for where, text in texts()
        for name in COMMAND.findall(text)
        if name not in known
    )
    assert not unknown, f"not a command of tgfast ({sorted(known)}):\n" + "\n".join(unknown)
