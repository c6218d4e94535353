"""Scale-out mode (issue #7): N bot workers behind a real nginx, seen from outside.

The load generator posts to nginx (``tests/support/nginx_server.py``: round robin,
``proxy_next_upstream`` on error/timeout/502/503/504 including POSTs, upstream
keepalive), which spreads the updates over N workers, each on a port of its own:

* floor and aiogram: N independent processes, one per port, each its own
  aiohttp webhook app (as in the one-worker benchmark);
* tgfast: one ``tgfast webhook tgfast_echo:dp --workers N --port-per-worker``
  supervisor (worker i on port + i) when the CLI has it, else N independent
  ``tgfast webhook`` processes (``--tgfast-workers processes`` forces that).

CPU is read from ``/proc`` as for one bot: the workers' (and the supervisor's)
together, nginx's (master and worker) apart.  With ``--redis`` a real redis-server
is started for the sweep and tgfast's workers share it (``--redis URL``), its CPU
apart too.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from bots import BotProcess, Launch, command, environment, proc_tree_cpu

REPO = Path(__file__).resolve().parents[2]
# The nginx harness of the test suite, imported where it lives (the one place that puts
# tests/ on sys.path; appended, so nothing of the benchmark's is shadowed).
if str(REPO / "tests" / "support") not in sys.path:
    sys.path.append(str(REPO / "tests" / "support"))

from nginx_server import NGINX, Nginx  # noqa: E402
from redis_server import RedisServer  # noqa: E402

__all__ = [
    "NGINX", "Balancer", "SharedRedis", "Workers", "consecutive_ports", "supervisor_available",
]  # fmt: skip


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def consecutive_ports(n: int) -> list[int]:
    """``n`` consecutive free ports on 127.0.0.1 (worker i of a supervisor on port + i)."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            first = int(s.getsockname()[1])
        if first + n <= 65535 and all(_bindable(first + k) for k in range(n)):
            return [first + k for k in range(n)]
    raise RuntimeError(f"no {n} consecutive free ports")


def supervisor_available(launch: Launch) -> bool:
    """Whether the tgfast the bot imports has ``webhook --workers N --port-per-worker``."""
    done = subprocess.run(
        [sys.executable, "-m", "tgfast", "webhook", "--help"],
        env=environment("tgfast", launch), cwd="/", capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    return done.returncode == 0 and "--port-per-worker" in done.stdout


class Workers:
    """The bot side of one run: N worker processes, or one supervisor of N.

    The interface of :class:`bots.BotProcess` that the runner uses (``alive``,
    ``cpu_seconds``, ``log_tail``, ``stop``, ``proc.returncode``), over all of them.
    """

    def __init__(
        self, name: str, launch: Launch, ports: Sequence[int], directory: Path,
        supervisor: bool, cpu: int | None = None,
    ) -> None:  # fmt: skip
        self.ports = list(ports)
        self.supervised = supervisor and name == "tgfast" and len(self.ports) > 1
        self.bots: list[BotProcess] = []
        if self.supervised:
            extra = ("--workers", str(len(self.ports)), "--port-per-worker")
            sup = replace(launch, port=self.ports[0], tgfast_args=(*launch.tgfast_args, *extra))
            self.bots.append(
                BotProcess(
                    command(name, "webhook", sup),
                    environment(name, sup),
                    directory,
                    directory / "supervisor.log",
                    cpu,
                )
            )
        else:
            for k, port in enumerate(self.ports):
                one = replace(launch, port=port)
                self.bots.append(
                    BotProcess(
                        command(name, "webhook", one),
                        environment(name, one),
                        directory,
                        directory / f"worker{k}.log",
                        cpu,
                    )
                )

    @property
    def proc(self) -> subprocess.Popen[bytes]:
        """The first process that exited (else the first one): its ``returncode``."""
        return next((b.proc for b in self.bots if not b.alive()), self.bots[0].proc)

    def alive(self) -> bool:
        return all(b.alive() for b in self.bots)

    def cpu_seconds(self) -> float:
        return sum(b.cpu_seconds() for b in self.bots)

    def per_worker_cpu(self) -> list[float]:
        """CPU seconds of each worker process (a supervisor's children, or each process)."""
        if not self.supervised:
            return [b.cpu_seconds() for b in self.bots]
        return [proc_tree_cpu(pid) for pid in _children(self.bots[0].pid)]

    def log_tail(self, lines: int = 15) -> str:
        return " | ".join(t for b in self.bots if (t := b.log_tail(lines)))

    async def stop(self, grace: float = 10.0) -> int | None:
        """SIGTERM to every process at once; the worst exit status (0 if all exited cleanly)."""
        statuses = await asyncio.gather(*(b.stop(grace) for b in self.bots))
        bad = [s for s in statuses if s not in (0, -15)]
        return bad[0] if bad else statuses[0]

    def describe(self) -> str:
        if self.supervised:
            return f"supervisor of {len(self.ports)}"
        return f"{len(self.ports)} process{'es' if len(self.ports) > 1 else ''}"


def _children(pid: int) -> list[int]:
    out: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as f:
                out += [int(c) for c in f.read().split()]
    return out


class Balancer:
    """A fresh nginx in front of the workers' ports, started off the event loop."""

    def __init__(self, upstreams: Sequence[int]) -> None:
        self.nginx = Nginx(upstreams)

    @property
    def port(self) -> int:
        return self.nginx.port

    async def start(self) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self.nginx.start)

    def cpu_seconds(self) -> float:
        """utime + stime of nginx's master and worker."""
        process = self.nginx.process
        return proc_tree_cpu(process.pid) if process is not None else 0.0

    def error_log(self, lines: int = 3) -> str:
        return " | ".join(self.nginx.error_log.strip().splitlines()[-lines:])

    def close(self) -> None:
        self.nginx.close()


class SharedRedis:
    """A real redis-server (``tests/support/redis_server.py``) that tgfast's workers share
    (``--redis URL``: FSM storage, seen update ids), its CPU read apart."""

    def __init__(self) -> None:
        self.server = RedisServer()

    @property
    def url(self) -> str:
        return self.server.url

    async def start(self) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self.server.start)

    def cpu_seconds(self) -> float:
        process = self.server.process
        return proc_tree_cpu(process.pid) if process is not None else 0.0

    def close(self) -> None:
        self.server.close()
