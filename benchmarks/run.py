"""Run the tgfast benchmarks and print the results as Markdown.

    python benchmarks/run.py            # full run (~4 min on 2 cores)
    python benchmarks/run.py --quick    # smoke run (~1 min), noisier numbers
    python benchmarks/run.py --json out.json -- --benchmark-disable-gc
    python benchmarks/run.py --section e2e      # end-to-end sweep, issue #6 (8-20 min)
    python benchmarks/run.py --section scale    # through nginx, 1 and 2 workers (4-10 min)
    python benchmarks/run.py --section redis --section magic   # issue #18 (~30 s)
    python benchmarks/run.py --all              # everything (~20-35 min; --quick ~8 min)

The end-to-end sweeps (``e2e``, ``scale``) take minutes each, so the default run
leaves them out: name them with ``--section`` or pass ``--all``.  Like the
micro benchmarks they measure the *installed* tgfast (``--tgfast-path ''``).

Output (stdout): first a one-line machine description, then one Markdown
section per benchmark file.  pytest's own progress goes to stderr, so
``run.py > results.md`` captures just the report.

Each section is a pytest-benchmark file in this directory plus a function
that renders its results.  To add one (e2e, ...):
write ``test_<thing>.py`` that sets ``benchmark.extra_info["section"]`` and
whatever else its renderer needs, write ``render_<thing>(benchmarks)``
returning Markdown, and append a ``Section`` to ``SECTIONS``.

A benchmark that is not a pytest-benchmark (the client round trip runs its
own mock server process) is a script in this directory that prints its own
Markdown section and takes ``--quick``, ``--json PATH`` and
``--no-machine-line``: append a ``Script`` to ``SCRIPTS``.

Timing choices
* The median of per-round means is reported: robust to the odd descheduled
  round on a noisy 2-core machine.
* Rounds are at least ``min-time`` long (many calls each) so a single round
  is not dominated by timer resolution or by one GC pass.
* GC stays ENABLED (pytest-benchmark's default).  Decoders differ in how many
  GC-tracked objects they allocate (dicts, lists, models), and the collections
  that allocation triggers are a real cost a bot pays per update; disabling GC
  would flatter the allocation-heavy contenders.  Pass
  ``-- --benchmark-disable-gc`` to see the numbers without it.
"""

import sys

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__

import argparse  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent
MICRO = HERE / "micro"  # the micro benchmarks and their helpers (machine, payloads...)
sys.path.insert(0, str(MICRO))

from machine import cpu_model, version  # noqa: E402

# pytest-benchmark settings.  20 decode benchmarks:
# full  ~ 20 x (5 s + calibration) ~ 2 min;  quick ~ 20 x (1 s + ...) ~ 30 s.
TIMING = {
    "full": {
        "--benchmark-max-time": "5.0",
        "--benchmark-min-time": "0.0002",  # >= 200 us of calls per round
        "--benchmark-min-rounds": "25",
        "--benchmark-warmup": "on",
        "--benchmark-warmup-iterations": "2000",
    },
    "quick": {
        "--benchmark-max-time": "1.0",
        "--benchmark-min-time": "0.0001",
        "--benchmark-min-rounds": "10",
        "--benchmark-warmup": "on",
        "--benchmark-warmup-iterations": "300",
    },
}


# --------------------------------------------------------------------------
# machine line
# --------------------------------------------------------------------------


def _tgfast_state() -> str:
    try:
        import tgfast
    except Exception as exc:  # noqa: BLE001 - not built / not installed yet: say so, go on
        return f"tgfast not importable ({type(exc).__name__})"
    tgfast_version = getattr(tgfast, "__version__", None) or version("tgfast")
    compiled = getattr(tgfast, "__speedups__", None)
    state = {True: "compiled", False: "NOT compiled (pure Python)"}.get(compiled, "compiled=?")
    try:  # an in-place build that predates its source measures old code
        from tgfast._speedups import _decode

        built = Path(_decode.__file__)
        source = built.parent / "_decode.pyx"
        in_place = (built.parents[2] / "pyproject.toml").exists()  # not an installed copy
        if in_place and source.exists() and source.stat().st_mtime > built.stat().st_mtime:
            state += " (WARNING: _decode extension is older than _decode.pyx: stale build?)"
    except Exception:  # noqa: BLE001 - only a warning is at stake
        pass
    return f"tgfast {tgfast_version} {state}"


def machine_line() -> str:
    deps = ", ".join(
        f"{name} {version(dist)}"
        for name, dist in (
            ("orjson", "orjson"),
            ("msgspec", "msgspec"),
            ("aiogram", "aiogram"),
            ("pydantic", "pydantic"),
            ("Cython", "Cython"),
            ("pytest-benchmark", "pytest-benchmark"),
        )
    )
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"machine: {cpu_model()}, {os.cpu_count()} cores | "
        f"{platform.python_implementation()} {platform.python_version()} | "
        f"{platform.platform()} | {deps} | {_tgfast_state()} | {now}"
    )


# --------------------------------------------------------------------------
# running pytest-benchmark
# --------------------------------------------------------------------------


def run_pytest(
    files: list[str],
    mode: str,
    extra: list[str],
    section_args: list[str],
    env_overrides: dict[str, str] | None = None,
) -> tuple[int, list[dict]]:
    """Run the given benchmark files; return (pytest exit code, benchmark records)."""
    timing = [f"{k}={v}" for k, v in TIMING[mode].items()]
    with tempfile.TemporaryDirectory(prefix="tgfast-bench-") as tmp:
        out = Path(tmp) / "results.json"
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "-c",
            str(MICRO / "pytest.ini"),
            "--rootdir",
            str(MICRO),
            "-p",
            "no:cacheprovider",
            "-q",
            "-rfEs",
            "--benchmark-only",
            "--benchmark-quiet",
            f"--benchmark-json={out}",
            f"--benchmark-storage=file://{tmp}/storage",
            *timing,
            *section_args,
            *extra,
            *files,
        ]
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **(env_overrides or {}))
        # cwd=MICRO: the repo root is not put on sys.path, so the *installed*
        # tgfast (with its compiled extension) is measured, never the bare
        # source tree.  pytest's chatter goes to stderr; stdout is the report.
        proc = subprocess.run(cmd, cwd=MICRO, env=env, stdout=sys.stderr, check=False)
        records = json.loads(out.read_text())["benchmarks"] if out.exists() else []
    return proc.returncode, records


# --------------------------------------------------------------------------
# formatting helpers
# --------------------------------------------------------------------------


def fmt_time(seconds: float) -> str:
    us = seconds * 1e6
    if us < 10:
        return f"{us:.2f} µs"
    if us < 100:
        return f"{us:.1f} µs"
    return f"{us:.0f} µs"


def fmt_ratio(r: float) -> str:
    return f"{r:.2f}×" if r < 10 else f"{r:.1f}×"


def md_table(header: list[str], rows: list[list[str]]) -> str:
    """First column left-aligned (labels), the rest right-aligned (numbers)."""
    lines = ["| " + " | ".join(header) + " |"]
    lines.append("|" + "|".join([":---"] + ["---:"] * (len(header) - 1)) + "|")
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def noise_line(records: list[dict]) -> str:
    """How trustworthy the medians are: rounds taken and worst relative IQR."""
    if not records:
        return ""
    rounds = [r["stats"]["rounds"] for r in records]
    worst = max(records, key=lambda r: r["stats"]["iqr"] / r["stats"]["median"])
    rel = worst["stats"]["iqr"] / worst["stats"]["median"]
    return (
        f"Rounds per benchmark: {min(rounds)}–{max(rounds)} "
        f"(median {statistics.median(rounds):.0f}); widest spread: IQR = {rel:.1%} of median "
        f"({worst['name']})."
    )


# --------------------------------------------------------------------------
# section: decode
# --------------------------------------------------------------------------


def render_decode(records: list[dict]) -> str:
    import contenders
    from payloads import PAYLOADS
    from test_decode import MODES

    available, missing = contenders.load()
    median: dict[tuple[str, str, str], float] = {}
    for r in records:
        info = r["extra_info"]
        if info.get("section") == "decode":
            median[(info["contender"], info["payload"], info["mode"])] = r["stats"]["median"]

    columns = [(p, m) for p in PAYLOADS for m in MODES]
    # Drop columns nobody was timed in (deselected with -k), keep all if none ran.
    columns = [c for c in columns if any(k[1:] == c for k in median)] or columns
    header = ["contender"] + [f"{p} · {m}" for p, m in columns]

    def cell(name: str, p: str, m: str) -> str:
        t = median.get((name, p, m))
        if t is None:
            return "missing" if name in missing else "—"
        floor = median.get((contenders.FLOOR, p, m))
        return fmt_time(t) + (f" ({fmt_ratio(t / floor)})" if floor else "")

    rows = []
    for name in contenders.NAMES:
        label = f"{name} (floor)" if name == contenders.FLOOR else name
        rows.append([label] + [cell(name, p, m) for p, m in columns])

    def ratio_row(num: str, den: str) -> list[str]:
        out = [f"{num} / {den}"]
        for p, m in columns:
            a, b = median.get((num, p, m)), median.get((den, p, m))
            out.append(fmt_ratio(a / b) if a and b else "n/a")
        return out

    ratios = [
        ratio_row("aiogram", "tgfast-compiled"),
        ratio_row("tgfast-compiled", "msgspec"),
        ratio_row("aiogram", "tgfast-pure"),
    ]

    sizes = ", ".join(f"{p.name} = {len(p.data)} B" for p in PAYLOADS.values())
    parts = [
        "## Decode: webhook body → typed update",
        "",
        f"Median time per update; (×) = relative to the orjson floor. Payloads: {sizes}. "
        "`decode+touch` also reads message.text, message.chat.id and message.from.id.",
        "",
        md_table(header, rows),
        "",
        "Ratios (> 1× means the left one is slower):",
        "",
        md_table(["ratio"] + header[1:], ratios),
    ]
    notes = [noise_line(records)]
    for name in contenders.NAMES:
        if name in missing:
            notes.append(f"Missing `{name}`: {missing[name]}")
        elif name in available:
            gaps = [f"{p} · {m}" for p, m in columns if (name, p, m) not in median]
            if gaps:
                notes.append(
                    f"`{name}`: no timing for {', '.join(gaps)} "
                    "(failed its correctness check, or deselected: see pytest output on stderr)."
                )
    parts += ["", *(f"- {n}" for n in notes if n)]
    return "\n".join(parts)


# --------------------------------------------------------------------------
# section: dispatch
# --------------------------------------------------------------------------

# The bar of issue #4, all ratios within one process.
DISPATCH_FLOOR_BAR = 2.0  # compiled / floor, at most
DISPATCH_AIOGRAM_BAR = 100.0  # aiogram / compiled decode_dispatch_20, at least
DISPATCH_PURE_BAR = 20.0  # aiogram / pure, at least


def render_dispatch(records: list[dict]) -> str:
    import dispatch_contenders as dc
    from test_dispatch import PATHS

    # (pure process?, contender, path) -> median per dispatch
    per: dict[tuple[bool, str, str], float] = {}
    batch: dict[str, int] = {}
    for r in records:
        info = r["extra_info"]
        if info.get("section") == "dispatch":
            key = (bool(info.get("no_extensions")), info["contender"], info["path"])
            per[key] = r["stats"]["median"] / info["batch"]
            batch[info["contender"]] = info["batch"]
    paths = [p for p in PATHS if any(k[2] == p for k in per)] or list(PATHS)
    processes = sorted({k[0] for k in per}) or [False]
    pure_process = True in processes
    # Which process holds each tgfast contender's figures.
    home = {"tgfast-compiled": False, "tgfast-pure": pure_process}

    def t(proc: bool, name: str, path: str) -> float | None:
        return per.get((proc, name, path))

    def ratio(proc: bool, num: str, den: str, path: str) -> float | None:
        a, b = t(proc, num, path), t(proc, den, path)
        return a / b if a and b else None

    def process_label(proc: bool) -> str:
        return f"2 ({dc.PURE_ENV}=1)" if proc else "1"

    rows = []
    for proc in processes:
        for name in dc.NAMES:
            if name in home and home[name] != proc:
                continue
            label, cells = name, []
            for path in paths:
                v = t(proc, name, path)
                floor = t(proc, dc.FLOOR, path)
                cells.append(
                    "—"
                    if v is None
                    else fmt_time(v) + (f" ({fmt_ratio(v / floor)})" if floor else "")
                )
            if len(processes) > 1:
                rows.append([label, process_label(proc), *cells])
            else:
                rows.append([label, *cells])
    header = ["contender", *(["process"] if len(processes) > 1 else []), *paths]

    def ratio_row(proc: bool, num: str, den: str) -> list[str]:
        out = [f"{num} / {den}"]
        if len(processes) > 1:
            out.append(process_label(proc))
        for path in paths:
            r = ratio(proc, num, den, path)
            out.append(fmt_ratio(r) if r else "n/a")
        return out

    pure = home["tgfast-pure"]
    ratios = [
        ratio_row(False, "tgfast-compiled", dc.FLOOR),
        ratio_row(False, "aiogram", "tgfast-compiled"),
        ratio_row(False, "aiogram", dc.FLOOR),
        ratio_row(pure, "tgfast-pure", dc.FLOOR),
        ratio_row(pure, "aiogram", "tgfast-pure"),
    ]

    def shown(r: float | None) -> str:
        return "n/a" if r is None else fmt_ratio(r)

    def verdict(ok: bool | None) -> str:
        return "n/a" if ok is None else ("PASS" if ok else "FAIL")

    bars = []
    for path, what in (("dispatch_20", "the floor"), ("decode_dispatch_20", "its floor")):
        if path in paths:
            r = ratio(False, "tgfast-compiled", dc.FLOOR, path)
            bars.append(
                [
                    f"compiled `{path}` ≤ {DISPATCH_FLOOR_BAR:g}× {what}",
                    f"compiled / floor {shown(r)}",
                    verdict(None if r is None else r <= DISPATCH_FLOOR_BAR),
                ]
            )
    if "decode_dispatch_20" in paths:
        r = ratio(False, "aiogram", "tgfast-compiled", "decode_dispatch_20")
        bars.append(
            [
                f"compiled `decode_dispatch_20` ≥ {DISPATCH_AIOGRAM_BAR:g}× faster than aiogram",
                f"aiogram / compiled {shown(r)}",
                verdict(None if r is None else r >= DISPATCH_AIOGRAM_BAR),
            ]
        )
    rs = [ratio(pure, "aiogram", "tgfast-pure", p) for p in paths]
    bars.append(
        [
            f"pure twin ≥ {DISPATCH_PURE_BAR:g}× faster than aiogram (both paths)",
            "aiogram / pure "
            + ", ".join(f"{p} {shown(r)}" for p, r in zip(paths, rs, strict=True)),
            verdict(None if None in rs else all(r >= DISPATCH_PURE_BAR for r in rs)),
        ]
    )

    sizes = ", ".join(f"{n} {b:,}" for n, b in batch.items())
    parts = [
        "## Dispatch: 20 `Command` handlers, every update for the last one (`/cmd19`)",
        "",
        "Median time per dispatch (a round feeds a batch of updates with distinct ids, one "
        "`await` each, inside one `run_until_complete` on one uvloop loop; figure = round / "
        f"batch; batch: {sizes or 'n/a'}); (×) = relative to the floor of the same process. "
        "`dispatch_20` feeds decoded updates (decoded before the timing), "
        "`decode_dispatch_20` the raw webhook bodies (decode + dispatch). Every handler call "
        "is counted and checked after each benchmark.",
        "",
        md_table(header, rows),
        "",
        "Ratios (> 1× means the left one is slower):",
        "",
        md_table(["ratio", *header[1:]], ratios),
        "",
        "### Against the bar of issue #4 (same run; each ratio within one process)",
        "",
        md_table(["bar", "result", "met"], bars),
    ]
    notes = [noise_line([r for r in records if r["extra_info"].get("section") == "dispatch"])]
    if pure_process:
        notes.append(
            f"Process 2 ran with `{dc.PURE_ENV}=1` against the same installed build: tgfast "
            "picks compiled or pure modules once, at import, so there every tgfast module is "
            "its pure-Python twin (decoder included); it measures its own floor and aiogram, "
            "and the pure twin's ratios use those."
        )
    for name in dc.NAMES:
        proc = home.get(name, False)
        gaps = [p for p in paths if (proc, name, p) not in per]
        if not gaps:
            continue
        try:
            dc.load(name)
            reason = "failed its correctness check or was deselected: see pytest output on stderr"
        except dc.Missing as exc:
            reason = str(exc)
            if name == dc.PURE and pure_process and "separate process" in reason:
                reason = "see the output of process 2 on stderr"
        notes.append(f"No timing for `{name}` ({', '.join(gaps)}): {reason}.")
    parts += ["", *(f"- {n}" for n in notes if n)]
    return "\n".join(parts)


# --------------------------------------------------------------------------
# sections
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Section:
    key: str
    files: list[str]  # benchmark files, relative to benchmarks/
    render: Callable[[list[dict]], str]
    pytest_args: tuple[str, ...] = ()  # extra pytest arguments for this section only
    # One pytest process per entry, with these environment variables added; the
    # records of all of them go to one render call.
    runs: tuple[dict[str, str], ...] = ({},)


SECTIONS = [
    # Decoding is synchronous: keep pytest-asyncio (if installed) out of it.
    Section("decode", ["test_decode.py"], render_decode, ("-p", "no:asyncio", "-p", "no:aiohttp")),
    # test_dispatch.py drives its own uvloop loop: no pytest-asyncio, and no log
    # capture (aiogram logs every update at INFO; kept at the default WARNING).
    # A round is a batch of 1,000 updates (aiogram: 100), so 20 warm-up rounds.
    # tgfast picks compiled or pure modules once, at import: the pure twin runs
    # in a second process with TGFAST_NO_EXTENSIONS=1, next to its own floor
    # and aiogram, so that its ratios come from one process too.
    Section(
        "dispatch",
        ["test_dispatch.py"],
        render_dispatch,
        (
            "-p",
            "no:asyncio",
            "-p",
            "no:aiohttp",
            "-p",
            "no:logging",
            "--benchmark-warmup-iterations=20",
        ),
        runs=(
            {"TGFAST_BENCH_DISPATCH": "tgfast-compiled,aiogram,floor"},
            {"TGFAST_BENCH_DISPATCH": "tgfast-pure,aiogram,floor", "TGFAST_NO_EXTENSIONS": "1"},
        ),
    ),
]


@dataclass(frozen=True)
class Script:
    key: str
    script: str  # relative to benchmarks/; prints one Markdown section on stdout
    args: tuple[str, ...] = ()  # options of its own
    default: bool = True  # run without --section (False: only when named, or with --all)


SCRIPTS = [
    Script("roundtrip", "micro/roundtrip.py"),  # client round trip, mock Bot API server
    Script("redis", "micro/redis_client.py"),  # RespClient against redis-py (issue #18), real redis
    Script("magic", "micro/filters_magic.py"),  # tgfast's F against magic-filter (issue #18)
    # The end-to-end sweeps (issue #6; issue #7 through nginx), on the installed tgfast.
    Script("e2e", "e2e/run.py", ("--tgfast-path", ""), default=False),
    Script("scale", "e2e/run.py", ("--nginx", "--tgfast-path", ""), default=False),
]


def run_script(script: Script, mode: str, json_path: str | None) -> int:
    """Run a script section; its Markdown goes straight to our stdout."""
    cmd = [sys.executable, str(HERE / script.script), *script.args, "--no-machine-line"]
    if mode == "quick":
        cmd.append("--quick")
    if json_path:
        cmd += ["--json", str(Path(json_path).with_suffix(f".{script.key}.json"))]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    sys.stdout.flush()
    return subprocess.run(cmd, cwd=HERE, env=env, check=False).returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Run tgfast benchmarks and print a Markdown report.",
        epilog="Arguments after `--` are passed to pytest unchanged.",
    )
    parser.add_argument("--quick", action="store_true", help="short run (< 1 min), noisier")
    parser.add_argument(
        "--section",
        action="append",
        choices=[s.key for s in SECTIONS] + [s.key for s in SCRIPTS],
        help="run only this section (repeatable); default: all but the end-to-end sweeps",
    )
    parser.add_argument(
        "--all", action="store_true", help="every section, the end-to-end sweeps included"
    )
    parser.add_argument(
        "--json",
        metavar="PATH",
        help="also save the raw pytest-benchmark records (scripts: PATH.<section>.json)",
    )
    args, extra = parser.parse_known_args(argv)
    if extra and extra[0] == "--":
        extra = extra[1:]

    mode = "quick" if args.quick else "full"
    print(machine_line(), flush=True)
    t = TIMING[mode]
    gc_state = "disabled" if "--benchmark-disable-gc" in extra else "enabled"
    print(
        f"\nSettings: {mode} run; pytest-benchmark max-time {t['--benchmark-max-time']} s "
        f"per benchmark, rounds ≥ {float(t['--benchmark-min-time']) * 1e6:.0f} µs, "
        f"min {t['--benchmark-min-rounds']} rounds, warmup on, GC {gc_state}; "
        "statistic: median of per-round means.",
        flush=True,
    )

    worst_rc = 0
    all_records: list[dict] = []
    for section in SECTIONS:
        if args.section and section.key not in args.section:
            continue
        records, failures = [], []
        for env in section.runs:
            rc, run_records = run_pytest(section.files, mode, extra, list(section.pytest_args), env)
            records += run_records
            if rc != 0:
                where = f" ({' '.join(f'{k}={v}' for k, v in env.items())})" if env else ""
                failures.append(
                    f"**pytest exited with code {rc} for section {section.key}{where}: "
                    "see stderr.**"
                )
                worst_rc = worst_rc or rc
        all_records += records
        print("\n" + section.render(records), flush=True)
        for failure in failures:
            print(f"\n{failure}", flush=True)
    skipped = []
    for script in SCRIPTS:
        if args.section and script.key not in args.section:
            continue
        if not (args.section or args.all or script.default):
            skipped.append(script.key)
            continue
        rc = run_script(script, mode, args.json)
        if rc != 0:
            print(f"\n**{script.script} exited with code {rc}: see stderr.**", flush=True)
            worst_rc = worst_rc or rc
    if skipped:
        print(
            f"\nNot run (minutes each): {', '.join(skipped)}; "
            f"`--section {skipped[0]}` or `--all` runs them.",
            flush=True,
        )
    if args.json:
        slim = [{k: v for k, v in r.items() if k != "data"} for r in all_records]
        Path(args.json).write_text(json.dumps(slim, indent=1))
    return worst_rc


if __name__ == "__main__":
    sys.exit(main())
