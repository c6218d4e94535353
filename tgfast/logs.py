"""Logging for operators: escaping and JSON formatters, per-update fields, CLI set-up.

tgfast logs through the standard :mod:`logging` and leaves every record as it was made
(``msg`` and ``args`` intact), so structured handlers (a JSON formatter, Sentry) see the
template and its values. Escaping is the formatter's job: :class:`EscapingFormatter`
writes control characters in the message and in tracebacks as ``repr`` does, so that a
text tgfast does not control (a user's message in an exception) cannot forge a log
line; :class:`JsonFormatter` writes one JSON object per line (JSON escapes them itself).

While an update is handled, :data:`current_update` holds it. :class:`UpdateContextFilter`,
put on a handler, adds ``update_id``, ``chat_id``, ``update_kind`` and ``worker`` to each
record it passes (the app's own records too), read only when something is logged: the
update path pays one ``ContextVar.set`` per update. ``handler`` is added to a record of
an error the app's code raised (read from the traceback, see :func:`handler_of`).

The ``tgfast`` command calls :func:`configure` and then :func:`default_handler_if_none`
after importing the app: an app that configured logging at import (``dictConfig``,
``basicConfig``, Sentry's integration) keeps its configuration.
"""

from __future__ import annotations

import json
import logging
import logging.config
import os
import sys
import time
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._logging import escape, format_exception

if TYPE_CHECKING:
    from .types import Update

__all__ = [
    "CONTEXT_FIELDS",
    "EscapingFormatter",
    "JsonFormatter",
    "LogConfigError",
    "UpdateContextFilter",
    "configure",
    "current_update",
    "default_handler_if_none",
    "handler_of",
    "load_config_file",
]

current_update: ContextVar[Update | None] = ContextVar("tgfast_current_update", default=None)
"""The update being handled in this task (set by the serving layer, one per update)."""

CONTEXT_FIELDS = ("update_id", "update_kind", "chat_id", "handler", "worker")
"""Record attributes :class:`UpdateContextFilter` and ``extra=`` give, where known."""

_DEFAULT_FORMAT = "%(asctime)s %(levelname)s %(worker_tag)s%(name)s: %(message)s"
_TGFAST_HANDLER = "_tgfast_default"  # marks the handler :func:`default_handler_if_none` adds


class LogConfigError(Exception):
    """``--log-config``: a file that cannot be read or applied."""


class UpdateContextFilter(logging.Filter):
    """Adds the fields of :data:`CONTEXT_FIELDS` that are known to each record.

    ``worker`` is this process's place among the supervisor's workers (None alone).
    A field given with ``extra=`` is kept. Never drops a record.
    """

    def __init__(self, worker: int | None = None) -> None:
        super().__init__()
        self._worker = worker
        self._known = worker is not None

    @property
    def worker(self) -> int | None:
        """This worker's id, read from the supervisor's environment on first use."""
        if not self._known:
            from .server.supervisor import this_worker

            identity = this_worker()
            self._worker = None if identity is None else identity.id
            self._known = True
        return self._worker

    def filter(self, record: logging.LogRecord) -> bool:
        fields = record.__dict__
        if "worker" not in fields:
            worker = fields["worker"] = self.worker
            fields.setdefault("worker_tag", "" if worker is None else f"[worker {worker}] ")
        update = current_update.get()
        if update is not None and "update_id" not in fields:
            from .types.update_kinds import chat_of, event_of

            fields["update_id"] = update.update_id
            fields["update_kind"] = event_of(update)[0]
            chat = chat_of(update)
            fields["chat_id"] = None if chat is None else chat.id
            if record.exc_info and "handler" not in fields:
                fields["handler"] = handler_of(record.exc_info[1])
        return True


_OWN_DIR = os.path.dirname(os.path.abspath(__file__))


def handler_of(exc: BaseException | None) -> str | None:
    """The function tgfast called that raised ``exc``: the first frame of the traceback,
    past tgfast's own, that is not tgfast's (a handler, or a middleware or filter of the
    app), as ``module.qualname``; None when the traceback never leaves tgfast."""
    tb = None if exc is None else exc.__traceback__
    inside = False
    while tb is not None:
        code = tb.tb_frame.f_code
        # a compiled module's frames name their .pyx relative to the source tree
        ours = code.co_filename.startswith((_OWN_DIR, "tgfast/", "tgfast" + os.sep))
        if ours:
            inside = True
        elif inside:
            name = getattr(code, "co_qualname", code.co_name)  # 3.11+: the qualified name
            return f"{tb.tb_frame.f_globals.get('__name__', '?')}.{name}"
        tb = tb.tb_next
    return None


class EscapingFormatter(logging.Formatter):
    """A ``logging.Formatter`` whose output cannot be forged by the text it logs: control
    characters in the message become their ``repr`` escapes, a traceback keeps its lines
    with the exception messages escaped. The record itself is not changed."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.__dict__.setdefault("worker_tag", "")
        return escape(super().formatMessage(record))

    def formatException(self, ei: Any) -> str:
        if ei[1] is None:
            return super().formatException(ei)
        return format_exception(ei)

    def formatStack(self, stack_info: str) -> str:
        return "\n".join(escape(line) for line in stack_info.split("\n"))

    def format(self, record: logging.LogRecord) -> str:
        # no cached exc_text: another handler's formatter may have left it unescaped
        cached, record.exc_text = record.exc_text, None
        try:
            return super().format(record)
        finally:
            record.exc_text = cached


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ``time`` (ISO 8601, UTC), ``level``, ``logger``,
    ``message``, the :data:`CONTEXT_FIELDS` that are known, ``exception`` (the escaped
    traceback) and any other ``extra=`` value, as JSON when it can be, else ``str``."""

    _STANDARD = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {
        "message",
        "asctime",
        "worker_tag",
        "taskName",
    }

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": _iso_time(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = record.__dict__
        for name in CONTEXT_FIELDS:
            value = fields.get(name)
            if value is not None:
                out[name] = value
        for name, value in fields.items():
            if name not in self._STANDARD and name not in out:
                out[name] = value
        if record.exc_info and record.exc_info[1] is not None:
            out["exception"] = format_exception(record.exc_info)
        elif record.exc_text:
            out["exception"] = record.exc_text
        if record.stack_info:
            out["stack"] = record.stack_info
        return json.dumps(out, ensure_ascii=False, default=str)


def _iso_time(created: float) -> str:
    seconds = int(created)
    millis = int((created - seconds) * 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"


def load_config_file(path: str) -> dict[str, Any]:
    """A ``dictConfig`` dictionary from a ``.json`` file, or a YAML one (``.yaml``/``.yml``,
    with PyYAML installed), as uvicorn's ``--log-config`` takes."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise LogConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    if file.suffix.lower() in (".yaml", ".yml"):
        try:
            import yaml  # type: ignore[import-untyped, unused-ignore]
        except ImportError:
            raise LogConfigError(
                f"{path}: a YAML file needs PyYAML (pip install pyyaml), or give JSON"
            ) from None
        try:
            config = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise LogConfigError(f"{path}: not YAML: {exc}") from None
    else:
        try:
            config = json.loads(text)
        except json.JSONDecodeError as exc:
            raise LogConfigError(f"{path}: not JSON: {exc}") from None
    if not isinstance(config, dict):
        raise LogConfigError(f"{path}: expected a dictConfig mapping, got {type(config).__name__}")
    config.setdefault("version", 1)
    # tgfast's loggers exist by now: a file that does not mention them must not mute them
    config.setdefault("disable_existing_loggers", False)
    return config


def configure(level: str = "info", log_config: str | None = None, fmt: str = "text") -> None:
    """The command's logging, before the app is imported: ``log_config`` applied with
    ``dictConfig`` when given; the ``tgfast`` logger at ``level``; warnings captured."""
    logging.captureWarnings(True)
    logging.getLogger("tgfast").setLevel(level.upper())
    if log_config is not None:
        config = load_config_file(log_config)
        try:
            logging.config.dictConfig(config)
        except (ValueError, TypeError, AttributeError, ImportError) as exc:
            raise LogConfigError(f"{log_config}: {exc}") from None
    _settings.update(level=level.upper(), fmt=fmt, configured=log_config is not None)


_settings: dict[str, Any] = {"level": "INFO", "fmt": "text", "configured": False}


def default_handler_if_none() -> logging.Handler | None:
    """A stderr handler on the root logger (text or JSON, per :func:`configure`) unless
    logging is configured already: by ``--log-config`` or by the app at import (a root
    handler). Returns the handler added, or None."""
    root = logging.getLogger()
    if _settings["configured"] or root.handlers:
        return None
    handler = logging.StreamHandler(sys.stderr)
    handler.set_name(_TGFAST_HANDLER)
    formatter: logging.Formatter = (
        JsonFormatter() if _settings["fmt"] == "json" else EscapingFormatter(_DEFAULT_FORMAT)
    )
    handler.setFormatter(formatter)
    handler.addFilter(UpdateContextFilter())
    root.addHandler(handler)
    root.setLevel(_settings["level"])
    return handler
