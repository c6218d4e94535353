"""aiogram's documentation snippets (keyboards, formatting, media groups, chat actions,
callback answers, i18n, web apps, scenes) on tgfast, ported by changing imports only:
do they behave as on aiogram?  (The measure of issue #15.)

    .venv/bin/python -m tools.aiogram_docs [-v]

The snippets are read from the installed aiogram's sdist (tools.aiogram_examples
downloads it once); nothing of aiogram's is copied here. A page's snippets run in order in
one namespace per framework, as a reader of the page assumes, after a prelude of our own:
the page's usual imports, a ``bot`` on a FakeTelegram, ``dp``/``dispatcher``/``router``,
a ``message`` and a ``callback_query`` decoded from sample updates. Top-level ``await``
is allowed. A snippet that registers handlers or middlewares is then fed sample updates.
Per snippet, compared: the exception raised (its type's name), the Bot API calls the fake
recorded, and the values the snippet left in the namespace that dump to plain data
(builders as their markup, formatting nodes as ``as_kwargs()``, Telegram objects as dicts).
A snippet that raises NameError or is not valid python on aiogram is "not runnable".
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import hashlib
import hmac
import inspect
import json
import logging
import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from importlib import import_module
from importlib.metadata import version
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import tgfast
from tgfast.testing import FakeTelegram
from tgfast.testing import updates as samples

from .snippets import PAGES, Snippet, snippets

__all__ = ["Outcome", "compare", "main", "measure", "sdist_path"]

FRAMEWORKS = ("aiogram", "tgfast")
OWN = frozenset({"getUpdates", "getMe", "deleteWebhook", "close", "logOut"})
_IMPORT_PORT = ("from aiogram", "import aiogram")

PRELUDE = """
from enum import Enum
from typing import Any, Dict
from {fw} import Bot, Dispatcher, Router, F, html, md, flags, types
from {fw}.types import *
from {fw}.enums import ParseMode, ChatAction
from {fw}.filters import Command, CommandObject, CommandStart, Filter
from {fw}.filters.callback_data import CallbackData
from {fw}.dispatcher.flags import get_flag
from {fw}.fsm.context import FSMContext
from {fw}.utils.keyboard import InlineKeyboardBuilder, ReplyKeyboardBuilder, KeyboardBuilder
from {fw}.utils.formatting import *
from {fw}.utils.media_group import MediaGroupBuilder
from {fw}.utils.chat_action import ChatActionSender, ChatActionMiddleware
from {fw}.utils.callback_answer import CallbackAnswer, CallbackAnswerMiddleware
from {fw}.utils.i18n import I18n, gettext as _, lazy_gettext as __
from {fw}.utils.i18n import SimpleI18nMiddleware, ConstI18nMiddleware, FSMI18nMiddleware
from {fw}.utils.web_app import *
from {fw}.fsm.scene import Scene, SceneRegistry, ScenesManager, SceneWizard, on, After
from {fw}.client.session.aiohttp import AiohttpSession
from {fw}.client.telegram import TelegramAPIServer

bot = Bot("42:TEST", session=AiohttpSession(api=TelegramAPIServer.from_base(FAKE_URL)))
chat_id = user_id = 1
_ROWS = [[InlineKeyboardButton(text="More", callback_data="more")]]
_MARKUP_ROWS = [[InlineKeyboardButton(text="Site", url="https://example.com")]]
result = "Done"


class SomeRepository:
    async def save(self, **values):
        pass


class AsyncSession:
    async def commit(self):
        pass


class SettingsScene(Scene, state="settings"):
    @on.message.enter()
    async def on_enter(self, message: Message, some_data: str = "") -> None:
        await message.answer("settings " + some_data)


class AnotherScene(Scene, state="another"):
    @on.message.enter()
    async def on_enter(self, message: Message, value: str = "") -> None:
        await message.answer("another " + value)


def _fresh():
    global dp, dispatcher, router
    dp = dispatcher = Dispatcher()
    router = Router()
    dp.include_router(router)
    SceneRegistry(dp).add(SettingsScene, AnotherScene)
    ConstI18nMiddleware("en", I18n(path="locales", default_locale="en")).setup(dp)
    dp.errors()(_failed)


async def _failed(event):
    # how a handler failed, told the same way by both (tgfast's feed_update returns FAILED)
    _errors.append(type(event.exception).__name__)
    return True


_errors = []
_fresh()
_grabbed = {{}}
_grab = Dispatcher()
_grab.message()(lambda m: _grabbed.setdefault("message", m) and None)
_grab.callback_query()(lambda q: _grabbed.setdefault("callback_query", q) and None)
"""


@dataclass
class Outcome:
    """What one snippet did on one framework."""

    error: str | None = None  # the exception's type name (NameError: with the name)
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    values: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> str:
        text = f"{len(self.calls)} calls, {len(self.values)} values"
        return f"{self.error}; {text}" if self.error else text


def sdist_path() -> Path:
    """aiogram's sdist, downloaded once by tools.aiogram_examples."""
    from tools.aiogram_examples.run import fetch_examples

    cache = fetch_examples().parent
    return next(cache.glob("aiogram-*.tar.gz"))


# the blanks the pages leave for the reader, filled in the same way on both frameworks
FILL_INS = (
    (re.compile(r"<filters>"), ""),
    (re.compile(r"<router or dispatcher>"), "router"),
    (re.compile(r"<everything is ok>"), "True"),
    (re.compile(r"^(\s*@[\w.]+)\(\.\.\.\)", re.MULTILINE), r"\1()"),  # @router.message(...)
    (re.compile(r"\.answer\(\.\.\.\)"), ".answer()"),  # query.answer(...)
    # "another builder with some buttons", "some markup"
    (re.compile(r"InlineKeyboardBuilder\(\.\.\.\)\.\.\."), "InlineKeyboardBuilder(_ROWS)"),
    (re.compile(r"inline_keyboard=\[\.\.\.\]"), "inline_keyboard=_MARKUP_ROWS"),
    # a decorator over "...": the handler it stands for
    (
        re.compile(r"^(@.*\n)\.\.\.$", re.MULTILINE),
        r"\1async def _handler(message: Message) -> None:\n    await message.answer('handled')",
    ),
)


def filled_in(source: str) -> str:
    for pattern, text in FILL_INS:
        source = pattern.sub(text, source)
    return source


def port(source: str) -> str:
    from tools.aiogram_examples.run import port as port_imports

    return port_imports(source)


def dump(value: Any, fw: str) -> Any:
    """Plain data for a value both frameworks can produce, or ``NotImplemented``."""
    if isinstance(value, (str, int, float, bool, type(None))):
        return value
    if isinstance(value, (list, tuple)):
        return [dump(item, fw) for item in value]
    if isinstance(value, dict):
        return {str(k): dump(v, fw) for k, v in value.items()}
    kind = type(value)  # attributes looked up on the class: F answers any name
    if inspect.isclass(value) or callable(value) and not hasattr(kind, "as_kwargs"):
        return NotImplemented
    module = kind.__module__ or ""
    if not module.startswith(fw):
        return NotImplemented
    if hasattr(kind, "as_markup"):
        return dump(value.as_markup(), fw)
    if hasattr(kind, "as_kwargs") and hasattr(kind, "render"):
        return dump(value.as_kwargs(), fw)
    if type(value).__name__ == "MediaGroupBuilder":
        return dump(value.build(), fw)
    if module.startswith((f"{fw}.types", f"{fw}.methods")):
        serialization = import_module(f"{fw}.utils.serialization")
        return serialization.deserialize_telegram_object_to_python(value)
    return NotImplemented


def _feeds(tree: ast.Module) -> bool:
    """Does the snippet register handlers or middlewares (so updates should be fed)?"""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.decorator_list:
            if not any(isinstance(p, ast.ClassDef) for p in ast.walk(tree)):
                return True
        if isinstance(node, ast.Attribute) and node.attr in {"register", "middleware"}:
            return True
    return False


def _sets_up(tree: ast.Module) -> bool:
    """Does the snippet register a middleware (the set-up later handlers of the page assume)?"""
    return any(isinstance(n, ast.Attribute) and n.attr == "middleware" for n in ast.walk(tree))


def _unregistered(tree: ast.Module, annotation: str) -> list[str]:
    """Top-level functions without a decorator whose first parameter is ``annotation``:
    the handlers a page shows without registering them."""
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.decorator_list:
            first = node.args.args[0].annotation if node.args.args else None
            if isinstance(first, ast.Name) and first.id == annotation:
                names.append(node.name)
    return names


def init_data(token: str) -> str:
    """Mini App init data for ``token``, signed as Telegram signs it (HMAC-SHA256)."""
    user = json.dumps({"id": 1, "first_name": "User", "language_code": "en"})
    fields = {"query_id": "q1", "user": user, "auth_date": str(int(time.time()))}
    lines = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    fields["hash"] = hmac.new(secret, lines.encode(), hashlib.sha256).hexdigest()
    return urlencode(fields)


class _Request:
    """What an aiohttp web handler of the docs reads: ``app["bot"]`` and a posted form."""

    def __init__(self, bot: Any) -> None:
        self.app = {"bot": bot}

    async def post(self) -> dict[str, str]:
        return {"_auth": init_data(self.app["bot"].token)}


async def _answer(handler: Any, bot: Any) -> dict[str, Any]:
    response = await handler(_Request(bot))
    return {"status": response.status, "body": json.loads(response.text)}


def _updates() -> list[dict[str, Any]]:
    return [
        samples.update(update_id=10, message=samples.message("/settings", message_id=10)),
        samples.update(update_id=11, message=samples.message("hello", message_id=11)),
        samples.update(update_id=13, message=samples.message("My menu entry", message_id=13)),
        samples.update(update_id=14, message=samples.message("/start Zm9v", message_id=14)),
        samples.update(update_id=12, callback_query=samples.callback_query("set:1")),
        samples.update(update_id=15, callback_query=samples.callback_query("my:demo:42")),
    ]


async def run_page(fw: str, page: list[Snippet], fake: FakeTelegram) -> list[Outcome]:
    namespace: dict[str, Any] = {"FAKE_URL": fake.url, "__name__": f"docs_{fw}"}
    exec(compile(PRELUDE.format(fw=fw), "<prelude>", "exec"), namespace)
    grab = namespace["_grab"]
    bot = namespace["bot"]
    for kind, event in (
        ("message", samples.message("Hello", message_id=1)),
        ("callback_query", samples.callback_query("set:1", message_id=2)),
    ):
        await grab.feed_raw_update(bot, fake.add_update({"update_id": 1, kind: event}))
    namespace["message"] = namespace["_grabbed"]["message"]
    namespace["callback_query"] = namespace["query"] = namespace["_grabbed"]["callback_query"]
    outcomes = []
    try:
        for snippet in page:
            outcomes.append(await run_snippet(fw, snippet, namespace, fake))
    finally:
        await bot.session.close()
    return outcomes


async def run_snippet(
    fw: str, snippet: Snippet, namespace: dict[str, Any], fake: FakeTelegram
) -> Outcome:
    """Run one snippet; one that registers handlers gets a dispatcher of its own, with the
    page's latest middleware set-up replayed unless it sets up its own, then is fed."""
    outcome = Outcome()
    tree: ast.Module | None = None
    source = filled_in(snippet.source)
    source = port(source) if fw == "tgfast" else source
    start = len(fake.calls)
    try:
        tree = ast.parse(source)
        handlers = _unregistered(tree, "Message")
        if (
            _feeds(tree) or handlers
        ):  # a bot of its own: tgfast freezes a router tree once it has run
            namespace["_fresh"]()
            setup = namespace.get("_setup")
            if setup is not None and not _sets_up(tree):
                exec(setup, namespace)  # an earlier snippet of the page
        code = compile(
            source, f"{snippet.page}#{snippet.index}", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
        )
        value = eval(code, namespace)  # the snippet under test
        if _sets_up(tree) and not any(
            isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in ast.walk(tree)
        ):
            namespace["_setup"] = code
        if inspect.iscoroutine(value):
            await asyncio.wait_for(value, 10)
        for name in handlers:
            namespace["router"].message.register(namespace[name])
        for name in _unregistered(tree, "Request"):
            outcome.values[f"{name}(request)"] = await _answer(namespace[name], namespace["bot"])
        if _feeds(tree) or handlers:
            del namespace["_errors"][:]
            for update in _updates():
                await namespace["dp"].feed_raw_update(namespace["bot"], fake.add_update(update))
            if namespace["_errors"]:
                outcome.error = "in a handler: " + ", ".join(namespace["_errors"])
    except SyntaxError:
        outcome.error = "SyntaxError"
    except NameError as error:
        outcome.error = f"NameError: {getattr(error, 'name', None) or error}"
    except Exception as error:  # noqa: BLE001 - compared, not handled
        outcome.error = type(error).__name__
    calls = [(c.method, c.params) for c in fake.calls[start:] if c.method not in OWN]
    outcome.calls = _unattached(calls)
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)} if tree else set()
    for name, value in namespace.items():
        if name not in used or name.startswith("_"):
            continue
        plain = dump(value, fw)
        if plain is not NotImplemented:
            outcome.values[name] = _unattached(plain)
    return outcome


def _unattached(value: Any) -> Any:
    """``attach://<name>`` with the name left out: aiogram draws it at random."""
    if isinstance(value, str) and value.startswith("attach://"):
        return "attach://…"
    if isinstance(value, (list, tuple)):
        return [_unattached(item) for item in value]
    if isinstance(value, dict):
        return {k: _unattached(v) for k, v in value.items()}
    return value


def placeholder(source: str) -> bool:
    """Does the snippet stand ``...`` for code the reader fills in (other than a body)?"""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    bodies = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    return any(
        isinstance(n, ast.Constant) and n.value is Ellipsis and id(n) not in bodies
        for n in ast.walk(tree)
    )


def verdict(snippet: Snippet, theirs: Outcome, ours: Outcome) -> str:
    if theirs.error == "SyntaxError":
        return "not runnable: not valid python"
    if theirs.error and placeholder(filled_in(snippet.source)):
        return "not runnable: `...` stands for the reader's code"
    if theirs.error and theirs.error.startswith("NameError"):
        return f"not runnable: {theirs.error.removeprefix('NameError: ')} undefined"
    same = (theirs.error, theirs.calls, theirs.values) == (ours.error, ours.calls, ours.values)
    return "same" if same else "DIFFERENT"


async def measure(sdist: Path) -> list[tuple[Snippet, Outcome, Outcome, str]]:
    found = snippets(sdist)
    rows = []
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as work:
        os.chdir(work)  # media/video.mp4 and locales/ that the snippets name
        (Path(work) / "media").mkdir()
        (Path(work) / "media" / "video.mp4").write_bytes(b"\x00" * 16)
        (Path(work) / "locales").mkdir()
        try:
            for page in PAGES:
                group = [s for s in found if s.page == page]
                results = {}
                for fw in FRAMEWORKS:
                    async with FakeTelegram(token="42:TEST") as fake:
                        results[fw] = await run_page(fw, group, fake)
                for snippet, theirs, ours in zip(
                    group, results["aiogram"], results["tgfast"], strict=True
                ):
                    rows.append((snippet, theirs, ours, verdict(snippet, theirs, ours)))
        finally:
            os.chdir(cwd)
    return rows


def compare(theirs: Outcome, ours: Outcome) -> list[str]:
    """Where two outcomes differ, in a few lines."""
    lines = []
    if theirs.error != ours.error:
        lines.append(f"error: aiogram {theirs.error}, tgfast {ours.error}")
    if theirs.calls != ours.calls:
        lines.append(f"calls: aiogram {theirs.calls}\n           tgfast  {ours.calls}")
    for name in sorted(set(theirs.values) | set(ours.values)):
        if theirs.values.get(name) != ours.values.get(name):
            lines.append(f"{name}: aiogram {theirs.values.get(name)!r}")
            lines.append(f"{' ' * len(name)}  tgfast  {ours.values.get(name)!r}")
    return lines


async def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="print what differs")
    options = parser.parse_args()
    logging.disable(logging.CRITICAL)  # the snippets' failures are compared, not logged
    rows = await measure(sdist_path())
    build = "compiled" if tgfast.__speedups__ else "pure"
    where = Path(tgfast.__file__).parent
    print(
        f"aiogram {version('aiogram')} docs snippets, tgfast {version('tgfast')} ({build}, {where})"
    )
    print(f"{'page':40} {'#':>2}  {'aiogram':28} {'tgfast':28} verdict")
    counts: dict[str, int] = {}
    for snippet, theirs, ours, result in rows:
        key = result.split(":")[0]
        counts[key] = counts.get(key, 0) + 1
        print(
            f"{snippet.page:40} {snippet.index:>2}  {theirs.summary():28} "
            f"{ours.summary():28} {result}"
        )
        if result == "DIFFERENT" or (options.verbose and result == "same"):
            for line in compare(theirs, ours):
                print(f"    {line}")
    runnable = counts.get("same", 0) + counts.get("DIFFERENT", 0)
    print(
        f"{counts.get('same', 0)}/{runnable} runnable snippets behave the same; "
        f"{counts.get('not runnable', 0)} of {len(rows)} not runnable"
    )
    return 1 if counts.get("DIFFERENT") else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
