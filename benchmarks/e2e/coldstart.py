"""Cold start: wall time and peak RSS of ``python -I -c 'import X'``, tgfast beside aiogram.

    python benchmarks/e2e/coldstart.py [--runs 7] [--tgfast-path PATH]

Each import runs in a fresh interpreter (``-I``: no user site, no PYTHON* variables);
the figures are medians over the runs: the wall time seen from outside, and the peak RSS
the child reports itself (``VmHWM``). ``--tgfast-path`` puts a source tree first on
``sys.path`` (inside the ``-c`` code, since ``-I`` ignores PYTHONPATH).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

MODULES = ("tgfast", "aiogram")


def measure(module: str, runs: int, path: str = "") -> tuple[float, float] | None:
    """Median seconds and median peak RSS (MB) of importing ``module``; None if it fails.

    The peak RSS is the child's own ``VmHWM`` after the import: ``wait4``'s ``ru_maxrss``
    would count the parent's pages the child had between ``fork`` and ``exec``."""
    code = (f"import sys; sys.path.insert(0, {path!r}); " if path else "") + (
        f"import {module}; print(open('/proc/self/status').read())"
    )
    times, rss = [], []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-I", "-c", code], cwd="/", capture_output=True,
                              text=True, check=False)  # fmt: skip
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            return None
        hwm = next(line for line in done.stdout.splitlines() if line.startswith("VmHWM:"))
        rss.append(int(hwm.split()[1]) / 1024)
    return statistics.median(times), statistics.median(rss)


def table(runs: int = 7, tgfast_path: str = "") -> str:
    baseline = measure("sys", runs)
    rows = ["| import | time | peak RSS |", "|:---|---:|---:|"]
    if baseline is not None:
        rows.append(f"| (the interpreter alone) | {baseline[0] * 1000:.0f} ms | "
                    f"{baseline[1]:.1f} MB |")  # fmt: skip
    for module in MODULES:
        got = measure(module, runs, tgfast_path if module == "tgfast" else "")
        cells = ("not importable", "—") if got is None else (
            f"{got[0] * 1000:.0f} ms", f"{got[1]:.1f} MB")  # fmt: skip
        rows.append(f"| `{module}` | {cells[0]} | {cells[1]} |")
    return "\n".join(rows)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--tgfast-path", default="")
    args = p.parse_args()
    print(table(args.runs, args.tgfast_path))


if __name__ == "__main__":
    main()
