"""Instructions per decode, counted by valgrind's callgrind: repeatable on a noisy machine.

    python benchmarks/instructions.py                # orjson, tgfast compiled and pure, msgspec
    python benchmarks/instructions.py --calls 5000 --contender aiogram

Timings on a shared machine drift by a few percent between runs, enough to hide a
change of that size; instruction counts do not drift. For each contender
(``contenders.py``) and payload (``payloads.py``) Python runs under callgrind twice:
after the same warm-up, once with ``--calls`` decodes more than the other. The
difference divided by ``--calls`` is one decode, start-up excluded. Instructions are
not time (cache misses and branch mispredictions cost time without instructions), so
this complements the decode section's table, it does not replace it.

Needs valgrind (``apt-get install -y valgrind``); about 20 s per run.
"""

import argparse
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT = ("orjson", "tgfast-compiled", "tgfast-pure", "msgspec")
WARM_UP = 20

CHILD = """
import sys
sys.path.insert(0, {here!r})
import contenders, payloads
decode = contenders._LOADERS[{name!r}]().decode
body = payloads.PAYLOADS[{payload!r}].data
for _ in range({calls}):
    decode(body)
"""


def instructions(name: str, payload: str, calls: int) -> int:
    """Instructions callgrind counts for a whole Python run making ``calls`` decodes."""
    code = CHILD.format(here=str(HERE), name=name, payload=payload, calls=calls)
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
         sys.executable, "-c", code],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    found = re.search(r"I\s+refs:\s+([\d,]+)", run.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count in valgrind's output:\n{run.stderr}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="decodes counted (2000)")
    parser.add_argument(
        "--contender", action="append", help="repeatable; default: " + ", ".join(DEFAULT)
    )
    args = parser.parse_args()
    names = args.contender or list(DEFAULT)
    sys.path.insert(0, str(HERE))
    from payloads import PAYLOADS

    per_decode: dict[tuple[str, str], float] = {}
    for payload in PAYLOADS:
        for name in names:
            base = instructions(name, payload, WARM_UP)
            total = instructions(name, payload, WARM_UP + args.calls)
            per_decode[name, payload] = (total - base) / args.calls
            print(f"{name} {payload}: {per_decode[name, payload]:,.0f}", file=sys.stderr)

    print(f"Instructions per decode (callgrind, {args.calls:,} decodes, Python {sys.version.split()[0]});"
          " (×) = relative to orjson.loads.\n")  # fmt: skip
    print("| contender | " + " | ".join(PAYLOADS) + " |")
    print("|:---|" + "---:|" * len(PAYLOADS))
    for name in names:
        cells = []
        for payload in PAYLOADS:
            count = per_decode[name, payload]
            floor = per_decode.get(("orjson", payload))
            cells.append(f"{count / 1000:.1f}k" + (f" ({count / floor:.2f}×)" if floor else ""))
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
