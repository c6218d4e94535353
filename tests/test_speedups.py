"""Which decoder ``tgfast`` uses, and how the test session reacts to a missing build."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from implementations import COMPILED, EXPECT_COMPILED, EXPECT_PURE, IMPLEMENTATIONS, NO_EXTENSIONS

import tgfast

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent


@pytest.fixture(autouse=True)
def _neutral_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Subprocesses start in an empty directory, never the repo root.

    ``python -c`` puts its cwd first on sys.path, and from the repo root that would
    import the source tree instead of the build under test (the installed package,
    or the pure build on PYTHONPATH).
    """
    monkeypatch.chdir(tmp_path)


PROBE = """
import json, tgfast, tgfast.decoding, tgfast._speedups
print(json.dumps({
    "speedups": tgfast.__speedups__,
    "module": tgfast.decoding.decode_update.__module__,
    "no_extensions": tgfast._speedups.NO_EXTENSIONS,
    "public_is_pure": tgfast.decode_update is __import__("tgfast._speedups._decode_py", fromlist=["x"]).decode_update,
}))
"""
# Makes the compiled module unimportable, as in a build without extensions.
BLOCK_COMPILED = "import sys; sys.modules['tgfast._speedups._decode'] = None; "


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TGFAST_")}
    env.update(extra)
    return env


def probe(**env: str) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-W", "error", "-c", PROBE],
        env=clean_env(**env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def run_pytest(code_prefix: str, args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    code = code_prefix + f"import pytest; raise SystemExit(pytest.main({args!r}))"
    return subprocess.run(
        [sys.executable, "-c", code],
        env=clean_env(**env),
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )


def test_no_extensions_forces_the_pure_twin() -> None:
    out = probe(TGFAST_NO_EXTENSIONS="1")
    assert out == {
        "speedups": False,
        "module": "tgfast._speedups._decode_py",
        "no_extensions": True,
        "public_is_pure": True,
    }


def test_default_uses_the_compiled_decoder_when_built() -> None:
    out = probe()
    assert out["no_extensions"] is False
    if COMPILED is not None:
        assert out["speedups"] is True
        assert out["module"] == "tgfast._speedups._decode"
        assert out["public_is_pure"] is False
    else:
        assert out["speedups"] is False
        assert str(out["module"]).endswith("_decode_py")


def test_missing_compiled_module_falls_back_to_pure() -> None:
    result = subprocess.run(
        [sys.executable, "-W", "error", "-c", BLOCK_COMPILED + PROBE],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["speedups"] is False
    assert out["module"] == "tgfast._speedups._decode_py"


def test_in_process_build() -> None:
    assert tgfast.__speedups__ is ("c" in IMPLEMENTATIONS)
    assert tgfast.__speedups__ is (COMPILED is not None and not NO_EXTENSIONS)
    if EXPECT_COMPILED:
        assert tgfast.__speedups__ is True
        assert tgfast.decoding.decode_update.__module__ == "tgfast._speedups._decode"
    if EXPECT_PURE:
        assert tgfast.__speedups__ is False
        assert COMPILED is None
        assert tgfast.decoding.decode_update.__module__ == "tgfast._speedups._decode_py"


def test_subprocesses_see_the_same_build() -> None:
    result = subprocess.run(
        [sys.executable, "-c", "import tgfast; print(tgfast.__file__)"],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == tgfast.__file__


def test_implementations_under_test() -> None:
    assert "py" in IMPLEMENTATIONS
    assert IMPLEMENTATIONS["py"].__name__ == "tgfast._speedups._decode_py"
    if "c" in IMPLEMENTATIONS:
        assert IMPLEMENTATIONS["c"].__name__ == "tgfast._speedups._decode"
        assert IMPLEMENTATIONS["c"].__file__.endswith((".so", ".pyd"))
    assert list(IMPLEMENTATIONS) == (["py"] if NO_EXTENSIONS or COMPILED is None else ["c", "py"])


def test_expect_compiled_fails_the_session_loudly() -> None:
    """TGFAST_EXPECT_COMPILED=1 without a compiled module must never pass as pure-only."""
    result = run_pytest(
        BLOCK_COMPILED,
        ["-q", "--collect-only", str(TESTS / "test_types.py")],
        TGFAST_EXPECT_COMPILED="1",
    )
    output = result.stdout + result.stderr
    assert result.returncode == pytest.ExitCode.USAGE_ERROR, output
    assert "TGFAST_EXPECT_COMPILED=1 but the compiled decoder" in output
    assert "test_types.py::" not in output  # nothing was collected


def test_expect_compiled_contradicts_no_extensions() -> None:
    result = run_pytest(
        "",
        ["-q", "--collect-only", str(TESTS / "test_types.py")],
        TGFAST_EXPECT_COMPILED="1",
        TGFAST_NO_EXTENSIONS="1",
    )
    assert result.returncode == pytest.ExitCode.USAGE_ERROR, result.stdout + result.stderr
    assert "contradicts TGFAST_NO_EXTENSIONS" in result.stdout + result.stderr


@pytest.mark.parametrize("how", ["blocked", "no_extensions"])
def test_pure_only_session(how: str) -> None:
    """Without the compiled build: only ``py`` items, and no twin tests at all."""
    prefix, env = (BLOCK_COMPILED, {}) if how == "blocked" else ("", {"TGFAST_NO_EXTENSIONS": "1"})
    result = run_pytest(
        prefix,
        ["-q", "--collect-only", str(TESTS / "test_decode.py"), str(TESTS / "test_twins.py")],
        **env,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    items = [line for line in result.stdout.splitlines() if "::" in line]
    assert any(line.startswith("tests/test_decode.py::test_private_start[py]") for line in items), (
        output
    )
    assert not any("[c]" in line or "[c-" in line or "-c]" in line for line in items), output
    assert not any("test_twins.py" in line for line in items), output
    assert "skipped" not in output


def test_full_session_collects_both() -> None:
    result = run_pytest(
        "", ["-q", "--collect-only", str(TESTS / "test_decode.py"), str(TESTS / "test_twins.py")]
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    items = [line for line in result.stdout.splitlines() if "::" in line]
    assert any(line.endswith("test_private_start[py]") for line in items)
    if COMPILED is not None:
        assert any(line.endswith("test_private_start[c]") for line in items)
        assert any("test_twins.py::TestTwins" in line for line in items)


@pytest.mark.parametrize("blocked", [True, False], ids=["blocked", "default"])
def test_report_header(blocked: bool) -> None:
    result = run_pytest(
        BLOCK_COMPILED if blocked else "",
        ["--collect-only", str(TESTS / "test_types.py") + "::test_to_dict_example"],
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"imported from {Path(tgfast.__file__).parent}" in result.stdout
    if blocked or COMPILED is None:
        assert "tgfast decoders under test: py (tgfast.__speedups__=False" in result.stdout
        assert "compiled module unavailable" in result.stdout
    else:
        assert "tgfast decoders under test: c, py (tgfast.__speedups__=True" in result.stdout
        assert f"compiled from {COMPILED.__file__}" in result.stdout
