"""Run the tgfast benchmarks and print the results as Markdown.

    python benchmarks/run.py            # full run (~4 min on 2 cores)
    python benchmarks/run.py --quick    # smoke run (~1 min), noisier numbers
    python benchmarks/run.py --json out.json -- --benchmark-disable-gc

Output (stdout): first a one-line machine description, then one Markdown
section per benchmark file.  pytest's own progress goes to stderr, so
``run.py > results.md`` captures just the report.

Each section is a pytest-benchmark file in this directory plus a function
that renders its results.  To add one (dispatch, client round trip, e2e):
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
from importlib import metadata  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent

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


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "absent"


def _tgfast_state() -> str:
    try:
        import tgfast
    except Exception as exc:  # not built / not installed yet
        return f"tgfast not importable ({type(exc).__name__})"
    version = getattr(tgfast, "__version__", None) or _version("tgfast")
    compiled = getattr(tgfast, "__speedups__", None)
    state = {True: "compiled", False: "NOT compiled (pure Python)"}.get(compiled, "compiled=?")
    try:  # an in-place build that predates its source measures old code
        from tgfast._speedups import _decode

        built = Path(_decode.__file__)
        source = built.parent / "_decode.pyx"
        in_place = (built.parents[2] / "pyproject.toml").exists()  # not an installed copy
        if in_place and source.exists() and source.stat().st_mtime > built.stat().st_mtime:
            state += " (WARNING: _decode extension is older than _decode.pyx: stale build?)"
    except Exception:
        pass
    return f"tgfast {version} {state}"


def machine_line() -> str:
    deps = ", ".join(
        f"{name} {_version(dist)}"
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
        f"machine: {_cpu_model()}, {os.cpu_count()} cores | "
        f"{platform.python_implementation()} {platform.python_version()} | "
        f"{platform.platform()} | {deps} | {_tgfast_state()} | {now}"
    )


# --------------------------------------------------------------------------
# running pytest-benchmark
# --------------------------------------------------------------------------


def run_pytest(
    files: list[str], mode: str, extra: list[str], section_args: list[str]
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
            str(HERE / "pytest.ini"),
            "--rootdir",
            str(HERE),
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
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        # cwd=HERE: the repo root is not put on sys.path, so the *installed*
        # tgfast (with its compiled extension) is measured, never the bare
        # source tree.  pytest's chatter goes to stderr; stdout is the report.
        proc = subprocess.run(cmd, cwd=HERE, env=env, stdout=sys.stderr, check=False)
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
# sections
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Section:
    key: str
    files: list[str]  # benchmark files, relative to benchmarks/
    render: Callable[[list[dict]], str]
    pytest_args: tuple[str, ...] = ()  # extra pytest arguments for this section only


SECTIONS = [
    # Decoding is synchronous: keep pytest-asyncio (if installed) out of it.
    Section("decode", ["test_decode.py"], render_decode, ("-p", "no:asyncio")),
    # Section("dispatch", ["test_dispatch.py"], render_dispatch),
]


@dataclass(frozen=True)
class Script:
    key: str
    script: str  # relative to benchmarks/; prints one Markdown section on stdout


SCRIPTS = [
    Script("roundtrip", "roundtrip.py"),  # client round trip, mock Bot API server
]


def run_script(script: Script, mode: str, json_path: str | None) -> int:
    """Run a script section; its Markdown goes straight to our stdout."""
    cmd = [sys.executable, str(HERE / script.script), "--no-machine-line"]
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
        help="run only this section (repeatable); default: all",
    )
    parser.add_argument(
        "--json",
        metavar="PATH",
        help="also save the raw pytest-benchmark records (scripts: PATH.<section>.json)",
    )
    args, extra = parser.parse_known_args(argv)
    if extra and extra[0] == "--":
        extra = extra[1:]

    sys.path.insert(0, str(HERE))  # for the renderers' imports of payloads/contenders
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
        rc, records = run_pytest(section.files, mode, extra, list(section.pytest_args))
        all_records += records
        print("\n" + section.render(records), flush=True)
        if rc != 0:
            print(f"\n**pytest exited with code {rc} for section {section.key}: see stderr.**")
            worst_rc = worst_rc or rc
    for script in SCRIPTS:
        if args.section and script.key not in args.section:
            continue
        rc = run_script(script, mode, args.json)
        if rc != 0:
            print(f"\n**{script.script} exited with code {rc}: see stderr.**", flush=True)
            worst_rc = worst_rc or rc
    if args.json:
        slim = [{k: v for k, v in r.items() if k != "data"} for r in all_records]
        Path(args.json).write_text(json.dumps(slim, indent=1))
    return worst_rc


if __name__ == "__main__":
    sys.exit(main())
