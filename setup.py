"""Builds the Cython extensions under tgfast/_speedups/, or none at all.

``TGFAST_NO_EXTENSIONS=1`` gives the pure-Python build. Otherwise every extension
must compile: a failure fails the install instead of silently shipping the slow
path (the aio-libs rule), and ends with one line saying how to get the pure build.
"""

import os
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

NO_EXTENSIONS = bool(os.environ.get("TGFAST_NO_EXTENSIONS")) or (
    sys.implementation.name != "cpython"
)
HINT = (
    "*** tgfast: compiling the extensions failed (is a C compiler installed?); "
    "for the pure-Python build: TGFAST_NO_EXTENSIONS=1 pip install tgfast ***"
)


class BuildExt(build_ext):
    """``build_ext`` whose failure ends with :data:`HINT` (and fails still)."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # CompileError, a missing compiler, a failed link
            sys.exit(f"error: {exc}\n{HINT}")


def _extensions() -> list[Extension]:
    if NO_EXTENSIONS:
        print("*** tgfast: pure-Python build (TGFAST_NO_EXTENSIONS set) ***", file=sys.stderr)
        return []
    from Cython.Build import cythonize

    # posix paths and dotted names on every platform (Windows too)
    sources = sorted(p.as_posix() for p in Path("tgfast/_speedups").glob("*.pyx"))
    extensions = [
        Extension(src.removesuffix(".pyx").replace("/", "."), [src], extra_compile_args=["-O2"])
        for src in sources
    ]
    print(f"*** tgfast: accelerated build, compiling {', '.join(sources)} ***", file=sys.stderr)
    return cythonize(extensions, compiler_directives={"language_level": "3"}, quiet=True)


setup(ext_modules=_extensions(), cmdclass={"build_ext": BuildExt})
