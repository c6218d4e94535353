#!/usr/bin/env bash
# Set up and test tgfast on a fresh machine, on every supported Python:
#   1. Python 3.11 (python3, or $PYTHON): create .venv, install tgfast with its compiled
#      extensions (+ test and bench extras) and run the whole suite against that build
#      (each twin test through both the compiled module and its pure twin), requiring
#      the compiled build to be loaded;
#   2. build tgfast again with TGFAST_NO_EXTENSIONS=1 (no compiled module at all) and run
#      the suite against that pure-Python build, less the tests marked `once` (lint,
#      docs, generator, packaging: they do not depend on the build);
#   3. Python 3.10, 3.12 and 3.13 ($TGFAST_TEST_PYTHONS): a .venv-3.X each, the compiled
#      build, the suite less `once` and `slow` (the long fleet and load tests);
#   4. Debian's debug interpreter (python3-dbg): the compiled build under the tests that
#      exercise its CPython internals, where a reference-count mistake aborts.
# After the first install, 1 runs in one lane, 2 and 3 and 4 in two more, side by side;
# each lane's output is printed when all are done, then one line per stage.
# Extra arguments go to every pytest run, e.g. scripts/test.sh -k decode -x
# pytest runs as .venv*/bin/pytest, not python -m pytest, so that the installed build is
# imported and never the source tree in the current directory.
set -euo pipefail
cd "$(dirname "$0")/.."

OTHER_PYTHONS=${TGFAST_TEST_PYTHONS-3.10 3.12 3.13}
DEBUG_RUN=${TGFAST_TEST_DEBUG-1}
# the modules that drive the compiled decoder and router (tests/test_speedups.py too)
DEBUG_TESTS=(tests/test_decode.py tests/test_twins.py tests/test_speedups_dealloc.py
  tests/test_speedups_refcounts.py tests/test_speedups.py tests/test_dispatcher_coroutine.py
  tests/test_dispatcher_reference.py tests/test_dispatcher_kinds.py tests/test_types.py)

# the FSM, rate limiter and seen-updates tests run against a real redis-server, the
# scale-out tests behind a real nginx; python3-dbg is CPython built with Py_DEBUG
missing=()
command -v redis-server >/dev/null || missing+=(redis-server)
# the failover tests: three sentinels (Debian ships them in their own package)
command -v redis-sentinel >/dev/null || missing+=(redis-sentinel)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
# promtool (Debian's prometheus package) checks the /metrics page (tests/test_server_metrics.py)
command -v promtool >/dev/null || missing+=(prometheus)
if [ "$DEBUG_RUN" = 1 ]; then
  command -v python3-dbg >/dev/null || missing+=(python3-dbg python3-dev)
  python3 -c 'import ensurepip' 2>/dev/null || missing+=(python3-venv)
fi
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq && apt-get install -y -qq "${missing[@]}"
fi

# find_python 3.X: that interpreter on PATH, else pyenv's build of it; fails loudly
find_python() {
  local exe
  for exe in "python$1" "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$1".*/bin/"python$1"; do
    if "$exe" -c 'import sys' >/dev/null 2>&1; then
      command -v "$exe"
      return
    fi
  done
  echo "Python $1 not found (on PATH or under pyenv): it is a supported version" >&2
  return 1
}

# install VENV PYTHON GROUPS: a venv with tgfast's compiled build freshly installed, and
# the dependency groups (pyproject's [dependency-groups], pip >= 25.1), comma-separated
# (bench is an extra: the benchmarks' contenders).
# Builds happen in the source tree (build/), so they take turns: the lanes below overlap
# their test runs, never their builds.
LOCK=$(mktemp)
install() {
  local venv=$1 python=$2 groups=$3 group extras=() args=()
  for group in ${groups//,/ }; do
    if [ "$group" = bench ]; then extras+=(bench); else args+=(--group "$group"); fi
  done
  [ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
  (
    flock 9
    rm -rf build  # setuptools reuses build/lib: a module deleted since would come back
    "$venv/bin/python" -m pip install -q --upgrade pip
    "$venv/bin/python" -m pip install -q --force-reinstall --no-deps .
    local target=.
    [ ${#extras[@]} -gt 0 ] && target=".[$(IFS=,; echo "${extras[*]}")]"
    "$venv/bin/python" -m pip install -q "$target" "${args[@]}"
  ) 9>"$LOCK"
  "$venv/bin/python" -I -c 'import tgfast, sys; print("tgfast", tgfast.__version__, "on Python", sys.version.split()[0], "compiled" if tgfast.__speedups__ else "PURE", "from", tgfast.__file__); sys.exit(0 if tgfast.__speedups__ else 1)'
}

compiled() {
  echo "== test suite: compiled build (c and py twins) =="
  TGFAST_EXPECT_COMPILED=1 .venv/bin/pytest -q tests "$@"
}

pure() {
  echo "== building the pure-Python build (TGFAST_NO_EXTENSIONS=1) =="
  ( flock 9; rm -rf build
    TGFAST_NO_EXTENSIONS=1 .venv/bin/python -m pip install -q --no-deps --no-cache-dir --target "$PURE" .
  ) 9>"$LOCK"
  if find "$PURE/tgfast" -name '*.so' | grep -q .; then
    echo "pure build contains compiled modules" >&2
    return 1
  fi
  echo "== test suite: pure-Python build =="
  PYTHONPATH="$PURE" TGFAST_EXPECT_PURE=1 .venv/bin/pytest -q -m "not once" tests "$@"
}

other() {
  local version=$1; shift
  echo "== test suite: compiled build on Python $version =="
  install ".venv-$version" "$(find_python "$version")" test,bench  # bench: its tests must import
  TGFAST_EXPECT_COMPILED=1 ".venv-$version/bin/pytest" -q -m "not once and not slow" tests "$@"
}

debug() {
  echo "== compiled build on a debug interpreter (python3-dbg) =="
  install .venv-dbg python3-dbg test
  .venv-dbg/bin/python -c 'import sys; assert hasattr(sys, "gettotalrefcount"), "not a debug build"'
  TGFAST_EXPECT_COMPILED=1 .venv-dbg/bin/pytest -q -m "not once and not slow" "${DEBUG_TESTS[@]}" "$@"
}

# lane NAME STAGE...: runs the stages one after the other, each "STAGE ARG" a command,
# into logs/NAME; its status in logs/NAME.rc
LOGS=$(mktemp -d)
lane() {
  local name=$1; shift
  local status=0 stage
  for stage in "$@"; do
    SECONDS=0
    set +e
    # shellcheck disable=SC2086  # a stage is a function and its words; -e stops it at a failed step
    ( set -e; $stage "${ARGS[@]}" ) >>"$LOGS/$name" 2>&1
    status=$?
    set -e
    echo "-- $stage: $([ $status = 0 ] && echo ok || echo "FAILED ($status)") in ${SECONDS}s" >>"$LOGS/$name"
    [ $status = 0 ] || break
  done
  echo $status >"$LOGS/$name.rc"
}

ARGS=("$@")
PYTHON=${PYTHON:-python3}
PURE=$(mktemp -d)
trap 'rm -rf "$PURE" "$LOGS" "$LOCK"' EXIT
echo "== installing tgfast (accelerated build) =="
# the bench extra too: tests check that the benchmark harnesses (aiogram contenders) still run
install .venv "$PYTHON" test,bench

# The suite waits on servers and subprocesses about half of its time (one run uses 55%
# of a core), so three lanes share two cores well: the 3.11 compiled run alone (it has
# the slow fleet tests), the pure build then one other Python, the rest then the debug
# interpreter. Each lane's output is printed whole when all are done.
others=($OTHER_PYTHONS)
second=(pure) third=()
for index in "${!others[@]}"; do
  if [ $((index % 2)) = 0 ]; then third+=("other ${others[$index]}"); else second+=("other ${others[$index]}"); fi
done
[ "$DEBUG_RUN" = 1 ] && third+=(debug)
lane compiled compiled &
lane second "${second[@]}" &
[ ${#third[@]} -gt 0 ] && lane third "${third[@]}" &
wait

status=0
for name in compiled second third; do
  [ -f "$LOGS/$name.rc" ] || continue
  echo; echo "######## lane $name ########"
  cat "$LOGS/$name"
  [ "$(cat "$LOGS/$name.rc")" = 0 ] || status=1
done
echo
grep -h '^-- ' "$LOGS"/compiled "$LOGS"/second "$LOGS"/third 2>/dev/null || true
exit $status
