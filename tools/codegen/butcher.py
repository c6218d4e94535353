"""Convert aiogram's butcher schema (``.butcher/schema/schema.json``) to the spec shape.

The generator reads one shape, the one the PaulSonOfLars/telegram-bot-api-spec project
publishes (``spec/README.md``). aiogram's sdist ships the Bot API in its own shape: the
page's sections, each a list of entities with ``annotations`` and the page's HTML for
every description. What the butcher shape leaves implicit is recovered here from that
HTML, the way the official page says it:

- a field is optional when its description starts with *Optional* (the text keeps that
  word, as the other shape does);
- a union is a type without fields whose description lists its members (``<li>``);
- a method returns what its description links in the sentence that says "return"
  (``<em>True</em>`` is a Boolean, "an Array of X" an array).

Anything the conversion cannot place raises :class:`ConvertError`: a new wording on the
page must be looked at, never guessed.
"""

from __future__ import annotations

import datetime as _dt
import re
from html import unescape
from html.parser import HTMLParser
from typing import Any

__all__ = ["ConvertError", "convert_butcher", "split_type"]

PAGE = "https://core.telegram.org/bots/api"


class ConvertError(Exception):
    """The butcher schema says something the conversion does not know how to read."""


def split_type(text: str) -> list[str]:
    """``"Array of A, B and C"`` -> ``["Array of A", "Array of B", "Array of C"]``;
    ``"Integer or String"`` -> ``["Integer", "String"]``; ``True`` is a Boolean."""
    prefix = ""
    while text.startswith("Array of "):
        prefix += "Array of "
        text = text[len("Array of ") :]
    parts = [p.strip() for p in re.split(r",|\bor\b|\band\b", text) if p.strip()]
    if not parts:
        raise ConvertError(f"empty type {text!r}")
    out = []
    for part in parts:
        if " " in part:
            out.extend(split_type(prefix + part) if part.startswith("Array of ") else [])
            if not part.startswith("Array of "):
                raise ConvertError(f"cannot read the type {text!r}")
            continue
        out.append(prefix + ("Boolean" if part == "True" else part))
    return out


class _Blocks(HTMLParser):
    """The paragraphs of a description: ``<p>`` split at ``<br/>``, ``<li>`` as ``- x``;
    blockquotes (the page's notes) are left out, as the other shape leaves them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self._cur: list[str] = []
        self._quote = 0
        self._item = False

    def _flush(self) -> None:
        text = re.sub(r"\s+", " ", "".join(self._cur)).strip().translate(_QUOTES)
        if text and not self._quote:
            self.blocks.append(("- " + text) if self._item else text)
        self._cur = []

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag == "blockquote":
            self._flush()
            self._quote += 1
        elif tag in ("p", "br", "ul", "ol", "table"):
            self._flush()
        elif tag == "li":
            self._flush()
            self._item = True
        elif tag == "img":
            alt = dict(attrs).get("alt")
            if alt:
                self._cur.append(alt)

    def handle_endtag(self, tag: str) -> None:
        if tag == "blockquote":
            self._flush()
            self._quote -= 1
        elif tag in ("p", "li", "ul", "ol"):
            self._flush()
            self._item = False

    def handle_data(self, data: str) -> None:
        self._cur.append(data)

    def close(self) -> None:
        super().close()
        self._flush()


def _paragraphs(html: str) -> list[str]:
    parser = _Blocks()
    parser.feed(_plain(html))
    parser.close()
    blocks = parser.blocks
    # The page's closing words follow its last type (GameHighScore): not part of it.
    end = next((i for i, b in enumerate(blocks) if b.startswith("And that's about all")), None)
    return blocks[:end]


_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2026": "..."})


def _plain(html: str) -> str:
    """Text as the other shape writes it: straight quotes, emoji images as their
    character, "More about X »" links spelled out with their address."""
    html = re.sub(r'<img[^>]*alt="([^"]*)"[^>]*>', r"\1", html)
    html = re.sub(
        r'<a href="([^"]+)">([^<]*?)\s*(?:\u00bb|&#187;|&raquo;)</a>',
        lambda m: f"{m.group(2)}: {_absolute(m.group(1))}",
        html,
    )
    return html


def _absolute(href: str) -> str:
    if href.startswith("#"):
        return PAGE + href
    if href.startswith("/"):
        return "https://core.telegram.org" + href
    return href


def _cell_text(html: str) -> str:
    """A field's description as one line of text (the page's table cell)."""
    text = re.sub(r"<br\s*/?>", " ", _plain(html))
    text = unescape(re.sub(r"<[^>]+>", "", text)).translate(_QUOTES)
    return re.sub(r"\s+", " ", text).strip()


def _field(a: dict[str, Any]) -> dict[str, Any]:
    text = _cell_text(a["html_description"])
    if a["required"] and text.startswith("Optional."):
        raise ConvertError(f"field {a['name']}: required={a['required']} but {text[:30]!r}")
    return {
        "name": a["name"],
        "types": split_type(a["type"]),
        "required": bool(a["required"]),
        "description": text,
    }


_LINK = re.compile(r'<a href="#([a-z0-9-]+)">([^<]+)</a>|<em>(True|False|Int|Integer|String)</em>')
_SCALAR_RETURNS = {"True": "Boolean", "False": "Boolean", "Int": "Integer"}


def _returns(name: str, html: str, types: set[str]) -> list[str]:
    """What a method returns: the type links of its sentences that say "return"."""
    text = re.sub(r"</?p>|<br\s*/?>", " ", html.split("<blockquote>")[0])
    sentences = re.split(r"(?<=[.!])\s+(?=[A-Z<])", text)
    found: list[str] = []
    for sentence in sentences:
        if not re.search(r"[Rr]eturn", sentence):
            continue
        for m in _LINK.finditer(sentence):
            if m.group(3):
                tp = _SCALAR_RETURNS.get(m.group(3), m.group(3))
            elif m.group(2) in types:
                tp = m.group(2)
            else:
                continue
            before = _cell_text(sentence[: m.start()])[-30:].lower()
            if re.search(r"(array|list) of( \w+)?\s*$", before):
                tp = "Array of " + tp
            if tp not in found:
                found.append(tp)
        plain = _cell_text(sentence)
        for word, tp in (("Int", "Integer"), ("String", "String")):
            if re.search(rf"\b(?:as|[Rr]eturns?) (?:an? )?{word}\b", plain) and tp not in found:
                found.append(tp)
    if not found:
        raise ConvertError(f"method {name}: cannot tell what it returns")
    return found


def _members(name: str, html: str, types: set[str]) -> list[str]:
    """A union's members: its ``<li>`` links; "String" / "Array of <itself>" when the
    description says the union may also be one (as RichText does)."""
    members = list(re.findall(r'<li><a href="#[a-z0-9-]+">([^<]+)</a>', html))
    unknown = [m for m in members if m not in types]
    if unknown:
        raise ConvertError(f"union {name}: members {unknown} are not types")
    head = _cell_text(html.split("<ul>")[0])
    extra = []
    if re.search(r"\bString\b", head):
        extra.append("String")
    if f"Array of {name}" in head:
        extra.append(f"Array of {name}")
    return extra + members


def _date_text(iso: str) -> str:
    day = _dt.date.fromisoformat(iso)
    return f"{day.strftime('%B')} {day.day}, {day.year}"


def convert_butcher(schema: dict[str, Any]) -> dict[str, Any]:
    """The butcher schema as the spec shape the generator reads (``spec/README.md``)."""
    api = schema["api"]
    entities = [c for group in schema["items"] for c in group["children"]]
    type_names = {c["name"] for c in entities if c["category"] == "types"}
    release = _date_text(api["release_date"])
    out: dict[str, Any] = {
        "version": f"Bot API {api['version']}",
        "release_date": release,
        "changelog": f"{PAGE}#{release.lower().replace(',', '').replace(' ', '-')}",
        "methods": {},
        "types": {},
    }
    parents: dict[str, list[str]] = {}
    for c in entities:
        if c["category"] != "types" or c["annotations"]:
            continue
        if "<li>" in c["html_description"] and re.search(r"<li><a href", c["html_description"]):
            for m in _members(c["name"], c["html_description"], type_names):
                parents.setdefault(m, []).append(c["name"])
    for c in entities:
        name = c["name"]
        entry: dict[str, Any] = {
            "name": name,
            "href": f"{PAGE}#{c['anchor']}",
            "description": _paragraphs(c["html_description"]),
        }
        if c["category"] == "methods":
            entry["returns"] = _returns(name, c["html_description"], type_names)
            if c["annotations"]:
                entry["fields"] = [_field(a) for a in c["annotations"]]
            out["methods"][name] = entry
            continue
        if c["category"] != "types":
            raise ConvertError(f"{name}: unknown category {c['category']!r}")
        if c["annotations"]:
            entry["fields"] = [_field(a) for a in c["annotations"]]
        elif re.search(r"<li><a href", c["html_description"]):
            entry["subtypes"] = _members(name, c["html_description"], type_names)
        if name in parents:
            entry["subtype_of"] = parents[name]
        out["types"][name] = entry
    return out
