"""The committed generated modules are exactly what the generator writes from the spec."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# the same whichever build is installed: scripts/test.sh runs it once, not per build
pytestmark = pytest.mark.once

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "tools" / "codegen" / "spec" / "api.json"


def codegen(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """The generator as a user runs it: the vendored spec is its default input."""
    return subprocess.run(
        [sys.executable, "-m", "tools.codegen", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )


def test_the_spec_is_vendored_with_its_licence_and_provenance() -> None:
    spec = json.loads(SPEC.read_bytes())
    assert len(spec["types"]) > 300 and len(spec["methods"]) > 150
    licence = (SPEC.parent / "LICENSE").read_text(encoding="utf-8")
    assert "Permission is hereby granted, free of charge" in licence  # MIT
    provenance = (SPEC.parent / "README.md").read_text(encoding="utf-8")
    assert spec["version"].removeprefix("Bot API ") in provenance
    source = json.loads((SPEC.parent / "SOURCE.json").read_bytes())
    assert source["bot_api"] == spec["version"] and source["source"].startswith("aiogram-")
    # the generated header names the same version (once: "Bot API Bot API" was a bug)
    header = (ROOT / "tgfast" / "types" / "_types.py").read_text(encoding="utf-8").splitlines()[0]
    assert f"from {spec['version']} (" in header and "Bot API Bot API" not in header


def test_a_spec_path_argument_is_read_instead(tmp_path: Path) -> None:
    spec = json.loads(SPEC.read_bytes())
    spec["version"] = "Bot API 99.0"
    other = tmp_path / "api.json"
    other.write_text(json.dumps(spec), encoding="utf-8")
    result = codegen("--spec", other, "--check")
    assert result.returncode == 1
    # every generated file's header names the version
    assert len(result.stdout.splitlines()) == len(_generated_files())
    missing = codegen("--spec", tmp_path / "nowhere.json", "--check")
    assert missing.returncode != 0


def test_committed_files_are_up_to_date() -> None:
    result = codegen("--check")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "stale" not in result.stdout


def test_generation_reproduces_the_committed_files(tmp_path: Path) -> None:
    result = codegen("--out", tmp_path)
    assert result.returncode == 0, result.stderr
    written = sorted(
        line.removeprefix("wrote: ")
        for line in result.stdout.splitlines()
        if line.startswith("wrote: ")
    )
    # into an empty directory, every generated file is new
    assert written == sorted(
        str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()
    )
    assert "tgfast/types/_types.py" in written
    assert "tgfast/methods/descriptions.py" in written
    for rel in written:
        assert (tmp_path / rel).read_bytes() == (ROOT / rel).read_bytes(), rel
    # and checking that output against itself finds nothing stale
    again = codegen("--check", "--out", tmp_path)
    assert again.returncode == 0, again.stdout


def test_modified_generated_file_is_detected(tmp_path: Path) -> None:
    result = codegen("--out", tmp_path)
    assert result.returncode == 0, result.stderr
    rels = [
        line.removeprefix("wrote: ")
        for line in result.stdout.splitlines()
        if line.startswith("wrote: ")
    ]
    assert rels

    target = tmp_path / "tgfast" / "types" / "enums.py"
    target.write_text(
        target.read_text(encoding="utf-8").replace("'private'", "'privat'", 1), encoding="utf-8"
    )
    stale = codegen("--check", "--out", tmp_path)
    assert stale.returncode == 1
    assert stale.stdout.splitlines() == ["stale: tgfast/types/enums.py"]
    # --check writes nothing
    assert "'privat'" in target.read_text(encoding="utf-8")

    (tmp_path / "tgfast" / "methods" / "descriptions.py").unlink()
    stale = codegen("--check", "--out", tmp_path)
    assert stale.returncode == 1
    assert sorted(stale.stdout.splitlines()) == [
        "stale: tgfast/methods/descriptions.py",
        "stale: tgfast/types/enums.py",
    ]

    # regenerating repairs both, and the tree is clean again
    fixed = codegen("--out", tmp_path)
    assert fixed.returncode == 0
    assert sorted(fixed.stdout.splitlines()) == [
        "wrote: tgfast/methods/descriptions.py",
        "wrote: tgfast/types/enums.py",
    ]
    assert codegen("--check", "--out", tmp_path).returncode == 0


def _generated_files() -> list[str]:
    return sorted(
        str(p.relative_to(ROOT))
        for p in (ROOT / "tgfast").rglob("*.py")
        if p.read_text(encoding="utf-8").startswith("# DO NOT EDIT")
    )


def test_repo_copy_with_one_edit_is_stale(tmp_path: Path) -> None:
    assert len(_generated_files()) == 9
    for rel in _generated_files():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / rel, tmp_path / rel)
    assert codegen("--check", "--out", tmp_path).returncode == 0
    types_file = tmp_path / "tgfast" / "types" / "_types.py"
    with types_file.open("a", encoding="utf-8") as f:
        f.write("\n# hand edit\n")
    stale = codegen("--check", "--out", tmp_path)
    assert stale.returncode == 1
    assert stale.stdout.splitlines() == ["stale: tgfast/types/_types.py"]


def test_no_generated_file_silences_the_type_checker() -> None:
    """Generated code type-checks as it is (``Bot._call`` is typed by its ``Returns``):
    a ``type: ignore`` in it would hide a generator bug from ``mypy --strict``."""
    files = _generated_files()
    assert "tgfast/client/_api.py" in files
    for rel in files:
        text = (ROOT / rel).read_text(encoding="utf-8")
        assert "type: ignore" not in text, rel
    # and the Bot methods really pass a typed result constant, not a bare string
    api = (ROOT / "tgfast" / "client" / "_api.py").read_text(encoding="utf-8")
    assert "self._call('sendMessage', params, _R_Message, request_timeout" in api
    assert "_R_Message: Returns[Message] = Returns('Message')" in api


_BAD_UPDATE_KINDS = """
from pathlib import Path
from tools.codegen import render_kinds
from tools.codegen.model import SpecError, load

model = load(Path("tools/codegen/spec/api.json"))
for override in [
    {"chat": {"no_such_kind": None}},
    {"chat": {"poll_answer": {"path": "user"}}},
    {"chat": {"business_connection": {"private": "user"}}},
    {"chat": {"callback_query": {"path": "message.text"}}},
]:
    render_kinds._load_override = lambda name, override=override: override
    try:
        render_kinds.update_kinds(model)
    except SpecError as exc:
        print("refused:", exc)
    else:
        print("accepted:", override)
"""


def test_update_kind_overrides_the_spec_contradicts_are_refused() -> None:
    """``overrides/update_kinds.json`` is checked against the spec: an unknown kind, a
    path that ends elsewhere than a Chat, a private chat id that is no integer, a field
    one form of a union lacks (an InaccessibleMessage has no text) stop the generator."""
    result = subprocess.run(
        [sys.executable, "-c", _BAD_UPDATE_KINDS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 4 and all(line.startswith("refused: ") for line in lines), lines
    assert "no_such_kind" in lines[0] and "is User, not Chat" in lines[1]
    assert "no chat id" in lines[2] and "'text' in every form" in lines[3]
