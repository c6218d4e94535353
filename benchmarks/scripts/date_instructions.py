"""Instructions per decode when the update's date repeats (cache hit) and when it does not.

    python benchmarks/scripts/date_instructions.py                    # the installed tgfast
    python benchmarks/scripts/date_instructions.py /tmp/old /tmp/new  # builds made with pip --target

The compiled decoder keeps the last Unix time it turned into a ``datetime``: ``hit``
decodes the same body ``--calls`` times, ``miss`` as many bodies whose dates all
differ, so every date is built. Each figure is one valgrind (callgrind) run per
contender: ``globals()`` is called just before and after the counted decodes and
``--dump-before=builtin_globals`` splits the counts there. GC is off while counting
(collections would land in one run and not another). Needs valgrind; ~40 s a run.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "micro"  # the contenders and payloads

CHILD = """
import gc, json, sys
sys.path.insert(0, {here!r})
import orjson
from payloads import LARGE_UPDATE, SMALL_UPDATE, dump
from tgfast._speedups import _decode
assert _decode.__file__.endswith(".so"), "the compiled decoder is not loaded"
update = {{"small": SMALL_UPDATE, "large": LARGE_UPDATE}}[{payload!r}]

def body(i):
    u = json.loads(json.dumps(update))
    u["message"]["date"] += 7 * i
    return dump(u)

n = {calls} + 50
items = [body(0)] * n if {mode!r} == "hit" else [body(i) for i in range(n)]
decode = orjson.loads if {who!r} == "orjson" else _decode.decode_update
for b in items[:50]:
    decode(b)
gc.collect()
gc.disable()
kept = []
globals()
for b in items[50:]:
    kept.append(decode(b))
globals()
"""


def per_decode(path: str | None, payload: str, mode: str, who: str, calls: int) -> float:
    code = CHILD.format(here=str(HERE), payload=payload, mode=mode, who=who, calls=calls)
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    if path:
        env["PYTHONPATH"] = path
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
             "--dump-before=builtin_globals", sys.executable, "-c", code],
            env=env, capture_output=True, text=True, cwd=tmp, check=False,
        )  # fmt: skip
        dumps = sorted(glob.glob(out + ".*"), key=lambda p: int(p.rsplit(".", 1)[1]))
        if not dumps:
            raise RuntimeError(f"callgrind wrote no dump:\n{run.stderr[-2000:]}")
        # the last dump is made at the second globals(): it holds the counted decodes
        match = re.search(r"^(?:summary|totals): (\d+)", Path(dumps[-1]).read_text(), re.M)
        if match is None:
            raise RuntimeError(f"no totals in {dumps[-1]}")
        return int(match.group(1)) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("builds", nargs="*", help="directories to put first on PYTHONPATH")
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    print(f"Instructions per decode (callgrind, {args.calls:,} decodes, GC off)\n")
    print("| build | payload | dates | orjson.loads | tgfast compiled | ratio |")
    print("|:---|:---|:---|---:|---:|---:|")
    for build in args.builds or [None]:
        for payload in ("small", "large"):
            for mode in ("hit", "miss"):
                floor = per_decode(build, payload, mode, "orjson", args.calls)
                ours = per_decode(build, payload, mode, "tgfast", args.calls)
                print(
                    f"| {build or 'installed'} | {payload} | {mode} | {floor:,.0f} | "
                    f"{ours:,.0f} | {ours / floor:.3f}× |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
