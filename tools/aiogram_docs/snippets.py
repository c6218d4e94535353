"""The python code blocks of aiogram's documentation pages, read from its sdist at run time
(never copied into this repository)."""

from __future__ import annotations

import tarfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PAGES", "Snippet", "extract", "snippets"]

# the pages of the utilities issue #15 ports; scene.rst's literalincludes are quiz_scene.py,
# which tools.aiogram_examples runs whole
PAGES = (
    "utils/keyboard.rst", "utils/formatting.rst", "utils/media_group.rst",
    "utils/chat_action.rst", "utils/callback_answer.rst", "utils/i18n.rst",
    "utils/web_app.rst", "dispatcher/finite_state_machine/scene.rst",
    "utils/deep_linking.rst", "dispatcher/flags.rst", "dispatcher/filters/callback_data.rst",
)  # fmt: skip
_LANGUAGES = frozenset({"", "python", "python3", "py", "pycon"})


@dataclass(frozen=True)
class Snippet:
    page: str
    index: int  # the block's position among the page's python blocks, from 1
    line: int  # where the block starts in the .rst
    source: str


def extract(text: str) -> list[tuple[int, str]]:
    """``(line, code)`` of each ``.. code-block::`` that is python (or names no language),
    dedented; option lines (``:emphasize-lines:``) are left out."""
    lines = text.splitlines()
    blocks: list[tuple[int, str]] = []
    for number, line in enumerate(lines):
        head = line.strip()
        if not head.startswith(".. code-block::"):
            continue
        if head.removeprefix(".. code-block::").strip().lower() not in _LANGUAGES:
            continue
        indent = len(line) - len(line.lstrip())
        body: list[str] = []
        for following in lines[number + 1 :]:
            stripped = following.strip()
            if stripped and len(following) - len(following.lstrip()) <= indent:
                break
            if not body and stripped.startswith(":") and not stripped.startswith(":="):
                continue  # a directive option
            body.append(following)
        while body and not body[-1].strip():
            body.pop()
        while body and not body[0].strip():
            body.pop(0)
        if body:
            margin = min(len(b) - len(b.lstrip()) for b in body if b.strip())
            blocks.append((number + 1, "\n".join(b[margin:] for b in body) + "\n"))
    return blocks


def snippets(sdist: Path, pages: tuple[str, ...] = PAGES) -> list[Snippet]:
    found: list[Snippet] = []
    with tarfile.open(sdist) as archive:
        root = archive.getnames()[0].split("/")[0]
        for page in pages:
            member = archive.extractfile(f"{root}/docs/{page}")
            assert member is not None
            text = member.read().decode()
            for index, (line, code) in enumerate(extract(text), 1):
                found.append(Snippet(page, index, line, code))
    return found
