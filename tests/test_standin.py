"""``tgfast.standin``: a library built on aiogram runs on tgfast in the same process.

Each test runs in a fresh interpreter (the stand-in changes ``sys.meta_path`` and
``sys.modules`` for good), with the same build switch as this run. The library is a
module written here that imports only ``aiogram``; the bot imports only ``tgfast``.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tgfast.standin

# what a library built on aiogram looks like: aiogram imports only
LIBRARY = """
from aiogram import F, Router
from aiogram.filters import Command
from aiogram.types import Message
from aiogram.types.message import Message as MessageFromItsModule

router = Router(name="library")


@router.message(Command("hello"))
async def hello(message: Message) -> None:
    await message.answer(f"hello from the library, {message.from_user.first_name}")


@router.message(F.text == "ping")
async def ping(message: Message) -> str:
    return "pong"
"""


def run(tmp_path: Path, code: str, *, library: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a new interpreter with ``tmp_path`` (holding the library) on its path."""
    if library:
        (tmp_path / "aiogram_library.py").write_text(LIBRARY)
    script = tmp_path / "main.py"
    script.write_text(textwrap.dedent(code))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    return subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=tmp_path,
    )


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_a_library_router_is_included_and_answers_through_fake_telegram(tmp_path: Path) -> None:
    out = ok(
        run(
            tmp_path,
            """
            import asyncio

            import tgfast.standin
            tgfast.standin.install()

            import aiogram_library  # imports aiogram, gets tgfast
            from tgfast import Bot, Dispatcher
            from tgfast.testing import FakeTelegram, updates

            async def main():
                dp = Dispatcher()
                dp.include_router(aiogram_library.router)  # no "Router, not Router"
                async with FakeTelegram() as fake:
                    bot = Bot(fake.token, server=fake.url, rate_limiter=None)
                    try:
                        await dp.feed_update(bot, updates.decoded(updates.update(
                            message=updates.message("/hello", chat_id=5))))
                        print("sent:", [m["text"] for m in fake.sent_messages(5)])
                        result = await dp.feed_update(bot, updates.decoded(updates.update(
                            message=updates.message("ping", chat_id=5))))
                        print("returned:", result)
                    finally:
                        await bot.session.close()
                    assert not fake.errors, fake.errors

            asyncio.run(main())
            """,
        )
    )
    assert "sent: ['hello from the library, User']" in out
    assert "returned: pong" in out


def test_aiogram_modules_are_tgfast_modules(tmp_path: Path) -> None:
    out = ok(
        run(
            tmp_path,
            """
            import sys
            import tgfast.standin
            tgfast.standin.install()

            import aiogram, aiogram.types, aiogram.fsm.context, tgfast, tgfast.types
            from aiogram import Router, F, Dispatcher
            from aiogram.types import Message
            from aiogram.types.message import Message as M
            from aiogram.enums.parse_mode import ParseMode
            from aiogram.fsm.state import State, StatesGroup
            import tgfast.fsm.state

            assert sys.modules["aiogram.types"] is sys.modules["tgfast.types"]
            assert aiogram.types is tgfast.types
            assert sys.modules["aiogram.fsm.context"] is sys.modules["tgfast.fsm.context"]
            assert Router is tgfast.Router and Dispatcher is tgfast.Dispatcher and F is tgfast.F
            assert Message is M is tgfast.types.Message
            assert ParseMode is tgfast.enums.ParseMode
            assert StatesGroup is tgfast.fsm.state.StatesGroup
            # the tgfast modules keep their own names and specs
            assert aiogram.types.__name__ == "tgfast.types"
            assert aiogram.types.__spec__.name == "tgfast.types"
            # libraries check aiogram's version: the aiogram release tgfast follows
            import aiogram.__meta__
            print(aiogram.__version__, aiogram.__meta__.__version__)
            assert aiogram.__api_version__ == tgfast.API_VERSION
            assert not hasattr(aiogram, "NoSuchName")
            assert "Router" in dir(aiogram)
            # aiogram's F is a magic_filter.MagicFilter: libraries test for that class
            import magic_filter
            import tgfast.filters.magic
            assert magic_filter.MagicFilter is tgfast.filters.magic.MagicFilter
            assert magic_filter.F is F and isinstance(F.text, magic_filter.MagicFilter)
            try:
                from magic_filter import AttrDict
            except ImportError as error:
                assert "install(magic_filter=False)" in str(error)
            else:
                raise AssertionError("magic_filter.AttrDict imported")
            print("identical")
            """,
            library=False,
        )
    )
    assert out.split() == [tgfast.standin.AIOGRAM_VERSION] * 2 + ["identical"]


def test_refused_when_the_real_aiogram_is_already_imported(tmp_path: Path) -> None:
    # a real aiogram stands behind a directory of its own, found before the stand-in exists
    real = tmp_path / "real" / "aiogram"
    real.mkdir(parents=True)
    (real / "__init__.py").write_text("class Router: pass\n")
    out = ok(
        run(
            tmp_path,
            """
            import sys
            sys.path.insert(0, "real")
            import aiogram
            import tgfast.standin
            try:
                tgfast.standin.install()
            except tgfast.standin.StandInError as error:
                print("refused:", error)
            assert not tgfast.standin.is_installed()
            assert aiogram.Router.__module__ == "aiogram"
            """,
            library=False,
        )
    )
    assert "refused: the real aiogram is already imported" in out
    assert "tgfast.standin.install() before" in out


def test_an_imported_magic_filter_is_refused_or_kept(tmp_path: Path) -> None:
    real = tmp_path / "real" / "magic_filter"
    real.mkdir(parents=True)
    (real / "__init__.py").write_text("class MagicFilter: pass\n")
    out = ok(
        run(
            tmp_path,
            """
            import sys
            sys.path.insert(0, "real")
            import magic_filter
            import tgfast.standin
            try:
                tgfast.standin.install()
            except tgfast.standin.StandInError as error:
                print("refused:", error)
            assert not tgfast.standin.is_installed()
            tgfast.standin.install(magic_filter=False)
            import aiogram, tgfast
            assert aiogram.Router is tgfast.Router
            assert sys.modules["magic_filter"] is magic_filter
            assert magic_filter.MagicFilter.__module__ == "magic_filter"
            print("kept")
            """,
            library=False,
        )
    )
    assert "refused: magic_filter is already imported" in out
    assert out.rstrip().endswith("kept")


def test_an_installed_aiogram_is_shadowed_not_loaded(tmp_path: Path) -> None:
    real = tmp_path / "real" / "aiogram"
    real.mkdir(parents=True)
    (real / "__init__.py").write_text("raise SystemExit('the real aiogram was loaded')\n")
    (real / "types.py").write_text("raise SystemExit('the real aiogram.types was loaded')\n")
    out = ok(
        run(
            tmp_path,
            """
            import sys
            sys.path.insert(0, "real")
            import tgfast.standin
            tgfast.standin.install()
            tgfast.standin.install()  # twice is harmless
            import aiogram.types, tgfast.types
            assert aiogram.types is tgfast.types
            assert sum(isinstance(f, tgfast.standin.AiogramStandIn) for f in sys.meta_path) == 1
            print("shadowed")
            """,
            library=False,
        )
    )
    assert out.split() == ["shadowed"]


def test_what_tgfast_lacks_still_says_why(tmp_path: Path) -> None:
    out = ok(
        run(
            tmp_path,
            """
            import tgfast.standin
            tgfast.standin.install()
            for statement in (
                "import aiogram.loggers",
                "import aiogram.dispatcher.middlewares.data",
                "import aiogram.no_such_module",
                "from aiogram.types import NoSuchType",
            ):
                try:
                    exec(statement)
                except ImportError as error:
                    print(type(error).__name__, "|", error)
                else:
                    print("imported:", statement)
            """,
            library=False,
        )
    )
    lines = out.splitlines()
    assert len(lines) == 4, out
    assert not any(line.startswith("imported:") for line in lines), out
    loggers, internal, missing, name = lines
    assert loggers.startswith("ImportError | aiogram.loggers (tgfast standing in for aiogram)")
    assert "logging.getLogger('tgfast')" in loggers
    assert "aiogram's internals" in internal
    assert missing.startswith("ModuleNotFoundError | No module named 'aiogram.no_such_module'")
    assert "tgfast.no_such_module" in missing
    assert name.startswith("ImportError |") and "NoSuchType" in name


def test_nothing_changes_without_install(tmp_path: Path) -> None:
    out = ok(
        run(
            tmp_path,
            """
            import tgfast, tgfast.standin
            assert not tgfast.standin.is_installed()
            try:
                import aiogram
            except ModuleNotFoundError:
                print("no aiogram")
            else:  # the bench extra installs the real one
                assert aiogram.__file__ and not aiogram.__file__.startswith(tgfast.__path__[0])
                assert aiogram.Router is not tgfast.Router
                print("the real aiogram")
            """,
            library=False,
        )
    )
    assert out.strip() in ("no aiogram", "the real aiogram")


def test_the_aiogram_internals_libraries_use(tmp_path: Path) -> None:
    out = ok(
        run(
            tmp_path,
            """
            import asyncio
            import tgfast.standin
            tgfast.standin.install()

            from aiogram import F, Router
            from aiogram.dispatcher.event.handler import FilterObject, HandlerObject
            from aiogram.dispatcher.event.telegram import TelegramEventObserver
            import tgfast.dispatcher.observer
            assert HandlerObject is tgfast.dispatcher.observer.HandlerObject

            class Event:
                text = "hi"

            def sync_filter(event, limit):
                return len(event.text) <= limit

            async def async_filter(event):
                return {"seen": event.text}

            async def main():
                data = {"limit": 1, "unused": object()}
                print(await FilterObject(sync_filter).call(Event(), **data))
                print(await FilterObject(async_filter).call(Event(), **data))
                print(await FilterObject(F.text == "hi").call(Event(), **data))
                print(await FilterObject(F.text.startswith("x")).call(Event(), **data))

            asyncio.run(main())

            # a library's own event kind, on a tgfast router
            router = Router()
            observer = TelegramEventObserver(router=router, event_name="library_update")
            router.observers["library_update"] = observer
            observer.register(lambda event: event.x * 2, F.x)
            assert isinstance(observer, tgfast.dispatcher.observer.Observer)
            print(observer.event_name, len(observer.handlers))
            from aiogram.dispatcher.event.handler import CallableObject
            import tgfast.dispatcher.callables
            assert CallableObject is tgfast.dispatcher.callables.CallableObject
            from types import SimpleNamespace
            for x in (21, 0):
                print(asyncio.run(router.propagate_event("library_update", SimpleNamespace(x=x))))
            """,
            library=False,
        )
    )
    lines = out.splitlines()
    assert lines == [
        "False",
        "{'seen': 'hi'}",
        "True",
        "False",
        "library_update 1",
        "42",
        "UNHANDLED",
    ], out


def test_every_module_of_the_installed_aiogram_resolves_or_says_why(tmp_path: Path) -> None:
    spec = importlib.util.find_spec("aiogram")  # finds the real one; imports nothing
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("aiogram (the test extra) is not installed")
    root = Path(next(iter(spec.submodule_search_locations)))
    names = sorted(
        ".".join(("aiogram", *path.relative_to(root).with_suffix("").parts)).removesuffix(
            ".__init__"
        )
        for path in root.rglob("*.py")
    )
    assert len(names) > 500, names  # aiogram keeps each type, method and enum apart
    (tmp_path / "names.txt").write_text("\n".join(names))
    out = ok(
        run(
            tmp_path,
            f"""
            import importlib, sys
            import tgfast.standin
            tgfast.standin.install()
            resolved = explained = 0
            for name in open("names.txt").read().split():
                try:
                    module = importlib.import_module(name)
                except ImportError as error:
                    assert "tgfast stand" in str(error), (name, error)
                    explained += 1
                else:
                    assert module.__name__.startswith(("tgfast", "aiogram")), (name, module)
                    resolved += 1
            real = [m for m in list(sys.modules.values())
                    if (getattr(m, "__file__", None) or "").startswith({str(root)!r})]
            assert not real, real  # the installed aiogram is never loaded
            print(resolved, explained)
            """,
            library=False,
        )
    )
    resolved, explained = map(int, out.split())
    assert resolved + explained == len(names)
    assert resolved > explained  # most resolve (674 of 763 for aiogram 3.31.0)


@pytest.mark.parametrize("name", ["install", "is_installed", "AiogramStandIn", "StandInError"])
def test_public_names(name: str) -> None:
    assert name in tgfast.standin.__all__
    assert getattr(tgfast.standin, name).__doc__
