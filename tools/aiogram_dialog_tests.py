"""aiogram-dialog's own test suite on aiogram and on tgfast standing in for it.

    .venv/bin/python -m tools.aiogram_dialog_tests [--release 2.6.0] [--show N]

aiogram-dialog is the best known library built on aiogram. Its sdist is downloaded from
PyPI (once, into ~/.cache/tgfast/) and read where it lies: nothing of it is copied into
this repository. One scratch venv under /tmp (same Python as this one) holds aiogram at
the release tgfast follows, the library's dependencies and its test tools, and sees this
checkout's tgfast through a .pth (build it in place first: ``pip install -e .``). The
suite runs twice: as it is, on aiogram; then with ``tgfast.standin.install()`` called
before pytest starts, so every ``aiogram`` import is tgfast's (the installed aiogram is
shadowed, never loaded). Prints passed/total for both and the failures grouped by cause.

``--supply-missing`` is a diagnostic, not a measure: the stand-in run first gives tgfast,
in that process only, the two aiogram names the library needs at import and tgfast does
not have (``ContentType.ANY``/``UNKNOWN``, ``UNSET_PARSE_MODE`` as ``tgfast.DEFAULT``),
to show what fails behind them.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import subprocess
import sys
import sysconfig
import tarfile
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from importlib.metadata import requires
from pathlib import Path

from tgfast.standin import AIOGRAM_VERSION

ROOT = Path(__file__).resolve().parents[1]
RELEASE = "2.6.0"
# one scratch venv per checkout: its .pth names the checkout, and runs from two checkouts
# at once must not read each other's reports
SCRATCH = Path("/tmp") / f"tgfast-aiogram-dialog-{hashlib.sha1(bytes(ROOT)).hexdigest()[:8]}"
# the library's dependencies (aiogram's own pydantic and magic-filter among them: the
# library imports them directly) and its requirements_dev.txt test tools
REQUIREMENTS = [
    f"aiogram=={AIOGRAM_VERSION}",
    "jinja2",
    "cachetools>=4,<6",
    "pytest==9.0.2",
    "pytest-asyncio==1.3.0",
    "pytest-repeat==0.9.4",
    "pytest-timeout",  # a test that hangs fails alone instead of stopping the whole run
]
# tgfast's own dependencies, as the checkout declares them (pyproject.toml)
TGFAST_DEPENDENCIES = [r for r in requires("tgfast") or [] if "extra ==" not in r]
# pytest's "E   SomeError: ..." lines; the last one is what was raised
# --supply-missing: what tgfast lacks that aiogram-dialog needs at import (diagnostic only)
SUPPLY_MISSING = """
import enum, tgfast, tgfast.enums, tgfast.types
_known = {member.name: member.value for member in tgfast.enums.ContentType}
_wider = enum.Enum("ContentType", {**_known, "UNKNOWN": "unknown", "ANY": "any"}, type=str)
tgfast.enums.ContentType = tgfast.types.ContentType = _wider
tgfast.types.UNSET_PARSE_MODE = tgfast.DEFAULT
"""
_ERROR_LINE = re.compile(r"^E\s+(\w+(?:Error|Exception)\b.*)$", re.MULTILINE)


def fetch_sdist(release: str) -> Path:
    """The unpacked sdist of aiogram-dialog ``release``, downloaded once."""
    cache = Path.home() / ".cache" / "tgfast" / f"aiogram_dialog-{release}"
    unpacked = cache / f"aiogram_dialog-{release}"
    if not (unpacked / "tests").is_dir():
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
             "-d", str(cache), f"aiogram-dialog=={release}"],
            check=True,
        )  # fmt: skip
        with tarfile.open(next(cache.glob("aiogram_dialog-*.tar.gz"))) as sdist:
            sdist.extractall(cache, filter="data")
    return unpacked


def scratch_venv() -> Path:
    """The venv the suite runs in (made once, its requirements checked every run): aiogram,
    the library's dependencies and tgfast's, this checkout's tgfast."""
    venv = SCRATCH / "venv"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    # every run: a dependency tgfast has added since the venv was made is installed
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", *REQUIREMENTS, *TGFAST_DEPENDENCIES],
        check=True,
    )
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(purelib) / "tgfast_checkout.pth").write_text(f"{ROOT}\n")
    return python


@dataclass
class Outcome:
    """One run of the suite: counts, and each failure's cause (the error it raised)."""

    passed: int = 0
    total: int = 0
    causes: Counter[str] = field(default_factory=Counter)


def run_suite(python: Path, sdist: Path, *, standin: bool, supply: bool = False) -> Outcome:
    report = SCRATCH / f"{'tgfast' if standin else 'aiogram'}.xml"
    start = "import tgfast.standin; tgfast.standin.install()\n" if standin else ""
    if supply:
        start += SUPPLY_MISSING
    code = (
        f"{start}\nimport sys, pytest\nsys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', "
        f"'--continue-on-collection-errors', '--timeout=60', '--junitxml={report}', 'tests']))"
    )
    env = {**os.environ, "PYTHONPATH": str(sdist / "src")}
    subprocess.run([str(python), "-c", code], cwd=sdist, env=env, capture_output=True, timeout=900)
    return read_report(report)


def read_report(report: Path) -> Outcome:
    outcome = Outcome()
    for case in ET.parse(report).getroot().iter("testcase"):
        outcome.total += 1
        problem = next((c for c in case if c.tag in ("failure", "error")), None)
        if problem is None:
            if not any(c.tag == "skipped" for c in case):
                outcome.passed += 1
            continue
        raised = _ERROR_LINE.findall(problem.text or "")
        cause = raised[-1] if raised else problem.get("message", "") or "(no message)"
        outcome.causes[cause.strip()[:150]] += 1
    return outcome


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", default=RELEASE, help="aiogram-dialog release")
    parser.add_argument("--show", type=int, default=10, help="failure causes to print")
    parser.add_argument(
        "--supply-missing",
        action="store_true",
        help="diagnostic: supply ContentType.ANY and UNSET_PARSE_MODE in the tgfast run",
    )
    args = parser.parse_args()
    sdist = fetch_sdist(args.release)
    python = scratch_venv()
    print(f"aiogram-dialog {args.release}, Python {sysconfig.get_python_version()}")
    baseline = run_suite(python, sdist, standin=False)
    ours = run_suite(python, sdist, standin=True, supply=args.supply_missing)
    print(f"on aiogram {AIOGRAM_VERSION}: {baseline.passed} of {baseline.total} pass")
    supplied = " + ContentType.ANY, UNSET_PARSE_MODE supplied" if args.supply_missing else ""
    print(
        f"on tgfast (tgfast.standin{supplied}): {ours.passed} of {baseline.total} pass "
        f"({ours.total} collected)"
    )
    print(
        "what failed on tgfast, by the error raised (a test module that cannot be imported counts once):"
    )
    for cause, count in ours.causes.most_common(args.show):
        print(f"  {count:4d}  {cause}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
