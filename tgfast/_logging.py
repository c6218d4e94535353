"""Logging that cannot be forged by the text it logs.

tgfast logs texts it does not control: a handler's exception message (often holding
user input), an update that does not decode, an error Telegram or Redis sent back. A
newline in such a text starts a forged log line, an ANSI escape rewrites the terminal.
The formatters of ``tgfast.logs`` escape C0/C1 control characters the way ``repr``
does (``\\n``, ``\\x1b``) in the formatted message and in the exception part of a
traceback, while the traceback keeps its own lines; the record keeps its ``msg`` and
``args`` for structured handlers. Only formatted records pay for it.
"""

from __future__ import annotations

import logging
import re
import traceback
from types import TracebackType

__all__ = ["escape", "format_exception", "get_logger"]

# C0, DEL, C1, and the Unicode line and paragraph separators (a new line to some viewers)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _one(match: re.Match[str]) -> str:
    return repr(match.group())[1:-1]


def escape(text: object) -> str:
    """``str(text)`` with every control character written as its ``repr`` escape."""
    s = str(text)
    return _CONTROL.sub(_one, s) if _CONTROL.search(s) is not None else s


ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]


def format_exception(exc_info: ExcInfo) -> str:
    """A traceback as ``logging`` prints it, with the exception messages (and notes) of
    the whole chain escaped: frames stay one per line, a message cannot add lines."""
    te = traceback.TracebackException(*exc_info, compact=True)
    seen: set[int] = set()
    todo = [te]
    while todo:
        t = todo.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        if isinstance(getattr(t, "_str", None), str):
            t._str = escape(t._str)  # type: ignore[attr-defined]  # the message as printed
        notes = getattr(t, "__notes__", None)
        if notes:
            t.__notes__ = [escape(n) for n in notes]  # type: ignore[attr-defined]
        todo.extend(c for c in (t.__cause__, t.__context__) if c is not None)
        todo.extend(getattr(t, "exceptions", None) or ())  # an ExceptionGroup's members
    text = "".join(te.format()).rstrip("\n")
    # what is left (a message the walk above could not reach) still cannot forge lines
    return "\n".join(escape(line) for line in text.split("\n"))


def get_logger(name: str) -> logging.Logger:
    """``logging.getLogger(name)`` with ``tgfast.logs.UpdateContextFilter`` attached (once):
    tgfast's records carry the update's fields whatever handler formats them."""
    log = logging.getLogger(name)
    if not any(type(f).__name__ == "UpdateContextFilter" for f in log.filters):
        from .logs import UpdateContextFilter

        log.addFilter(UpdateContextFilter())
    return log
