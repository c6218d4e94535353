"""Magic filter benchmark: tgfast's own ``F`` (``tgfast.filters.magic``) against the
``magic-filter`` package that aiogram's ``F`` is built on, per expression: process CPU
to build it and to evaluate it on a decoded tgfast ``Message``.

    python benchmarks/micro/filters_magic.py              # about 15 s on 2 cores
    python benchmarks/micro/filters_magic.py --quick      # a few seconds, noisier

Expressions (the third with the parentheses it needs: ``&`` binds tighter than ``==`` in
Python, so without them it reads ``(F.text.startswith("a") & F.chat.type) == "private"``
in either library):

- ``F.text == "x"``
- ``F.from_user.id.in_({1, 2})``
- ``F.text.startswith("a") & (F.chat.type == "private")``

Evaluating is what the dispatcher does per update: tgfast calls ``f.check(message)``
(what ``as_filter`` hands the routing table), aiogram ``f.resolve(message)``. Each is
timed on a message it matches (the whole chain runs); before timing, each expression
must give the same verdict in both libraries on a matching and a non-matching message,
so a broken contender cannot post a time. Contenders take turns in each round; the
figure is the median over rounds of the ns of CPU per operation, the ratio the median of
per-round ratios.
"""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import orjson  # noqa: E402
from machine import machine_line  # noqa: E402

EXPRESSIONS = (
    'F.text == "x"',
    "F.from_user.id.in_({1, 2})",
    'F.text.startswith("a") & (F.chat.type == "private")',
)
CONTENDERS = ("tgfast F", "magic-filter F")


def builders(F: Any) -> list[Callable[[], Any]]:
    """The three expressions, each built anew per call (the same source for both F)."""
    return [
        lambda: F.text == "x",
        lambda: F.from_user.id.in_({1, 2}),
        lambda: F.text.startswith("a") & (F.chat.type == "private"),
    ]


def message(text: str, user_id: int, chat_type: str) -> Any:
    from tgfast.decoding import decode_update

    body = {
        "update_id": 1,
        "message": {
            "message_id": 1,
            "date": 1,
            "text": text,
            "chat": {"id": 5, "type": chat_type},
            "from": {"id": user_id, "is_bot": False, "first_name": "Ann"},
        },
    }
    return decode_update(orjson.dumps(body)).message


def evaluators() -> dict[str, list[tuple[Callable[[Any], Any], Any, Any]]]:
    """Per contender: (evaluate, a message it matches, one it does not) per expression."""
    from magic_filter import F as theirs

    from tgfast import F as ours

    hits = [message("x", 9, "group"), message("b", 2, "group"), message("abc", 9, "private")]
    misses = [message("y", 9, "group"), message("x", 3, "group"), message("abc", 9, "group")]
    return {
        "tgfast F": [
            (f().check, hit, miss)
            for f, hit, miss in zip(builders(ours), hits, misses, strict=True)
        ],
        "magic-filter F": [
            (f().resolve, hit, miss)
            for f, hit, miss in zip(builders(theirs), hits, misses, strict=True)
        ],
    }


def per_op(fn: Callable[[], Any], count: int) -> float:
    """ns of process CPU per call of ``fn`` over ``count`` calls (unrolled by 10)."""
    loops = range(count // 10)
    start = time.process_time()
    for _ in loops:
        fn(), fn(), fn(), fn(), fn(), fn(), fn(), fn(), fn(), fn()
    return (time.process_time() - start) / (len(loops) * 10) * 1e9


def measure(count: int, rounds: int) -> dict[tuple[str, str, str], list[float]]:
    from magic_filter import F as theirs

    from tgfast import F as ours

    build = {"tgfast F": builders(ours), "magic-filter F": builders(theirs)}
    evaluate = evaluators()
    for i in range(len(EXPRESSIONS)):  # the same verdicts, or no figures
        verdicts = {
            name: [bool(e[i][0](e[i][1])), bool(e[i][0](e[i][2]))] for name, e in evaluate.items()
        }
        if any(v != [True, False] for v in verdicts.values()):
            raise AssertionError(f"{EXPRESSIONS[i]}: verdicts {verdicts}, expected hit/miss")
    times: dict[tuple[str, str, str], list[float]] = {}
    for r in range(rounds):
        order = CONTENDERS if r % 2 == 0 else CONTENDERS[::-1]
        for i, expression in enumerate(EXPRESSIONS):
            for name in order:
                times.setdefault((name, expression, "build"), []).append(
                    per_op(build[name][i], count // 10)
                )
                check, hit, _ = evaluate[name][i]
                times.setdefault((name, expression, "evaluate"), []).append(
                    per_op(lambda check=check, hit=hit: check(hit), count)
                )
    return times


def render(times: dict[tuple[str, str, str], list[float]], count: int, rounds: int) -> str:
    lines = [
        f"ns of process CPU per operation, median of {rounds} rounds ({count // 10} builds, "
        f"{count} evaluations per round); evaluation on a decoded tgfast Message it matches:",
        "",
        "| expression | op | tgfast F | magic-filter F | magic-filter / tgfast |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for expression in EXPRESSIONS:
        for op in ("build", "evaluate"):
            ours = times["tgfast F", expression, op]
            theirs = times["magic-filter F", expression, op]
            ratio = statistics.median(t / o for o, t in zip(ours, theirs, strict=True))
            lines.append(
                f"| `{expression}` | {op} | {statistics.median(ours):.0f} "
                f"| {statistics.median(theirs):.0f} | {ratio:.2f}× |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer operations, noisier")
    parser.add_argument("--count", type=int, default=0, help="evaluations per round")
    parser.add_argument("--rounds", type=int, default=9, help="rounds")
    parser.add_argument("--json", metavar="PATH", help="also save the per-round figures")
    parser.add_argument("--no-machine-line", action="store_true", help="(for run.py)")
    args = parser.parse_args(argv)
    count = args.count or (40_000 if args.quick else 200_000)
    times = measure(count, args.rounds)
    if not args.no_machine_line:
        print(machine_line(("magic-filter", "aiogram")))
    print("\n## Magic filter\n")
    print(render(times, count, args.rounds))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({" / ".join(key): value for key, value in times.items()}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
