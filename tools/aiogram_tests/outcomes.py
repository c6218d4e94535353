"""A pytest plugin (``-p outcomes``, copied beside the suite it watches) that writes one
outcome per test id to the JSON file named by ``$AIOGRAM_TESTS_OUTCOMES``: ``passed``,
``failed`` (a failure in setup, call or teardown), ``skipped``, ``xfailed`` or
``xpassed``; with the first line of the error for a failed one. Beside them, the
position of each parametrized test (``file::test[#i-j]``: which value of each parameter),
to match the tests whose ids differ between frameworks only by a name (an exception
class's, say)."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

_outcomes: dict[str, list[str]] = {}
_by_position: dict[str, str] = {}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None:
            positions = "-".join(str(i) for i in callspec.indices.values())
            _by_position[item.nodeid] = f"{item.nodeid.partition('[')[0]}[#{positions}]"


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    entry = _outcomes.setdefault(report.nodeid, ["passed", ""])
    if entry[0] == "failed":
        return
    if report.failed:
        message = report.longreprtext.strip().splitlines()
        errors = [line for line in message if line.startswith("E ")]
        entry[:] = ["failed", (errors or message or [""])[0][:300]]
    elif report.skipped and entry[0] == "passed":
        entry[0] = "xfailed" if hasattr(report, "wasxfail") else "skipped"
    elif report.when == "call" and report.passed and hasattr(report, "wasxfail"):
        entry[0] = "xpassed"


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.failed:  # a module that does not import: its tests never ran
        message = report.longreprtext.strip().splitlines()
        errors = [line for line in message if line.startswith("E ")]
        _outcomes[report.nodeid] = ["failed", (errors or message or [""])[-1][:300]]


def pytest_sessionfinish(session: Any) -> None:
    path = os.environ.get("AIOGRAM_TESTS_OUTCOMES")
    if path:
        with open(path, "w") as f:
            json.dump({"outcomes": _outcomes, "positions": _by_position}, f, sort_keys=True)
