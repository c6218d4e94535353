"""``module:attribute`` -> a ``Dispatcher``, the way uvicorn and gunicorn name an app.

``app:dp`` imports ``app`` (the current directory is on the path, as for
``python -m``); ``path/to/bot.py:dp`` loads that file. The attribute (``dp`` when
omitted) is a ``Dispatcher`` or a function of no arguments that returns one.

The same module may say which ``Bot`` serves it (``load_app``): its attribute ``bot``
(or another name) is a ``Bot``, used as it is, or a function returning one, called
with the token the command line was given when it takes an argument. Such a bot keeps
its own defaults (``parse_mode``...) and server.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..client import Bot
from ..dispatcher import Dispatcher
from ..errors import TgfastError

__all__ = [
    "DEFAULT_BOT_ATTRIBUTE",
    "App",
    "AppImportError",
    "AppLoadError",
    "load_app",
    "load_dispatcher",
]

DEFAULT_BOT_ATTRIBUTE = "bot"


class AppLoadError(TgfastError):
    """The ``module:attribute`` given does not lead to a dispatcher."""


class AppImportError(AppLoadError):
    """The app's module raised while it was imported. ``traceback`` is the user's part
    of it (the frames of tgfast and importlib left out), ending in the exception line."""

    def __init__(self, target: str, exc: BaseException) -> None:
        self.traceback = _user_traceback(exc)
        super().__init__(f"importing {target} failed: {type(exc).__name__} (traceback above)")


_MACHINERY = (str(Path(__file__).resolve().parent.parent), os.path.dirname(importlib.__file__))


def _user_traceback(exc: BaseException) -> str:
    """``exc``'s traceback without the frames of tgfast and of the import machinery."""
    frames = [
        frame
        for frame in traceback.extract_tb(exc.__traceback__)
        if not frame.filename.startswith(("<frozen importlib", *_MACHINERY))
    ]
    text = "".join(traceback.format_list(frames))
    head = "Traceback (most recent call last):\n" if frames else ""
    return head + text + "".join(traceback.format_exception_only(type(exc), exc))


@dataclass(frozen=True)
class App:
    """A dispatcher, and the bot its module offers (``None``: the command line makes one)."""

    dispatcher: Dispatcher
    bot: Bot | Callable[..., Any] | None = None
    bot_name: str = DEFAULT_BOT_ATTRIBUTE

    def make_bot(self, token: str | None) -> Bot | None:
        """The module's bot: the instance, or what the factory returns (given ``token``
        when it takes an argument); None when the module offers none."""
        source = self.bot
        if source is None or isinstance(source, Bot):
            return source
        try:
            takes_token = bool(inspect.signature(source).parameters)
        except (TypeError, ValueError):  # no signature to read: call it bare
            takes_token = False
        if takes_token and not token:
            raise AppLoadError(f"{self.bot_name}() takes the bot token: pass --token or set "
                               "TGFAST_TOKEN or BOT_TOKEN")  # fmt: skip
        made = source(token) if takes_token else source()
        if inspect.isawaitable(made):
            close = getattr(made, "close", None)
            if close is not None:
                close()
            raise AppLoadError(f"{self.bot_name}() must return a Bot, not a coroutine")
        if not isinstance(made, Bot):
            raise AppLoadError(f"{self.bot_name}() must return a Bot, got {type(made).__name__}")
        return made


def load_app(spec: str, bot: str | None = None) -> App:
    """The dispatcher ``spec`` names and the bot its module offers: the attribute ``bot``
    (``"bot"`` by default), when it is a ``Bot`` or a function. A name given explicitly
    must be one of those; the default name holding something else (a module, a class)
    is not the app's bot and is ignored."""
    name = bot or DEFAULT_BOT_ATTRIBUTE
    module, dispatcher = _load(spec)
    source = getattr(module, name, None)
    if isinstance(source, Bot) or (callable(source) and not isinstance(source, type)):
        return App(dispatcher, source, name)
    if bot is not None:
        what = "nothing" if source is None else type(source).__name__
        raise AppLoadError(f"{spec}: --bot {name}: expected a Bot or a function returning one "
                           f"in the module, got {what}")  # fmt: skip
    return App(dispatcher, None, name)


def load_dispatcher(spec: str) -> Dispatcher:
    """The dispatcher that ``spec`` (``module:attr`` or ``file.py:attr``) names."""
    return _load(spec)[1]


def _load(spec: str) -> tuple[object, Dispatcher]:
    target, sep, attr = spec.rpartition(":")
    if not sep or not target or (len(target) == 1 and attr.startswith(("\\", "/"))):
        target, attr = spec, "dp"  # no attribute, or a Windows drive letter
    attr = attr or "dp"
    module = _load_module(target)
    obj: object = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise AppLoadError(f"{target!r} has no attribute {attr!r}") from None
    if not isinstance(obj, Dispatcher) and callable(obj):
        try:
            obj = obj()
        except TypeError as exc:
            raise AppLoadError(
                f"{spec}: {attr} is neither a Dispatcher nor a function of no arguments ({exc})"
            ) from None
        if inspect.isawaitable(obj):
            raise AppLoadError(f"{spec}: {attr} must return a Dispatcher, not a coroutine")
    if not isinstance(obj, Dispatcher):
        raise AppLoadError(f"{spec}: expected a Dispatcher, got {type(obj).__name__}")
    return module, obj


def _load_module(target: str) -> object:
    if target.endswith(".py") or os.sep in target or "/" in target:
        path = Path(target)
        if not path.is_file():
            raise AppLoadError(f"no such file: {target}")
        name = path.stem
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise AppLoadError(f"cannot load {target}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        # the file's own directory is importable, as when it is run as a script
        sys.path.insert(0, str(path.resolve().parent))
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            sys.modules.pop(name, None)
            raise AppImportError(target, exc) from exc
        except BaseException:
            sys.modules.pop(name, None)
            raise
        return module
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as exc:
        if exc.name is not None and target.startswith(exc.name):
            raise AppLoadError(f"no module named {target!r} (run from its directory?)") from None
        raise AppImportError(target, exc) from exc
    except Exception as exc:
        raise AppImportError(target, exc) from exc
