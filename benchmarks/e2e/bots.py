"""The contenders, how each is started, and the bot process seen from outside.

Every bot runs as a separate process started by its command line, pinned to
a core of its own (when the machine has two), with its output in a log file.
Its CPU time is read from ``/proc/<pid>/stat`` (utime + stime of every
thread, plus any child process), so nothing inside the bot has to cooperate.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CLK_TCK = os.sysconf("SC_CLK_TCK")
NAMES = ("go", "minimal", "minimal-async", "minimal-aiohttp", "floor", "aiogram", "tgfast",
         "tgfast-fast", "tgfast-ref", "tgfast-ops")  # fmt: skip
MODES = ("webhook", "polling")
# (contender, mode) pairs the benchmark knows; go, minimal and the floor are webhook
# handlers only. ``go``: net/http echo bot (go_echo/); ``minimal``: uvloop + llhttp, raw
# client (minimal_echo.py); ``minimal-async``: the same with a task and a coroutine per
# update, as a framework's handler (the least a coroutine handler costs on asyncio);
# ``minimal-aiohttp``: the same server with aiohttp's client
# (what tgfast's default session is held to); ``floor``: bare aiohttp; ``tgfast-fast``: tgfast with
# ``--transport fast``; ``tgfast-ref``: tgfast from ``--ref-path`` (another build, e.g. an
# older commit), to compare two builds in one run; ``tgfast-ops``: tgfast as an operated
# bot runs it, logging at info and OpenTelemetry installed with tracing disabled
# (tgfast_ops_echo.py), to show what those cost beside ``tgfast`` in one run.
PAIRS = (
    ("go", "webhook"),
    ("minimal", "webhook"),
    ("minimal-async", "webhook"),
    ("minimal-aiohttp", "webhook"),
    ("floor", "webhook"),
    ("aiogram", "webhook"),
    ("tgfast", "webhook"),
    ("tgfast-fast", "webhook"),
    ("tgfast-ref", "webhook"),
    ("tgfast-ops", "webhook"),
    ("aiogram", "polling"),
    ("tgfast", "polling"),
    ("tgfast-fast", "polling"),
    ("tgfast-ops", "polling"),
)
DEFAULT_PAIRS = tuple(p for p in PAIRS if p[0] in ("floor", "aiogram", "tgfast"))
"""What a run measures unless told otherwise (the contenders of issue #6)."""
GO_SOURCE = HERE / "go_echo"

# Options every tgfast run gets.  The client's rate limiter holds sends to Telegram's
# published limits (30 messages/s overall, about one per chat per second): right for
# api.telegram.org, but the sink is not Telegram and the other contenders send
# unthrottled.  Logging at WARNING, as aiogram's and the floor's (unconfigured) logging.
TGFAST_ARGS = ("--no-rate-limit", "--log-level", "warning")


@dataclass(frozen=True)
class Launch:
    """Everything a bot command line needs."""

    port: int  # webhook port (unused in polling mode)
    api_url: str  # the sink
    token: str
    secret: str
    path: str
    loop: str  # floor/aiogram: uvloop or asyncio (tgfast: its default, uvloop)
    tgfast_path: str  # prepended to PYTHONPATH for the tgfast bot ("" = as installed)
    tgfast_args: tuple[str, ...] = ()  # extra options for the tgfast command
    ref_path: str = ""  # the tgfast-ref bot's tgfast (a source tree built in place)
    burn_ms: float = 0.0  # CPU the tgfast echo handler burns per update ($E2E_BURN_MS)


def command(name: str, mode: str, launch: Launch) -> list[str]:
    """The bot's command line."""
    py = sys.executable
    webhook = [
        "--host", "127.0.0.1", "--port", str(launch.port), "--path", launch.path,
        "--secret", launch.secret,
    ]  # fmt: skip
    api = ["--token", launch.token, "--api-url", launch.api_url]
    served = webhook + api if mode == "webhook" else api
    if name == "floor" and mode == "webhook":
        return [py, str(HERE / "floor_echo.py"), *served, "--loop", launch.loop]
    if name == "aiogram":
        return [py, str(HERE / "aiogram_echo.py"), mode, *served, "--loop", launch.loop]
    if name == "go" and mode == "webhook":
        return [str(go_binary()), *served]
    if name in ("minimal", "minimal-async", "minimal-aiohttp") and mode == "webhook":
        client = "aiohttp" if name == "minimal-aiohttp" else "raw"
        model = "task" if name == "minimal-async" else "callback"
        return [py, str(HERE / "minimal_echo.py"), *served, "--loop", launch.loop,
                "--client", client, "--model", model]  # fmt: skip
    if name in ("tgfast", "tgfast-fast", "tgfast-ref", "tgfast-ops"):
        transport = ["--transport", "fast"] if name == "tgfast-fast" else []
        app = "tgfast_echo:dp"
        if name == "tgfast-ops":  # the last --log-level given wins
            app, transport = "tgfast_ops_echo:dp", ["--log-level", "info"]
        return [py, "-m", "tgfast", mode, app, *served, *TGFAST_ARGS, *transport,
                *launch.tgfast_args]  # fmt: skip
    raise ValueError(f"no {mode} mode for {name}")


def go_binary() -> Path:
    """The Go echo bot, built from ``go_echo/`` into the temp dir when its source is newer
    (``go build``, stdlib only: the Go toolchain must be on PATH)."""
    out = Path(tempfile.gettempdir()) / "tgfast-bench" / "go_echo"
    source = max(p.stat().st_mtime for p in GO_SOURCE.iterdir())
    if not out.is_file() or out.stat().st_mtime < source:
        out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["go", "build", "-o", str(out), "."], cwd=GO_SOURCE, check=True)
    return out


def environment(name: str, launch: Launch) -> dict[str, str]:
    """The bot's environment: this one, with the echo modules (and tgfast) importable."""
    env = {k: v for k, v in os.environ.items() if k not in ("TGFAST_TOKEN", "BOT_TOKEN")}
    paths = [str(HERE)]
    if name == "tgfast-ref":
        if not launch.ref_path:
            raise ValueError("tgfast-ref needs --ref-path (a tgfast source tree built in place)")
        paths.insert(0, launch.ref_path)
    elif name.startswith("tgfast") and launch.tgfast_path:
        paths.insert(0, launch.tgfast_path)
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("E2E_BURN_MS", None)
    if launch.burn_ms:
        env["E2E_BURN_MS"] = f"{launch.burn_ms:g}"
    return env


def tgfast_build(launch: Launch) -> dict[str, object]:
    """Which tgfast the tgfast bot would import: version, compiled parts, CLI present."""
    probe = (
        "import json, importlib.util as u\n"
        "out = {}\n"
        "try:\n"
        "    import tgfast\n"
        "    out['version'] = tgfast.__version__\n"
        "    out['file'] = tgfast.__file__\n"
        "    out['decoder_compiled'] = bool(tgfast.__speedups__)\n"
        "    try:\n"
        "        from tgfast.dispatcher import routing\n"
        "        out['routing_compiled'] = bool(routing.SPEEDUPS)\n"
        "    except Exception as exc:\n"
        "        out['routing_compiled'] = None\n"
        "    out['cli'] = u.find_spec('tgfast.cli') is not None\n"
        "except Exception as exc:\n"
        "    out['error'] = f'{type(exc).__name__}: {exc}'\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        env=environment("tgfast", launch),
        cwd="/",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {"error": (done.stderr.strip().splitlines() or ["probe failed"])[-1]}


_LIVE: set[subprocess.Popen[bytes]] = set()


def kill_all() -> None:
    """Kill every bot still running (the runner is exiting early)."""
    for proc in list(_LIVE):
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    _LIVE.clear()


atexit.register(kill_all)


class BotProcess:
    """A running bot: start pinned, read its CPU time, stop it."""

    def __init__(
        self, cmd: list[str], env: dict[str, str], cwd: Path, log: Path, cpu: int | None
    ) -> None:
        self.log = log
        self._log_file = log.open("wb")
        self.proc = subprocess.Popen(
            cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=self._log_file,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        _LIVE.add(self.proc)
        if cpu is not None:  # children it starts later inherit the mask
            os.sched_setaffinity(self.proc.pid, {cpu})

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def cpu_seconds(self) -> float:
        """utime + stime of the bot and its live descendants, in seconds."""
        return proc_tree_cpu(self.proc.pid)

    def log_tail(self, lines: int = 15) -> str:
        if not self._log_file.closed:
            self._log_file.flush()
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.strip().splitlines()[-lines:])

    async def stop(self, grace: float = 10.0) -> int | None:
        """SIGTERM, then SIGKILL after ``grace`` seconds; the exit status.

        Waits without blocking the event loop: the sink in this process must keep
        answering while the bot shuts down (a poller confirms its offset on the way out).
        """
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            deadline = time.perf_counter() + grace
            # polled: a child's exit sets no event (and SIGCHLD belongs to the loop)
            while self.alive() and time.perf_counter() < deadline:  # noqa: ASYNC110
                await asyncio.sleep(0.02)
            if self.alive():
                self.proc.kill()
            self.proc.wait()
        _LIVE.discard(self.proc)
        self._log_file.close()
        return self.proc.returncode


def _tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children", encoding="ascii") as f:
                    todo += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return out


def proc_tree_cpu(pid: int) -> float:
    """utime + stime of a process and its live descendants, in seconds."""
    return sum(_proc_cpu(p) for p in _tree(pid))


def _proc_cpu(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            fields = f.read().rpartition(")")[2].split()
    except OSError:
        return 0.0
    # fields[0] is field 3 (state); utime and stime are fields 14 and 15.
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def core_busy_seconds(cpu: int | None) -> float | None:
    """Seconds one CPU has run processes since boot (user, nice, system, steal), /proc/stat.

    ``cpu`` -1: every CPU of the machine together.  Interrupt and softirq time is left
    out: loopback TCP is processed there, much of it this benchmark's own traffic, which
    is not what "other processes" should show.
    """
    if cpu is None:
        return None
    prefix = "cpu " if cpu < 0 else f"cpu{cpu} "
    try:
        with open("/proc/stat", encoding="ascii") as f:
            for line in f:
                if line.startswith(prefix):
                    v = [int(x) for x in line.split()[1:9]]
                    return (v[0] + v[1] + v[2] + v[7]) / CLK_TCK
    except (OSError, ValueError):
        pass
    return None
