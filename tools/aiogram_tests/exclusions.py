"""The tests of aiogram's suite that tgfast is not held to, each with the reason a bot
author would accept. A key is a test id or an ``fnmatch`` pattern of test ids (as
pytest prints them, from ``tests/``); ``python -m tools.aiogram_tests`` prints how many
each reason covers and the share of the suite excluded.

Every gap is named here: a test that passes on aiogram and is not excluded must pass
on tgfast (tests/test_aiogram_tests.py).
"""

from __future__ import annotations

__all__ = ["EXCLUDED", "STAND_INS"]

STAND_INS = ("tgfast.fsm.storage.mongo", "tgfast.fsm.storage.pymongo")
"""Modules aiogram's conftest imports that tgfast has not: imported as stand-ins in the
tgfast run (tools/aiogram_tests/stand_ins.py), their tests excluded below."""

_MONGO = "MongoDB storage: tgfast has none (MemoryStorage, RedisStorage)"

EXCLUDED: dict[str, str] = {
    "tests/test_fsm/storage/test_mongo.py::*": _MONGO,
    "tests/test_fsm/storage/test_pymongo.py::*": _MONGO,
}
