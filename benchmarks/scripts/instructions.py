"""Instructions per decode, counted by valgrind's callgrind: repeatable on a noisy machine.

    python benchmarks/scripts/instructions.py                # orjson, tgfast compiled and pure, msgspec
    python benchmarks/scripts/instructions.py --calls 5000 --contender aiogram
    python benchmarks/scripts/instructions.py --section dispatch   # per dispatch_20 / decode_dispatch_20

Timings on a shared machine drift by a few percent between runs, enough to hide a
change of that size; instruction counts do not drift. For each contender
(``contenders.py``) and payload (``payloads.py``) Python runs under callgrind twice:
after the same warm-up, once with ``--calls`` decodes more than the other. The
difference divided by ``--calls`` is one decode, start-up excluded. Instructions are
not time (cache misses and branch mispredictions cost time without instructions), so
this complements the decode section's table, it does not replace it.

``--section dispatch`` counts the dispatch section's paths the same way
(``dispatch_contenders.py``: the update for the last of 20 command handlers, awaited on
uvloop as in the benchmark): both runs decode the same bodies, one feeds ``--calls``
more of them. Compare builds by putting one first on ``PYTHONPATH``.

Needs valgrind (``apt-get install -y valgrind``); about 20 s per run.
"""

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "micro"  # the contenders and payloads
DEFAULT = ("orjson", "tgfast-compiled", "tgfast-pure", "msgspec")
DISPATCH_DEFAULT = ("tgfast-compiled", "floor")
DISPATCH_PATHS = ("dispatch_20", "decode_dispatch_20")
WARM_UP = 20

# gc.freeze(): the heap made by the imports is left out of later collections, whose cost
# would otherwise depend on whether a full one falls among the counted calls or not.
CHILD = """
import gc, sys
sys.path.insert(0, {here!r})
import contenders, payloads
decode = contenders._LOADERS[{name!r}]().decode
body = payloads.PAYLOADS[{payload!r}].data
gc.collect()
gc.freeze()
for _ in range({calls}):
    decode(body)
"""


DISPATCH_CHILD = """
import gc, sys
sys.path.insert(0, {here!r})
import dispatch_contenders as dc
contender = dc.load({name!r})
loop = dc.new_loop()
raw = dc.bodies({total})[:{calls}]
if {path!r} == "dispatch_20":
    items, feed = [contender.decode(b) for b in dc.bodies({total})][:{calls}], contender.dispatch
else:
    items, feed = raw, contender.decode_dispatch
gc.collect()
gc.freeze()
loop.run_until_complete(feed(items))
contender.expect({calls})
"""


def instructions(name: str, payload: str, calls: int, total: int = 0) -> int:
    """Instructions callgrind counts for a whole Python run making ``calls`` decodes (or,
    ``payload`` being a dispatch path, ``calls`` dispatches out of ``total`` bodies)."""
    if payload in DISPATCH_PATHS:
        code = DISPATCH_CHILD.format(
            here=str(HERE), name=name, path=payload, calls=calls, total=total
        )
    else:
        code = CHILD.format(here=str(HERE), name=name, payload=payload, calls=calls)
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
         sys.executable, "-c", code],
        capture_output=True, text=True, check=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},  # str hashes (dict probes) fixed per run
    )  # fmt: skip
    found = re.search(r"I\s+refs:\s+([\d,]+)", run.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count in valgrind's output:\n{run.stderr}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="decodes counted (2000)")
    parser.add_argument(
        "--contender",
        action="append",
        help=f"repeatable; default: {', '.join(DEFAULT)} (dispatch: {', '.join(DISPATCH_DEFAULT)})",
    )
    parser.add_argument("--section", choices=("decode", "dispatch"), default="decode")
    args = parser.parse_args()
    dispatch = args.section == "dispatch"
    names = args.contender or list(DISPATCH_DEFAULT if dispatch else DEFAULT)
    floor_name = "floor" if dispatch else "orjson"
    sys.path.insert(0, str(HERE))
    from payloads import PAYLOADS

    paths = list(DISPATCH_PATHS if dispatch else PAYLOADS)
    total = WARM_UP + args.calls
    per_decode: dict[tuple[str, str], float] = {}
    for payload in paths:
        for name in names:
            base = instructions(name, payload, WARM_UP, total)
            more = instructions(name, payload, total, total)
            per_decode[name, payload] = (more - base) / args.calls
            print(f"{name} {payload}: {per_decode[name, payload]:,.0f}", file=sys.stderr)

    what, whats = ("dispatch", "dispatches") if dispatch else ("decode", "decodes")
    print(f"Instructions per {what} (callgrind, {args.calls:,} {whats}, Python {sys.version.split()[0]});"
          f" (×) = relative to {floor_name}.\n")  # fmt: skip
    print("| contender | " + " | ".join(paths) + " |")
    print("|:---|" + "---:|" * len(paths))
    for name in names:
        cells = []
        for payload in paths:
            count = per_decode[name, payload]
            floor = per_decode.get((floor_name, payload))
            cells.append(f"{count / 1000:.1f}k" + (f" ({count / floor:.2f}×)" if floor else ""))
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
