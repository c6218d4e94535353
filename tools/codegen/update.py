"""``python -m tools.codegen.update --from-aiogram-sdist VERSION|PATH [--no-generate]``.

Follows a new Bot API release in one command: takes aiogram's source distribution
(downloaded from PyPI with pip, or a local ``.tar.gz`` / unpacked directory), converts
its ``.butcher/schema/schema.json`` to the spec shape (``butcher.py``), writes
``spec/api.json`` with aiogram's licence (``spec/LICENSE``) and the provenance
(``spec/SOURCE.json``), regenerates tgfast, and prints what changed in the Bot API.
The procedure around it is in ``spec/README.md``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

from .butcher import convert_butcher

__all__ = ["SpecSource", "diff_specs", "dump_spec", "main", "read_sdist"]

SPEC_DIR = Path(__file__).resolve().with_name("spec")
SCHEMA = ".butcher/schema/schema.json"


class SpecSource:
    """What an aiogram sdist holds for us: the butcher schema and the licence."""

    def __init__(self, name: str, sha256: str, schema: bytes, licence: str) -> None:
        self.name = name
        self.sha256 = sha256
        self.schema = schema
        self.licence = licence

    def provenance(self, spec: dict[str, Any]) -> dict[str, Any]:
        return {
            "bot_api": spec["version"],
            "release_date": spec["release_date"],
            "source": self.name,
            "source_sha256": self.sha256,
            "file": SCHEMA,
            "file_sha256": hashlib.sha256(self.schema).hexdigest(),
            "licence": "MIT (aiogram; LICENSE beside this file)",
            "converted_by": "tools/codegen/butcher.py",
            "command": f"python -m tools.codegen.update --from-aiogram-sdist {_version(self.name)}",
        }


def _version(name: str) -> str:
    stem = name.removesuffix(".tar.gz")
    return stem.rpartition("-")[2] if "-" in stem else stem


def download_sdist(version: str, into: Path) -> Path:
    """aiogram's sdist from the package index, as pip finds it (its cache included)."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]
    cmd += ["--quiet", "-d", str(into), f"aiogram=={version}"]
    subprocess.run(cmd, check=True, timeout=600)
    found = sorted(into.glob(f"aiogram-{version}.tar.gz"))
    if not found:
        raise SystemExit(f"pip did not leave aiogram-{version}.tar.gz in {into}")
    return found[0]


def read_sdist(path: Path) -> SpecSource:
    """The schema and the licence of an sdist (``.tar.gz``) or an unpacked one."""
    if path.is_dir():
        return SpecSource(
            path.name,
            "",
            (path / SCHEMA).read_bytes(),
            (path / "LICENSE").read_text(encoding="utf-8"),
        )
    data = path.read_bytes()
    with tarfile.open(path, "r:gz") as tar:
        files: dict[str, bytes] = {}
        for member in tar.getmembers():
            root, _, rel = member.name.partition("/")
            if rel in (SCHEMA, "LICENSE") and member.isfile():
                fh = tar.extractfile(member)
                if fh is not None:
                    files[rel] = fh.read()
    missing = {SCHEMA, "LICENSE"} - set(files)
    if missing:
        raise SystemExit(f"{path.name} has no {sorted(missing)}")
    return SpecSource(
        path.name,
        hashlib.sha256(data).hexdigest(),
        files[SCHEMA],
        files["LICENSE"].decode("utf-8"),
    )


def dump_spec(spec: dict[str, Any]) -> str:
    """The vendored file's bytes: stable, readable, reviewable in a diff."""
    return json.dumps(spec, indent=2, ensure_ascii=False) + "\n"


def _fields(entry: dict[str, Any]) -> dict[str, tuple[tuple[str, ...], bool]]:
    return {f["name"]: (tuple(f["types"]), f["required"]) for f in entry.get("fields", [])}


def _group(old: dict[str, Any], new: dict[str, Any], label: str) -> list[str]:
    lines = []
    added = [n for n in new if n not in old]
    removed = [n for n in old if n not in new]
    if added:
        lines.append(f"{label} added ({len(added)}): {', '.join(added)}")
    if removed:
        lines.append(f"{label} removed ({len(removed)}): {', '.join(removed)}")
    for name in (n for n in new if n in old):
        a, b = old[name], new[name]
        fa, fb = _fields(a), _fields(b)
        for key in fb.keys() - fa.keys():
            lines.append(f"  {name}.{key}: added {_show(fb[key])}")
        for key in fa.keys() - fb.keys():
            lines.append(f"  {name}.{key}: removed")
        for key in fa.keys() & fb.keys():
            if fa[key] != fb[key]:
                lines.append(f"  {name}.{key}: {_show(fa[key])} -> {_show(fb[key])}")
        if a.get("subtypes") != b.get("subtypes"):
            sa, sb = a.get("subtypes", []), b.get("subtypes", [])
            more = [s for s in sb if s not in sa]
            less = [s for s in sa if s not in sb]
            lines.append(f"  union {name}: +{more} -{less}")
        if a.get("returns") != b.get("returns"):
            lines.append(f"  {name} returns {a.get('returns')} -> {b.get('returns')}")
    return lines


def _show(f: tuple[tuple[str, ...], bool]) -> str:
    return " or ".join(f[0]) + ("" if f[1] else " (optional)")


def diff_specs(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What changed between two specs, one line per change, for a human to review."""
    lines = [
        f"{old.get('version')} ({old.get('release_date')}) -> "
        f"{new['version']} ({new['release_date']})"
    ]
    for label in ("types", "methods"):
        lines += _group(old.get(label, {}), new[label], label)
    unions = [n for n, t in new["types"].items() if "subtypes" in t]
    new_unions = [n for n in unions if "subtypes" not in old.get("types", {}).get(n, {})]
    if new_unions:
        lines.append(f"unions added ({len(new_unions)}): {', '.join(new_unions)}")
    return lines


def update(source: SpecSource, spec_dir: Path = SPEC_DIR) -> list[str]:
    """Write the vendored spec, licence and provenance; the summary of the change."""
    spec = convert_butcher(json.loads(source.schema))
    target = spec_dir / "api.json"
    old = json.loads(target.read_text(encoding="utf-8")) if target.exists() else {}
    target.write_text(dump_spec(spec), encoding="utf-8")
    (spec_dir / "LICENSE").write_text(source.licence, encoding="utf-8")
    provenance = json.dumps(source.provenance(spec), indent=2) + "\n"
    (spec_dir / "SOURCE.json").write_text(provenance, encoding="utf-8")
    return diff_specs(old, spec)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.codegen.update", description=__doc__)
    parser.add_argument(
        "--from-aiogram-sdist",
        required=True,
        metavar="VERSION|PATH",
        help="an aiogram version to download from PyPI, or a local sdist",
    )
    parser.add_argument("--spec-dir", type=Path, default=SPEC_DIR, help=argparse.SUPPRESS)
    parser.add_argument("--no-generate", action="store_true", help="only write the spec")
    args = parser.parse_args(argv)
    given = Path(args.from_aiogram_sdist)
    with tempfile.TemporaryDirectory() as tmp:
        path = given if given.exists() else download_sdist(args.from_aiogram_sdist, Path(tmp))
        source = read_sdist(path)
    summary = update(source, args.spec_dir)
    print("\n".join(summary))
    if not args.no_generate:
        from .__main__ import main as generate

        return generate(["--spec", str(args.spec_dir / "api.json")])
    return 0


if __name__ == "__main__":
    sys.exit(main())
