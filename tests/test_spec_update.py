"""The spec update command: aiogram's butcher schema converted to the spec shape, the
committed spec reproduced from the pinned aiogram sdist, and the spec never older than
the Bot API of the aiogram the suite pins."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tarfile
from io import BytesIO
from pathlib import Path
from typing import Any

import aiogram
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))  # last: tgfast stays the build under test, not the source tree

from tools.codegen.butcher import ConvertError, convert_butcher, split_type  # noqa: E402
from tools.codegen.update import diff_specs, read_sdist, update  # noqa: E402

pytestmark = pytest.mark.once

SPEC_DIR = ROOT / "tools" / "codegen" / "spec"


def _field(name: str, tp: str, required: bool, text: str) -> dict[str, Any]:
    cell = ("<em>Optional</em>. " if not required else "") + text
    return {
        "name": name,
        "type": tp,
        "required": required,
        "description": text,
        "html_description": f"<td>{cell}</td>",
        "rst_description": text + "\n",
    }


def _entity(category: str, name: str, html: str, annotations: list[Any]) -> dict[str, Any]:
    return {
        "anchor": name.lower(),
        "name": name,
        "category": category,
        "description": re.sub(r"<[^>]+>", "", html),
        "html_description": html,
        "rst_description": "",
        "annotations": annotations,
    }


# a small schema in aiogram's butcher shape, written for this test
BUTCHER: dict[str, Any] = {
    "api": {"version": "42.1", "release_date": "2031-03-05"},
    "items": [
        {
            "title": "Available types",
            "anchor": "available-types",
            "children": [
                _entity(
                    "types",
                    "Shape",
                    "<p>A shape. It can be one of</p><ul>\n"
                    '<li><a href="#circle">Circle</a></li>\n'
                    '<li><a href="#square">Square</a></li>\n</ul>',
                    [],
                ),
                _entity(
                    "types",
                    "Circle",
                    "<p>A circle.<br/>\nRound.</p><blockquote><p>Note: not a part.</p></blockquote>",
                    [
                        _field("type", "String", True, "Type of the shape, always “circle”"),
                        _field("radius", "Float", True, "Radius"),
                        _field("filled", "True", False, "<em>True</em>, if filled"),
                    ],
                ),
                _entity(
                    "types",
                    "Square",
                    "<p>A square.</p>",
                    [
                        _field("type", "String", True, "Type of the shape, always “square”"),
                        _field(
                            "side",
                            "Integer",
                            True,
                            'Side; more about sides <a href="#sides">Sides &#187;</a>',
                        ),
                    ],
                ),
                _entity(
                    "types",
                    "Canvas",
                    "<p>A canvas.</p>",
                    [
                        _field("shapes", "Array of Circle and Square", True, "The shapes"),
                        _field("owner_id", "Integer or String", False, "Owner"),
                    ],
                ),
            ],
        },
        {
            "title": "Available methods",
            "anchor": "available-methods",
            "children": [
                _entity(
                    "methods",
                    "drawShape",
                    '<p>Draws. On success, the drawn <a href="#shape">Shape</a> is returned, '
                    "otherwise <em>True</em> is returned.</p>",
                    [_field("canvas_id", "Integer", True, "Canvas")],
                ),
                _entity(
                    "methods",
                    "listCanvases",
                    '<p>Lists. Returns an Array of <a href="#canvas">Canvas</a> objects.</p>',
                    [],
                ),
                _entity(
                    "methods",
                    "countShapes",
                    "<p>Counts. Returns <em>Int</em> on success.</p>",
                    [],
                ),
            ],
        },
    ],
}


def test_the_butcher_schema_converts_to_the_spec_shape() -> None:
    spec = convert_butcher(BUTCHER)
    assert spec["version"] == "Bot API 42.1"
    assert spec["release_date"] == "March 5, 2031"
    assert spec["changelog"] == "https://core.telegram.org/bots/api#march-5-2031"
    shape, circle, square, canvas = (
        spec["types"][n] for n in ("Shape", "Circle", "Square", "Canvas")
    )
    assert shape["subtypes"] == ["Circle", "Square"] and "fields" not in shape
    assert shape["description"] == ["A shape. It can be one of", "- Circle", "- Square"]
    assert circle["subtype_of"] == ["Shape"] and square["subtype_of"] == ["Shape"]
    assert "subtype_of" not in canvas
    # paragraphs split at <br/>, the page's notes (blockquotes) left out
    assert circle["description"] == ["A circle.", "Round."]
    assert circle["href"] == "https://core.telegram.org/bots/api#circle"
    kind, radius, filled = circle["fields"]
    assert kind == {
        "name": "type",
        "types": ["String"],
        "required": True,
        "description": 'Type of the shape, always "circle"',
    }
    assert radius["types"] == ["Float"]
    assert filled == {
        "name": "filled",
        "types": ["Boolean"],
        "required": False,
        "description": "Optional. True, if filled",
    }
    side = square["fields"][1]["description"]
    assert side == "Side; more about sides Sides: https://core.telegram.org/bots/api#sides"
    assert canvas["fields"][0]["types"] == ["Array of Circle", "Array of Square"]
    assert canvas["fields"][1]["types"] == ["Integer", "String"]
    methods = spec["methods"]
    assert methods["drawShape"]["returns"] == ["Shape", "Boolean"]
    assert methods["listCanvases"]["returns"] == ["Array of Canvas"]
    assert "fields" not in methods["listCanvases"]
    assert methods["countShapes"]["returns"] == ["Integer"]
    assert methods["drawShape"]["fields"][0]["required"] is True


def test_what_the_converter_cannot_read_is_an_error() -> None:
    with pytest.raises(ConvertError, match="cannot read the type"):
        split_type("Integer or a number of things")
    broken = json.loads(json.dumps(BUTCHER))
    broken["items"][1]["children"][2]["html_description"] = "<p>Counts.</p>"
    with pytest.raises(ConvertError, match="countShapes: cannot tell what it returns"):
        convert_butcher(broken)
    broken = json.loads(json.dumps(BUTCHER))
    broken["items"][0]["children"][0]["html_description"] += '<li><a href="#x">Triangle</a></li>'
    with pytest.raises(ConvertError, match="Triangle"):
        convert_butcher(broken)


def test_update_writes_spec_licence_provenance_and_a_summary(tmp_path: Path) -> None:
    sdist = tmp_path / "aiogram-9.9.9.tar.gz"
    with tarfile.open(sdist, "w:gz") as tar:
        for rel, data in (
            (".butcher/schema/schema.json", json.dumps(BUTCHER).encode()),
            ("LICENSE", b"MIT licence text\n"),
            ("README.rst", b"not read\n"),
        ):
            info = tarfile.TarInfo(f"aiogram-9.9.9/{rel}")
            info.size = len(data)
            tar.addfile(info, BytesIO(data))
    old = convert_butcher(BUTCHER)
    del old["types"]["Square"]
    old["types"]["Shape"]["subtypes"] = ["Circle"]
    old["types"]["Canvas"]["fields"][1]["required"] = True
    (tmp_path / "api.json").write_text(json.dumps(old), encoding="utf-8")
    summary = update(read_sdist(sdist), tmp_path)
    assert summary[0] == "Bot API 42.1 (March 5, 2031) -> Bot API 42.1 (March 5, 2031)"
    assert "types added (1): Square" in summary
    assert "  Canvas.owner_id: Integer or String -> Integer or String (optional)" in summary
    assert "  union Shape: +['Square'] -[]" in summary
    assert (tmp_path / "LICENSE").read_text(encoding="utf-8") == "MIT licence text\n"
    source = json.loads((tmp_path / "SOURCE.json").read_text(encoding="utf-8"))
    assert source["source"] == "aiogram-9.9.9.tar.gz" and len(source["source_sha256"]) == 64
    assert source["command"].endswith("--from-aiogram-sdist 9.9.9")
    assert json.loads((tmp_path / "api.json").read_text(encoding="utf-8")) == convert_butcher(
        BUTCHER
    )
    assert diff_specs(convert_butcher(BUTCHER), convert_butcher(BUTCHER))[1:] == []


def test_the_spec_is_not_older_than_the_pinned_aiogram() -> None:
    """Bumping the aiogram pin to a release with a newer Bot API fails here until the
    spec follows it (spec/README.md: one command)."""
    spec = json.loads((SPEC_DIR / "api.json").read_bytes())
    ours = tuple(int(p) for p in spec["version"].removeprefix("Bot API ").split("."))
    theirs = tuple(int(p) for p in aiogram.__api_version__.split("."))
    assert ours >= theirs, (
        f"the spec is {spec['version']}, aiogram {aiogram.__version__} follows {theirs}"
    )
    pins = re.findall(r'"aiogram==([0-9.]+)"', (ROOT / "pyproject.toml").read_text("utf-8"))
    assert pins and set(pins) == {aiogram.__version__}, "pin aiogram exactly in test and bench"


def test_the_update_command_reproduces_the_committed_spec(tmp_path: Path) -> None:
    """The pinned aiogram sdist, downloaded by pip as the command does, gives the
    committed api.json, LICENSE and SOURCE.json byte for byte."""
    source = json.loads((SPEC_DIR / "SOURCE.json").read_bytes())
    version = source["source"].removeprefix("aiogram-").removesuffix(".tar.gz")
    out = tmp_path / "spec"
    out.mkdir()
    cmd = [sys.executable, "-m", "tools.codegen.update", "--from-aiogram-sdist", version]
    cmd += ["--spec-dir", str(out), "--no-generate"]
    result = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("None (None) -> Bot API ")
    for name in ("api.json", "LICENSE", "SOURCE.json"):
        assert (out / name).read_bytes() == (SPEC_DIR / name).read_bytes(), name
