#!/usr/bin/env bash
# Set up and test tgfast on a fresh machine:
#   1. create .venv and install tgfast with its compiled extensions (+ test extras);
#   2. run the whole suite against that build (each test through both the compiled
#      module and its pure twin), requiring the compiled build to be loaded;
#   3. build tgfast again with TGFAST_NO_EXTENSIONS=1 (no compiled module at all)
#      and run the whole suite against that pure-Python build.
# Extra arguments go to pytest, e.g. scripts/test.sh -k decode -x
# pytest runs as .venv/bin/pytest, not python -m pytest, so that the installed
# build is imported and never the source tree in the current directory.
set -euo pipefail
cd "$(dirname "$0")/.."

# the FSM, rate limiter and seen-updates tests run against a real redis-server, the
# scale-out tests behind a real nginx
missing=()
command -v redis-server >/dev/null || missing+=(redis-server)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq && apt-get install -y -qq "${missing[@]}"
fi

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
echo "== installing tgfast (accelerated build) =="
.venv/bin/python -m pip install -q --force-reinstall --no-deps .
# the bench extra too: tests check that the benchmark harnesses (aiogram contenders) still run
.venv/bin/python -m pip install -q '.[test,bench]'
.venv/bin/python -I -c 'import tgfast, sys; print("tgfast", tgfast.__version__, "compiled" if tgfast.__speedups__ else "PURE", "from", tgfast.__file__); sys.exit(0 if tgfast.__speedups__ else 1)'

echo "== test suite: compiled build (c and py twins) =="
TGFAST_EXPECT_COMPILED=1 .venv/bin/pytest -q tests "$@"

echo "== building the pure-Python build (TGFAST_NO_EXTENSIONS=1) =="
pure=$(mktemp -d)
trap 'rm -rf "$pure"' EXIT
TGFAST_NO_EXTENSIONS=1 .venv/bin/python -m pip install -q --no-deps --no-cache-dir --target "$pure" .
if find "$pure/tgfast" -name '*.so' | grep -q .; then
  echo "pure build contains compiled modules" >&2
  exit 1
fi

echo "== test suite: pure-Python build =="
PYTHONPATH="$pure" TGFAST_EXPECT_PURE=1 .venv/bin/pytest -q tests "$@"
