"""Shared fixtures: the ``decoder`` and ``routing`` fixtures run a test once per
implementation; ``fake``, ``bot`` (on the fake) and ``http`` (a client session) for the
serving tests; ``redis_server`` (a real redis-server per test module) and ``redis_url``
(that server, running and empty) for the Redis tests."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import ModuleType

import aiohttp
import pytest
from hypothesis import HealthCheck, settings
from hypothesis.configuration import set_hypothesis_home_dir
from implementations import (
    COMPILED_IMPORT_ERRORS,
    EXPECT_COMPILED,
    EXPECT_PURE,
    IMPLEMENTATIONS,
    LOADED,
    NO_EXTENSIONS,
    ROUTING_IMPLEMENTATIONS,
)
from redis_server import RedisServer
from server_support import make_bot

import tgfast
from tgfast import Bot
from tgfast.server.webhook import HTTP_LAYERS
from tgfast.testing import FakeTelegram

# Hypothesis keeps caches in a directory of its own: keep it inside tests/
# (ignored by git), and keep no example database at all; a failure prints its
# reproduction blob instead.
set_hypothesis_home_dir(Path(__file__).resolve().parent / ".hypothesis")
settings.register_profile(
    "tgfast",
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("tgfast")


def pytest_configure(config: pytest.Config) -> None:
    if EXPECT_COMPILED and EXPECT_PURE:
        pytest.exit(
            "TGFAST_EXPECT_COMPILED=1 and TGFAST_EXPECT_PURE=1 contradict each other",
            returncode=pytest.ExitCode.USAGE_ERROR,
        )
    if EXPECT_PURE and LOADED:
        pytest.exit(
            "TGFAST_EXPECT_PURE=1 but compiled modules are importable: "
            + ", ".join(f"tgfast._speedups.{name} from {m.__file__}" for name, m in LOADED.items())
            + ": this is not the pure-Python build",
            returncode=pytest.ExitCode.USAGE_ERROR,
        )
    if not EXPECT_COMPILED:
        return
    if NO_EXTENSIONS:
        pytest.exit(
            "TGFAST_EXPECT_COMPILED=1 contradicts TGFAST_NO_EXTENSIONS="
            f"{os.environ.get('TGFAST_NO_EXTENSIONS')!r}: refusing a pure-only run",
            returncode=pytest.ExitCode.USAGE_ERROR,
        )
    if COMPILED_IMPORT_ERRORS or not tgfast.__speedups__:
        missing = "; ".join(
            f"tgfast._speedups.{name}: {exc!r}" for name, exc in COMPILED_IMPORT_ERRORS.items()
        )
        pytest.exit(
            "TGFAST_EXPECT_COMPILED=1 but the compiled modules are not all loaded "
            f"(tgfast.__speedups__={tgfast.__speedups__}): {missing}",
            returncode=pytest.ExitCode.USAGE_ERROR,
        )


def pytest_report_header(config: pytest.Config) -> list[str]:
    compiled = "; ".join(
        [f"compiled {name} from {module.__file__}" for name, module in LOADED.items()]
        + [f"compiled {name} unavailable ({exc})" for name, exc in COMPILED_IMPORT_ERRORS.items()]
    )
    return [
        f"tgfast {tgfast.__version__} imported from {os.path.dirname(tgfast.__file__)}",
        (
            f"tgfast implementations under test: {', '.join(IMPLEMENTATIONS)} "
            f"(tgfast.__speedups__={tgfast.__speedups__}, "
            f"TGFAST_NO_EXTENSIONS={os.environ.get('TGFAST_NO_EXTENSIONS', '')!r}; {compiled})"
        ),
    ]


@pytest.fixture(
    scope="session",
    params=[pytest.param(module, id=name) for name, module in IMPLEMENTATIONS.items()],
)
def decoder(request: pytest.FixtureRequest) -> ModuleType:
    """A decoder module: ``tgfast._speedups._decode`` (``c``) or ``_decode_py`` (``py``)."""
    module: ModuleType = request.param
    return module


@pytest.fixture(
    scope="session",
    params=[pytest.param(module, id=name) for name, module in ROUTING_IMPLEMENTATIONS.items()],
)
def routing(request: pytest.FixtureRequest) -> ModuleType:
    """A routing runtime for ``Dispatcher(routing=...)``: ``tgfast._speedups._routing``
    (``c``) or ``_routing_py`` (``py``)."""
    module: ModuleType = request.param
    return module


# The webhook server's behaviour tests run once per HTTP layer (tgfast's own protocol,
# compiled or its twin as the build says, and aiohttp.web), unchanged: the layer is
# chosen through $TGFAST_HTTP, which the servers they start, in-process or as a
# ``tgfast webhook`` process, read.
WEBHOOK_HTTP_MODULES = frozenset({
    "test_server_webhook", "test_server_hostile", "test_server_addresses",
    "test_server_shutdown", "test_server_metrics", "test_examples_bots",
})  # fmt: skip


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.module.__name__ in WEBHOOK_HTTP_MODULES:
        if "webhook_http" not in metafunc.fixturenames:
            metafunc.fixturenames.append("webhook_http")
        metafunc.parametrize("webhook_http", HTTP_LAYERS, indirect=True)


@pytest.fixture
def webhook_http(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The webhook server's HTTP layer for this test (``$TGFAST_HTTP``)."""
    layer: str = getattr(request, "param", "tgfast")
    monkeypatch.setenv("TGFAST_HTTP", layer)
    return layer


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    """A FakeTelegram for the test, which must end with nothing gone wrong inside it."""
    async with FakeTelegram() as fake:
        yield fake
        assert fake.errors == []


@pytest.fixture
async def bot(request: pytest.FixtureRequest, fake: FakeTelegram) -> AsyncIterator[Bot]:
    """A bot on the test's ``fake``, without the rate limiter (tests send fast to few
    chats); in a module that sets ``OFFLINE_BOT = True`` (tests that only dispatch), a
    bot that never connects, with the token ``42:test-token`` (an async fixture cannot
    start the fake on demand, so it runs unused there)."""
    if getattr(request.module, "OFFLINE_BOT", False):
        async with Bot("42:test-token", rate_limiter=None) as offline:
            yield offline
        return
    async with make_bot(fake) as bot:
        yield bot


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as http:
        yield http


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    """A real redis-server for the module's tests (some stop and restart it)."""
    with RedisServer() as server:
        yield server


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The module's redis-server, running and empty: each test starts from nothing."""
    if redis_server.process is None:  # a test that stopped it failed before restarting it
        redis_server.start()
    redis_server.flushall()
    return redis_server.url
