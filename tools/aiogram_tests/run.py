"""aiogram's own test suite on tgfast, ported mechanically: does what passes on aiogram
pass on tgfast?  (The measure of issue #25.)

    .venv/bin/python -m tools.aiogram_tests [-v] [--only PATTERN] [--tests DIR]

aiogram's ``tests/`` (and its pytest configuration) are read from the installed
aiogram's sdist, downloaded from PyPI once into ~/.cache/tgfast/; nothing of aiogram's is
copied into this repository. The suite is run twice, each in its own pytest process: as
is against aiogram, and after the one rewrite a user makes (``port``: ``aiogram`` ->
``tgfast`` in imports, dotted references and ``mock.patch`` strings) against tgfast.
A real redis-server on 127.0.0.1 serves the ``--redis`` tests of both runs.

A test that passes on aiogram must pass on tgfast unless ``exclusions.EXCLUDED`` names it
with its reason; the exit status is 1 when one does not. Per directory of the suite the
table gives: tests passing on aiogram, those of them passing on tgfast, excluded, failing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

from .exclusions import EXCLUDED, STAND_INS

__all__ = ["Result", "compare", "fetch_tests", "main", "port", "run_suite"]

HERE = Path(__file__).parent
FRAMEWORKS = ("aiogram", "tgfast")
# ``aiogram`` as a module name: at the start of an import statement, or the first part of
# a dotted name (``aiogram.types.Message``, ``"aiogram.client.bot.Bot.close"``); not a
# part of a longer name or of a host name (``docs.aiogram.dev``)
_IMPORT = re.compile(r"^(\s*)(from|import)\s+aiogram\b", re.MULTILINE)
_DOTTED = re.compile(r"(?<![\w.])aiogram(?=\.[A-Za-z_])")
PASSING = ("passed",)


def port(source: str) -> str:
    """The rewrite a user makes: ``aiogram`` -> ``tgfast`` as a module name."""
    return _DOTTED.sub("tgfast", _IMPORT.sub(r"\1\2 tgfast", source))


def fetch_tests() -> Path:
    """The installed aiogram's sdist, unpacked once: its ``tests/`` and ``pyproject.toml``."""
    release = version("aiogram")
    cache = Path.home() / ".cache" / "tgfast" / f"aiogram-{release}"
    tree = cache / "suite"
    if not (tree / "tests").is_dir():
        cache.mkdir(parents=True, exist_ok=True)
        if not list(cache.glob("aiogram-*.tar.gz")):
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary",
                 ":all:", "-d", str(cache), f"aiogram=={release}"],
                check=True,
            )  # fmt: skip
        partial = cache / "suite.partial"
        shutil.rmtree(partial, ignore_errors=True)
        with tarfile.open(next(cache.glob("aiogram-*.tar.gz"))) as sdist:
            members = [
                m
                for m in sdist.getmembers()
                if m.name.partition("/")[2].startswith("tests/")
                or m.name.partition("/")[2] == "pyproject.toml"
            ]
            sdist.extractall(partial, members=members, filter="data")
        shutil.move(str(next(partial.glob("aiogram-*"))), tree)
        shutil.rmtree(partial)
    return tree


def workspace(suite: Path, framework: str, root: Path) -> Path:
    """A copy of the suite in ``root`` to run on ``framework`` (ported for tgfast), with
    the outcome collector beside it and, for tgfast, the stand-ins of
    ``exclusions.STAND_INS``."""
    work = root / framework
    work.mkdir(parents=True)
    shutil.copytree(suite / "tests", work / "tests")
    shutil.copy(suite / "pyproject.toml", work / "pyproject.toml")
    shutil.copy(HERE / "outcomes.py", work / "aiogram_tests_outcomes.py")
    compile_catalogues(work / "tests" / "data" / "locales")
    if framework == "tgfast":
        for path in (work / "tests").rglob("*.py"):
            path.write_text(port(path.read_text()))
        stand_ins = work / "aiogram_tests_stand_ins.py"
        stand_ins.write_text((HERE / "stand_ins.py").read_text())
    return work


def compile_catalogues(locales: Path) -> None:
    """``pybabel compile`` of the suite's catalogues (the sdist ships the ``.po`` only)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    for po in sorted(locales.glob("*/LC_MESSAGES/*.po")):
        with po.open("rb") as source:
            catalog = read_po(source, locale=po.relative_to(locales).parts[0])
        with po.with_suffix(".mo").open("wb") as target:
            write_mo(target, catalog)


Run = dict[str, dict[str, Any]]
"""What the collector wrote: ``outcomes`` (test id -> [outcome, error]) and
``positions`` (parametrized test id -> its ``file::test[#i-j]`` key)."""


def run_suite(
    work: Path, framework: str, redis_url: str, only: list[str], verbose: bool
) -> tuple[Run, float]:
    """Run the suite in ``work`` in its own process: its outcomes, seconds taken."""
    outcomes = work / "outcomes.json"
    plugins = ["-p", "aiogram_tests_outcomes"]
    if framework == "tgfast":
        plugins += ["-p", "aiogram_tests_stand_ins"]
    command = [
        sys.executable, "-m", "pytest", *(only or ["tests"]), *plugins, "-p", "no:cacheprovider",
        "-q", "--tb=no", "--no-header", "--continue-on-collection-errors", "-o", "console_output_style=classic",
        # the pytest-asyncio aiogram locks (1.3) has this default; later ones warn of it
        "-o", "asyncio_default_fixture_loop_scope=function",
        "--timeout=60", f"--redis={redis_url}",
    ]  # fmt: skip
    env = dict(os.environ, AIOGRAM_TESTS_OUTCOMES=str(outcomes), STAND_INS=",".join(STAND_INS))
    env.pop("PYTHONPATH", None)
    started = time.monotonic()
    proc = subprocess.run(
        command, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    took = time.monotonic() - started
    if verbose:
        print(proc.stdout.decode(errors="replace")[-3000:])
    if not outcomes.exists():
        output = proc.stdout.decode(errors="replace")
        raise RuntimeError(f"the {framework} run reported nothing:\n{output[-3000:]}")
    return json.loads(outcomes.read_text()), took


def matches(test_id: str, pattern: str) -> bool:
    """A pattern is a test id, or ends in ``*`` to match every id it starts (no other
    wildcard: test ids hold brackets)."""
    if pattern.endswith("*"):
        return test_id.startswith(pattern[:-1])
    return test_id == pattern


def excluded(test_id: str) -> str | None:
    """The reason ``test_id`` is excluded, or None."""
    for pattern, reason in EXCLUDED.items():
        if matches(test_id, pattern):
            return reason
    return None


def directory(test_id: str) -> str:
    return str(Path(test_id.partition("::")[0]).parent)


def outcome_on(
    outcomes: dict[str, list[str]], test_id: str, same_position: list[str] | None = None
) -> list[str]:
    """The outcome of ``test_id`` (its id ported too: a parameter's id may name a
    module), else that of the test at the same parameter position (an id naming a class
    whose name differs), else its module's (one that failed to import), else
    ``missing``."""
    found = (
        outcomes.get(test_id)
        or outcomes.get(port(test_id))
        or same_position
        or outcomes.get(test_id.partition("::")[0])
    )
    return found or ["missing", "not collected on tgfast"]


@dataclass
class Result:
    """What the two runs say, per directory and in total."""

    passing: Counter[str] = field(default_factory=Counter)  # on aiogram
    ported: Counter[str] = field(default_factory=Counter)  # passing on both
    excluded: Counter[str] = field(default_factory=Counter)  # passing on aiogram, excluded
    failing: dict[str, list[str]] = field(default_factory=dict)  # test id -> outcome
    reasons: Counter[str] = field(default_factory=Counter)  # exclusion reason -> tests
    passing_excluded: list[str] = field(default_factory=list)  # excluded, yet passing
    unused: list[str] = field(default_factory=list)  # patterns that match no test


def compare(theirs: Run, ours: Run) -> Result:
    result = Result()
    used: set[str] = set()
    where_is = theirs["positions"]
    at = {pos: ours["outcomes"][i] for i, pos in ours["positions"].items() if i in ours["outcomes"]}
    for test_id, (outcome, _) in sorted(theirs["outcomes"].items()):
        if outcome not in PASSING or "::" not in test_id:
            continue
        where = directory(test_id)
        result.passing[where] += 1
        reason = excluded(test_id)
        on_tgfast = outcome_on(ours["outcomes"], test_id, at.get(where_is.get(test_id, "")))
        if reason is not None:
            used.update(p for p in EXCLUDED if matches(test_id, p))
            result.excluded[where] += 1
            result.reasons[reason] += 1
            if on_tgfast[0] in PASSING:
                result.passing_excluded.append(test_id)
        elif on_tgfast[0] in PASSING:
            result.ported[where] += 1
        else:
            result.failing[test_id] = on_tgfast
    result.unused = [p for p in EXCLUDED if p not in used]
    return result


def report(result: Result, verbose: bool) -> None:
    print(f"{'directory':44} {'aiogram':>8} {'tgfast':>8} {'excluded':>9} {'failing':>8}")
    failing_per = Counter(directory(t) for t in result.failing)
    for where in sorted(result.passing):
        print(
            f"{where:44} {result.passing[where]:>8} {result.ported[where]:>8} "
            f"{result.excluded[where]:>9} {failing_per[where]:>8}"
        )
    total = sum(result.passing.values())
    ported, left_out = sum(result.ported.values()), sum(result.excluded.values())
    print(f"{'total':44} {total:>8} {ported:>8} {left_out:>9} {len(result.failing):>8}")
    share = 100 * left_out / total if total else 0.0
    print(f"passing on aiogram: {total}; on tgfast: {ported} ({100 * ported / max(total, 1):.1f}%);"
          f" excluded: {left_out} ({share:.1f}%); failing: {len(result.failing)}")  # fmt: skip
    print("excluded, by reason:")
    for reason, count in result.reasons.most_common():
        print(f"  {count:>5}  {reason}")
    if result.passing_excluded:
        print(f"excluded but passing on tgfast ({len(result.passing_excluded)}): take them out")
        for test_id in result.passing_excluded[: None if verbose else 10]:
            print(f"  {test_id}")
    if result.unused:
        print("exclusions that match no test passing on aiogram:")
        for pattern in result.unused:
            print(f"  {pattern}")
    if result.failing:
        print(f"FAILING on tgfast, passing on aiogram, not excluded ({len(result.failing)}):")
        for test_id, (outcome, why) in list(result.failing.items())[: None if verbose else 40]:
            print(f"  {test_id}: {outcome}: {why}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tests", type=Path, help="an unpacked sdist (default: download)")
    parser.add_argument("--only", action="append", default=[], help="a path or id in tests/")
    parser.add_argument("-v", "--verbose", action="store_true", help="every failing test")
    parser.add_argument("--save", type=Path, help="write both runs' outcomes to this JSON file")
    options = parser.parse_args(argv)
    suite = options.tests or fetch_tests()
    sys.path.insert(0, str(Path(__file__).parent.parent.parent / "tests" / "support"))
    from redis_server import RedisServer

    server = RedisServer()
    server.start()
    runs: dict[str, Run] = {}
    # a directory of this run's own: two runs at once (the suite's and a user's) collide
    root = Path(tempfile.mkdtemp(prefix="tgfast-aiogram-tests-"))
    try:
        print(f"aiogram {version('aiogram')} tests, tgfast {version('tgfast')}")
        for number, framework in enumerate(FRAMEWORKS):
            work = workspace(suite, framework, root)
            url = f"redis://127.0.0.1:{server.port}/{number}"
            runs[framework], took = run_suite(work, framework, url, options.only, options.verbose)
            tests = runs[framework]["outcomes"]
            counts = Counter(outcome for outcome, _ in tests.values())
            print(f"{framework}: {dict(sorted(counts.items()))} in {took:.0f}s")
    finally:
        server.close()
        shutil.rmtree(root, ignore_errors=True)
    if options.save:
        options.save.write_text(json.dumps(runs, indent=0, sort_keys=True))
    result = compare(runs["aiogram"], runs["tgfast"])
    report(result, options.verbose)
    return 1 if result.failing else 0
