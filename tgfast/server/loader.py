"""``module:attribute`` -> a ``Dispatcher``, the way uvicorn and gunicorn name an app.

``app:dp`` imports ``app`` (the current directory is on the path, as for
``python -m``); ``path/to/bot.py:dp`` loads that file. The attribute (``dp`` when
omitted) is a ``Dispatcher`` or a function of no arguments that returns one.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
from pathlib import Path

from ..dispatcher import Dispatcher
from ..errors import TgfastError

__all__ = ["AppLoadError", "load_dispatcher"]


class AppLoadError(TgfastError):
    """The ``module:attribute`` given does not lead to a dispatcher."""


def load_dispatcher(spec: str) -> Dispatcher:
    """The dispatcher that ``spec`` (``module:attr`` or ``file.py:attr``) names."""
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
    return obj


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
        raise
