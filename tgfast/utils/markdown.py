"""One-call formatting helpers: ``hbold("Hi,", name)`` is ``<b>Hi, {escaped name}</b>``.

Each joins its arguments (``str()`` of each, with ``sep``), quotes the result for its
markup language and wraps it: ``bold``/``italic``/... for MarkdownV2, ``hbold``/
``hitalic``/... for HTML. ``text`` only joins.
"""

from __future__ import annotations

from typing import Any

from .text_decorations import TextDecoration, html_decoration, markdown_decoration

__all__ = [
    "blockquote",
    "bold",
    "code",
    "hblockquote",
    "hbold",
    "hcode",
    "hide_link",
    "hitalic",
    "hlink",
    "hpre",
    "hspoiler",
    "hstrikethrough",
    "hunderline",
    "italic",
    "link",
    "pre",
    "spoiler",
    "strikethrough",
    "text",
    "underline",
]


def text(*content: Any, sep: str = " ") -> str:
    """The arguments joined with ``sep``, unquoted."""
    return sep.join(map(str, content))


def _wrapped(decoration: TextDecoration, how: str, content: tuple[Any, ...], sep: str) -> str:
    wrap: Any = getattr(decoration, how)
    return str(wrap(decoration.quote(text(*content, sep=sep))))


def bold(*content: Any, sep: str = " ") -> str:
    return _wrapped(markdown_decoration, "bold", content, sep)


def hbold(*content: Any, sep: str = " ") -> str:
    return _wrapped(html_decoration, "bold", content, sep)


def italic(*content: Any, sep: str = " ") -> str:
    return _wrapped(markdown_decoration, "italic", content, sep)


def hitalic(*content: Any, sep: str = " ") -> str:
    return _wrapped(html_decoration, "italic", content, sep)


def code(*content: Any, sep: str = " ") -> str:
    return _wrapped(markdown_decoration, "code", content, sep)


def hcode(*content: Any, sep: str = " ") -> str:
    return _wrapped(html_decoration, "code", content, sep)


def pre(*content: Any, sep: str = "\n") -> str:
    return _wrapped(markdown_decoration, "pre", content, sep)


def hpre(*content: Any, sep: str = "\n") -> str:
    return _wrapped(html_decoration, "pre", content, sep)


def underline(*content: Any, sep: str = " ") -> str:
    return _wrapped(markdown_decoration, "underline", content, sep)


def hunderline(*content: Any, sep: str = " ") -> str:
    return _wrapped(html_decoration, "underline", content, sep)


def strikethrough(*content: Any, sep: str = " ") -> str:
    return _wrapped(markdown_decoration, "strikethrough", content, sep)


def hstrikethrough(*content: Any, sep: str = " ") -> str:
    return _wrapped(html_decoration, "strikethrough", content, sep)


def spoiler(*content: Any, sep: str = " ") -> str:
    return _wrapped(markdown_decoration, "spoiler", content, sep)


def hspoiler(*content: Any, sep: str = " ") -> str:
    return _wrapped(html_decoration, "spoiler", content, sep)


def blockquote(*content: Any, sep: str = "\n") -> str:
    return _wrapped(markdown_decoration, "blockquote", content, sep)


def hblockquote(*content: Any, sep: str = "\n") -> str:
    return _wrapped(html_decoration, "blockquote", content, sep)


def link(title: str, url: str) -> str:
    """A MarkdownV2 link; ``title`` is quoted."""
    return markdown_decoration.link(markdown_decoration.quote(title), url)


def hlink(title: str, url: str) -> str:
    """An HTML link; ``title`` is quoted."""
    return html_decoration.link(html_decoration.quote(title), url)


def hide_link(url: str) -> str:
    """An invisible HTML link (a zero-width space): Telegram previews ``url`` without showing it."""
    return html_decoration.link("&#8203;", url)
