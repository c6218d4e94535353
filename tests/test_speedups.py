"""One switch for every compiled module: ``tgfast`` uses all of them or none, loudly.

The broken builds are made for real: a copy of the installed package in a temporary
directory, put first on ``PYTHONPATH``, with its compiled files removed, replaced by
garbage or kept one at a time.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from implementations import (
    COMPILED,
    COMPILED_MODULES,
    EXPECT_COMPILED,
    EXPECT_PURE,
    IMPLEMENTATIONS,
    LOADED,
    NO_EXTENSIONS,
    ROUTING_IMPLEMENTATIONS,
)

import tgfast

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent
PACKAGE = Path(tgfast.__file__).resolve().parent
SPEEDUPS = "tgfast._speedups"
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


@pytest.fixture(autouse=True)
def _neutral_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Subprocesses start in an empty directory, never the repo root.

    ``python -c`` puts its cwd first on sys.path, and from the repo root that would
    import the source tree instead of the build under test (the installed package,
    or the pure build on PYTHONPATH).
    """
    monkeypatch.chdir(tmp_path)


PROBE = """
import json, sys, tgfast, tgfast.decoding, tgfast._speedups
from tgfast.dispatcher import Dispatcher, routing
print(json.dumps({
    "speedups": tgfast.__speedups__,
    "module": tgfast.decoding.decode_update.__module__,
    "routing": routing.impl.__name__,
    "core": [c.__module__ for c in Dispatcher.__mro__ if c.__name__ == "DispatchCore"],
    "table": type(Dispatcher().freeze()).__module__,
    "no_extensions": tgfast._speedups.NO_EXTENSIONS,
    "compiled_loaded": sorted(n for n in sys.modules if n in (
        "tgfast._speedups._decode", "tgfast._speedups._routing")),
    "public_is_pure": tgfast.decode_update is __import__(
        "tgfast._speedups._decode_py", fromlist=["x"]).decode_update,
}))
"""
PURE = {
    "speedups": False,
    "module": "tgfast._speedups._decode_py",
    "routing": "tgfast._speedups._routing_py",
    "core": ["tgfast._speedups._routing_py"],
    "table": "tgfast._speedups._routing_py",
    "compiled_loaded": [],
    "public_is_pure": True,
}
COMPILED_OUT = {
    "speedups": True,
    "module": "tgfast._speedups._decode",
    "routing": "tgfast._speedups._routing",
    "core": ["tgfast._speedups._routing"],
    "table": "tgfast._speedups._routing",
    "compiled_loaded": ["tgfast._speedups._decode", "tgfast._speedups._routing"],
    "public_is_pure": False,
    "no_extensions": False,
}


def clean_env(pythonpath: Path | None = None, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TGFAST_")}
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(pythonpath), *filter(None, [os.environ.get("PYTHONPATH")])]
        )
    env.update(extra)
    return env


def run_probe(
    code: str = PROBE, pythonpath: Path | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-W", "error", "-c", code],
        env=clean_env(pythonpath, **env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def probe(pythonpath: Path | None = None, **env: str) -> dict[str, object]:
    result = run_probe(PROBE, pythonpath, **env)
    assert result.returncode == 0, result.stderr
    out: dict[str, object] = json.loads(result.stdout)
    return out


def run_pytest(
    args: list[str], pythonpath: Path | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    code = f"import pytest; raise SystemExit(pytest.main({args!r}))"
    return subprocess.run(
        [sys.executable, "-c", code],
        env=clean_env(pythonpath, **env),
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )


def compiled_files(package: Path, name: str) -> list[Path]:
    folder = package / "_speedups"
    return [
        folder / (name + suffix)
        for suffix in importlib.machinery.EXTENSION_SUFFIXES
        if (folder / (name + suffix)).is_file()
    ]


@pytest.fixture(scope="session")
def stripped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the installed tgfast without any compiled file (nor C source)."""
    site = tmp_path_factory.mktemp("stripped")

    def ignore(folder: str, names: list[str]) -> set[str]:
        return {
            n
            for n in names
            if n == "__pycache__"
            or n.endswith(".c")
            or any(n.endswith(s) for s in importlib.machinery.EXTENSION_SUFFIXES)
        }

    shutil.copytree(PACKAGE, site / "tgfast", ignore=ignore)
    return site


def variant(stripped: Path, tmp_path: Path, **files: str) -> Path:
    """The stripped copy plus, per compiled module name, ``real`` (the installed
    compiled file) or ``garbage`` (a file of that name that is no shared library)."""
    site = tmp_path / "site"
    shutil.copytree(stripped, site)
    for name, what in files.items():
        target = site / "tgfast" / "_speedups" / (name + SUFFIX)
        if what == "real":
            [source] = compiled_files(PACKAGE, name)
            shutil.copyfile(source, target)
        else:
            target.write_bytes(b"this is not a shared library\n")
    return site


def test_compiled_modules_are_every_pyx() -> None:
    """The switch covers every module setup.py compiles (the .pyx sources are in the source
    tree: the installed wheel carries the compiled modules and the twins)."""
    sources = Path(__file__).resolve().parents[1] / "tgfast" / "_speedups"
    pyx = sorted(p.stem for p in sources.glob("*.pyx"))
    assert sorted(COMPILED_MODULES) == pyx
    for name in COMPILED_MODULES:
        assert (PACKAGE / "_speedups" / f"{name}_py.py").is_file()


def test_no_extensions_switches_both_imports() -> None:
    out = probe(TGFAST_NO_EXTENSIONS="1")
    assert out == {**PURE, "no_extensions": True}


def test_default_uses_every_compiled_module_when_built() -> None:
    out = probe()
    if LOADED:
        assert out == COMPILED_OUT
    else:
        assert out == {**PURE, "no_extensions": False}


def test_build_without_compiled_files_is_pure(stripped: Path) -> None:
    """The build made with TGFAST_NO_EXTENSIONS=1 ships no compiled file: the twins,
    with nothing to set at run time."""
    assert probe(stripped) == {**PURE, "no_extensions": False}


@pytest.mark.parametrize("broken", COMPILED_MODULES)
def test_garbage_compiled_module_fails_loudly(broken: str, stripped: Path, tmp_path: Path) -> None:
    """A compiled file that does not load fails ``import tgfast``, naming it: whether the
    other one is real (compiled run) or garbage too, and whichever is imported first."""
    files = {n: "garbage" if n == broken or not LOADED else "real" for n in COMPILED_MODULES}
    site = variant(stripped, tmp_path, **files)
    result = run_probe("import tgfast", site)
    assert result.returncode == 1, result.stderr
    assert "ImportError: tgfast: the compiled module tgfast._speedups." in result.stderr
    if LOADED:
        assert f"tgfast._speedups.{broken} is built but fails to import" in result.stderr
    # the switch still wins: the twins, without touching the broken files
    assert probe(site, TGFAST_NO_EXTENSIONS="1") == {**PURE, "no_extensions": True}


@pytest.mark.parametrize("kept", COMPILED_MODULES)
def test_one_compiled_module_missing_fails_loudly(
    kept: str, stripped: Path, tmp_path: Path
) -> None:
    """Only one module compiled: never half accelerated, the error names the missing one.
    (Garbage stands in for the kept file in a pure run: the count is made before any
    compiled module is imported.)"""
    site = variant(stripped, tmp_path, **{kept: "real" if LOADED else "garbage"})
    result = run_probe("import tgfast", site)
    assert result.returncode == 1, result.stderr
    missing = ", ".join(f"tgfast._speedups.{n}" for n in COMPILED_MODULES if n != kept)
    assert (
        f"ImportError: tgfast: compiled module {missing} is missing while "
        f"tgfast._speedups.{kept} is built"
    ) in result.stderr
    assert probe(site, TGFAST_NO_EXTENSIONS="1") == {**PURE, "no_extensions": True}


class TestCompiledBuild:
    """Collected only when this run has the compiled build (as ``test_twins.TestTwins``)."""

    __test__ = "c" in IMPLEMENTATIONS

    @pytest.mark.parametrize("blocked", COMPILED_MODULES)
    def test_blocked_compiled_module_fails_loudly(self, blocked: str) -> None:
        """An installed compiled module that cannot be imported is an error, not a fallback."""
        code = f"import sys; sys.modules['tgfast._speedups.{blocked}'] = None; import tgfast"
        result = run_probe(code)
        assert result.returncode == 1, result.stderr
        assert f"tgfast._speedups.{blocked} is built but fails to import" in result.stderr


def test_in_process_build() -> None:
    from tgfast.dispatcher import Dispatcher, routing

    assert tgfast.__speedups__ is ("c" in IMPLEMENTATIONS)
    assert tgfast.__speedups__ is (len(LOADED) == len(COMPILED_MODULES) and not NO_EXTENSIONS)
    expected = "" if tgfast.__speedups__ else "_py"
    assert tgfast.decoding.decode_update.__module__ == f"{SPEEDUPS}._decode{expected}"
    assert routing.impl.__name__ == f"{SPEEDUPS}._routing{expected}"
    assert routing.impl.DispatchCore in Dispatcher.__mro__
    if EXPECT_COMPILED:
        assert tgfast.__speedups__ is True
    if EXPECT_PURE:
        assert tgfast.__speedups__ is False
        assert LOADED == {}


def test_subprocesses_see_the_same_build() -> None:
    result = run_probe("import tgfast; print(tgfast.__file__)")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == tgfast.__file__


def test_implementations_under_test() -> None:
    assert IMPLEMENTATIONS["py"].__name__ == f"{SPEEDUPS}._decode_py"
    assert ROUTING_IMPLEMENTATIONS["py"].__name__ == f"{SPEEDUPS}._routing_py"
    expected = ["py"] if NO_EXTENSIONS or len(LOADED) < len(COMPILED_MODULES) else ["c", "py"]
    assert list(IMPLEMENTATIONS) == expected
    assert list(ROUTING_IMPLEMENTATIONS) == expected
    if "c" in IMPLEMENTATIONS:
        for module in (IMPLEMENTATIONS["c"], ROUTING_IMPLEMENTATIONS["c"]):
            assert module.__file__.endswith((".so", ".pyd"))


def test_expect_compiled_fails_the_session_loudly(stripped: Path) -> None:
    """TGFAST_EXPECT_COMPILED=1 without the compiled modules must never pass as pure-only."""
    result = run_pytest(
        ["-q", "--collect-only", str(TESTS / "test_types.py")],
        stripped,
        TGFAST_EXPECT_COMPILED="1",
    )
    output = result.stdout + result.stderr
    assert result.returncode == pytest.ExitCode.USAGE_ERROR, output
    assert "TGFAST_EXPECT_COMPILED=1 but the compiled modules are not all loaded" in output
    for name in COMPILED_MODULES:
        assert f"tgfast._speedups.{name}: ModuleNotFoundError" in output
    assert "test_types.py::" not in output  # nothing was collected


def test_expect_compiled_contradicts_no_extensions() -> None:
    result = run_pytest(
        ["-q", "--collect-only", str(TESTS / "test_types.py")],
        TGFAST_EXPECT_COMPILED="1",
        TGFAST_NO_EXTENSIONS="1",
    )
    assert result.returncode == pytest.ExitCode.USAGE_ERROR, result.stdout + result.stderr
    assert "contradicts TGFAST_NO_EXTENSIONS" in result.stdout + result.stderr


@pytest.mark.parametrize("how", ["stripped", "no_extensions"])
def test_pure_only_session(how: str, stripped: Path) -> None:
    """Without the compiled build: only ``py`` items, and no twin tests at all."""
    path, env = (stripped, {}) if how == "stripped" else (None, {"TGFAST_NO_EXTENSIONS": "1"})
    files = ["test_decode.py", "test_twins.py", "test_dispatch_reference.py"]
    result = run_pytest(["-q", "--collect-only", *(str(TESTS / f) for f in files)], path, **env)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    items = [line for line in result.stdout.splitlines() if "::" in line]
    assert any(line.startswith("tests/test_decode.py::test_private_start[py]") for line in items), (
        output
    )
    assert any("test_dispatch_reference.py::" in line and "[py" in line for line in items)
    assert not any("[c]" in line or "[c-" in line or "-c]" in line for line in items), output
    assert not any("test_twins.py" in line for line in items), output
    assert "skipped" not in output


def test_full_session_collects_both() -> None:
    files = ["test_decode.py", "test_twins.py", "test_dispatch_reference.py"]
    result = run_pytest(["-q", "--collect-only", *(str(TESTS / f) for f in files)])
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    items = [line for line in result.stdout.splitlines() if "::" in line]
    assert any(line.endswith("test_private_start[py]") for line in items)
    if COMPILED is not None:
        assert any(line.endswith("test_private_start[c]") for line in items)
        assert any("test_twins.py::TestTwins" in line for line in items)
        assert any("test_dispatch_reference.py::" in line and "[c" in line for line in items)


@pytest.mark.parametrize("stripped_build", [True, False], ids=["stripped", "default"])
def test_report_header(stripped_build: bool, stripped: Path) -> None:
    result = run_pytest(
        ["--collect-only", str(TESTS / "test_types.py") + "::test_to_dict_example"],
        stripped if stripped_build else None,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    if stripped_build:
        assert f"imported from {stripped / 'tgfast'}" in result.stdout
    else:
        assert f"imported from {PACKAGE}" in result.stdout
    if stripped_build or not LOADED:
        assert "implementations under test: py (tgfast.__speedups__=False" in result.stdout
        for name in COMPILED_MODULES:
            assert f"compiled {name} unavailable" in result.stdout
    else:
        assert "implementations under test: c, py (tgfast.__speedups__=True" in result.stdout
        for name, module in LOADED.items():
            assert f"compiled {name} from {module.__file__}" in result.stdout
