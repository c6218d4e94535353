"""tgfast as pip sees it: an sdist and a wheel built from a clean copy of the repository.

The sdist carries what the build needs (the .pyx sources) and nothing else; built in
a fresh isolated environment it compiles the extensions, and a broken source fails the
build loudly. The wheel installs into a fresh venv without a compiler and imports the
compiled build. The cibuildwheel configuration selects every release platform.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tgfast._speedups import COMPILED_MODULES

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
COMPILED = COMPILED_MODULES  # every compiled module, each with its .pyx, .pyi and _py twin

pytestmark = [pytest.mark.once, pytest.mark.timeout(600)]


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=540,
        check=False,
    )
    assert result.returncode == 0, f"{args}: {result.stdout[-3000:]}{result.stderr[-3000:]}"
    return result.stdout


def clean_copy(dest: Path) -> Path:
    """The files git knows (tracked, or new and not ignored): what a clone would have."""
    listed = run(
        "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT
    ).split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    return dest


@dataclass(frozen=True)
class Dist:
    sdist: Path
    wheel: Path


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dist]:
    """``python -m build``: the sdist, then the wheel built from that sdist (isolated)."""
    src = clean_copy(tmp_path_factory.mktemp("src"))
    out = tmp_path_factory.mktemp("dist")
    env = {k: v for k, v in os.environ.items() if k not in ("TGFAST_NO_EXTENSIONS", "PYTHONPATH")}
    run(sys.executable, "-m", "build", "--outdir", out, src, cwd=src, env=env)
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    yield Dist(sdist, wheel)


def test_the_sdist_holds_the_sources_and_nothing_else(dist: Dist) -> None:
    with tarfile.open(dist.sdist) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    for needed in ("setup.py", "pyproject.toml", "LICENSE", "README.md", "PYPI.md",
                   "CHANGELOG.md", "tgfast/py.typed"):  # fmt: skip
        assert needed in names
    for module in COMPILED:
        assert f"tgfast/_speedups/{module}.pyx" in names
        assert f"tgfast/_speedups/{module}.pyi" in names
        assert f"tgfast/_speedups/{module}_py.py" in names
    assert not [n for n in names if n.startswith(("tests/", "benchmarks/", "tools/", "docs/"))]
    assert not [n for n in names if n.endswith((".c", ".so", ".pyc"))]


def test_the_wheel_holds_the_compiled_build_and_its_stubs(dist: Dist) -> None:
    with zipfile.ZipFile(dist.wheel) as whl:
        names = set(whl.namelist())
    assert "tgfast/py.typed" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    for module in COMPILED:
        assert [
            n
            for n in names
            if n.startswith(f"tgfast/_speedups/{module}.") and n.endswith((".so", ".pyd"))
        ], module
        assert f"tgfast/_speedups/{module}.pyi" in names
    stray = [
        n
        for n in names
        if not n.startswith(("tgfast/", "tgfast-"))
        or n.endswith((".c", ".pyx", ".pyc", ".o"))
        or "/build/" in n
    ]
    assert stray == []
    assert f"-cp{sys.version_info[0]}{sys.version_info[1]}-" in dist.wheel.name


def test_the_wheel_installs_without_a_compiler_and_runs_compiled(
    dist: Dist, tmp_path: Path
) -> None:
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    # no compiler can be found, and pip may not build anything from source
    env = {k: v for k, v in os.environ.items() if k not in ("TGFAST_NO_EXTENSIONS", "PYTHONPATH")}
    env |= {"CC": "false", "CXX": "false", "PATH": f"{venv / 'bin'}:/usr/bin:/bin"}
    run(
        python,
        "-m",
        "pip",
        "install",
        "-q",
        "--only-binary=:all:",
        dist.wheel,
        cwd=tmp_path,
        env=env,
    )
    out = run(
        python,
        "-I",
        "-c",
        "import tgfast, tgfast._speedups._decode as d, tgfast._speedups._routing as r;"
        "print(tgfast.__speedups__, d.__file__, r.__file__)",
        cwd=tmp_path,
        env=env,
    )
    speedups, *files = out.split()
    assert speedups == "True"
    assert all(f.startswith(str(venv)) and f.endswith(".so") for f in files), files
    assert run(venv / "bin" / "tgfast", "--version", cwd=tmp_path, env=env).strip()


def test_the_wheel_is_manylinux_compatible(dist: Dist) -> None:
    """What cibuildwheel's repair step checks: only manylinux-allowed libraries are linked."""
    out = run(BIN / "auditwheel", "show", dist.wheel, cwd=dist.wheel.parent)
    assert "manylinux_" in out, out


def test_a_broken_source_fails_the_build_loudly(tmp_path: Path) -> None:
    src = clean_copy(tmp_path / "src")
    pyx = src / "tgfast" / "_speedups" / "_routing.pyx"
    pyx.write_text(pyx.read_text(encoding="utf-8") + "\ncdef int broken(:\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("TGFAST_NO_EXTENSIONS", "PYTHONPATH")}
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path / "out"), str(src)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert result.returncode != 0
    assert "_routing.pyx" in result.stdout + result.stderr
    assert not list(tmp_path.glob("out/*.whl"))


@pytest.mark.parametrize(
    ("platform", "expected"),
    [
        (
            "linux",
            {
                "cp310-manylinux_x86_64",
                "cp313-manylinux_aarch64",
                "cp312-musllinux_x86_64",
                "cp311-musllinux_aarch64",
            },
        ),
        ("macos", {"cp310-macosx_x86_64", "cp313-macosx_arm64"}),
        ("windows", {"cp310-win_amd64", "cp313-win_amd64"}),
    ],
)
def test_cibuildwheel_selects_every_release_platform(platform: str, expected: set[str]) -> None:
    out = run(
        BIN / "cibuildwheel", "--print-build-identifiers", "--platform", platform, ROOT, cwd=ROOT
    )
    identifiers = set(out.split())
    assert expected <= identifiers, identifiers
    assert not [i for i in identifiers if i.startswith(("pp", "cp38", "cp39")) or "i686" in i]
    supported = {f"cp3{minor}" for minor in range(10, 15)}
    assert {i.split("-")[0] for i in identifiers} == supported


def test_no_compiler_ends_with_how_to_get_the_pure_build(tmp_path: Path) -> None:
    """Without a working C compiler the build fails, and its last line says what to do."""
    src = clean_copy(tmp_path / "src")
    env = {k: v for k, v in os.environ.items() if k not in ("TGFAST_NO_EXTENSIONS", "PYTHONPATH")}
    env.update(CC="/bin/false", LDSHARED="/bin/false")  # a compiler that always fails
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path / "out"), str(src)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert not list(tmp_path.glob("out/*.whl"))
    # pip quotes the build's own output up to "[end of output]": the hint ends it
    lines = [line.strip(" │") for line in output.splitlines()]
    end = next(i for i, line in enumerate(lines) if line.strip() == "[end of output]")
    last = next(line for line in reversed(lines[:end]) if line.strip())
    assert "TGFAST_NO_EXTENSIONS=1 pip install tgfast" in last, output[-3000:]
    assert "compiling the extensions failed" in last


def test_the_metadata_is_what_pypi_shows(dist: Dist) -> None:
    """Project URLs, classifiers, the PyPI description (PYPI.md), aiogram's extra names,
    and no tools for working on tgfast among the extras (they are dependency groups)."""
    with zipfile.ZipFile(dist.wheel) as wheel:
        (name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = wheel.read(name).decode()
    head, _, body = metadata.partition("\n\n")
    fields = [line.split(": ", 1) for line in head.splitlines() if ": " in line]
    values = lambda key: [v for k, v in fields if k == key]  # noqa: E731
    assert {u.split(",")[0] for u in values("Project-URL")} >= {
        "Homepage",
        "Source",
        "Issues",
        "Changelog",
        "Documentation",
    }
    assert len(values("Classifier")) >= 15
    assert "Programming Language :: Python :: 3.13" in values("Classifier")
    assert values("Description-Content-Type") == ["text/markdown"]
    assert body.startswith("# tgfast") and "TGFAST_NO_EXTENSIONS=1 pip install" in body
    assert "scripts/test.sh" not in body  # README.md's set-up is for the repository
    extras = set(values("Provides-Extra"))
    assert {"redis", "proxy", "socks", "i18n", "otel", "signature"} <= extras
    assert "test" not in extras and "docs" not in extras
    requires = " ".join(values("Requires-Dist"))
    assert "cibuildwheel" not in requires and "mkdocs" not in requires
