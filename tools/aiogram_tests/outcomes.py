"""A pytest plugin (``-p outcomes``, copied beside the suite it watches) that writes one
outcome per test id to the JSON file named by ``$AIOGRAM_TESTS_OUTCOMES``: ``passed``,
``failed`` (a failure in setup, call or teardown), ``skipped``, ``xfailed`` or
``xpassed``; with the first line of the error for a failed one."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

_outcomes: dict[str, list[str]] = {}


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
            json.dump(_outcomes, f, indent=0, sort_keys=True)
