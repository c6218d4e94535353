"""``python -m tools.codegen [--spec PATH] [--out DIR] [--check]``.

Writes the generated modules of tgfast from the Bot API spec; with ``--check`` it
writes nothing and exits 1 when a committed file differs from what it would write.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from .model import load
from .render import render_all
from .render_api import render_client
from .render_kinds import render_kinds

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_SPEC = Path(__file__).resolve().with_name("spec") / "api.json"  # vendored: spec/README.md


def generate(spec: Path) -> dict[str, str]:
    model = load(spec)
    files = {**render_all(model), **render_client(model), **render_kinds(model)}
    return {rel: _import_datetime(text) for rel, text in files.items()}


def _import_datetime(text: str) -> str:
    """Import what the annotations of ``date`` values name, in the modules that name it."""
    names = [n for n in ("datetime", "timedelta") if re.search(rf"[:|] {n}\b", text)]
    if not names:
        return text
    anchor = "from __future__ import annotations\n\n"
    return text.replace(anchor, f"{anchor}from datetime import {', '.join(names)}\n", 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.codegen", description=__doc__)
    parser.add_argument("--spec", type=Path, default=DEFAULT_SPEC, help="Bot API spec JSON")
    parser.add_argument("--out", type=Path, default=ROOT, help="project root to write into")
    parser.add_argument("--check", action="store_true", help="only report stale files")
    args = parser.parse_args(argv)
    stale = []
    for rel, text in generate(args.spec).items():
        path = args.out / rel
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(rel)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    for rel in stale:
        print(("stale: " if args.check else "wrote: ") + rel)
    return 1 if (args.check and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
