"""A ``tgfast ... --workers N`` process for the supervisor and scale-out tests.

The supervisor and its workers share one stderr (the workers inherit it); the test
reads it line by line and learns the workers' pids from the supervisor's
``worker I (pid P) is ready`` lines. ``close()`` kills whatever is left, workers
included, so that a failing test leaves no process behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import time
from collections.abc import Callable
from pathlib import Path

from server_support import subprocess_env, tgfast_command

from tgfast.testing import FakeTelegram

__all__ = ["BOT", "Supervised", "answers", "eventually"]

BOT = f"{Path(__file__).resolve().parent / 'scale_bot.py'}:dp"
_READY = re.compile(r"worker (\d+) \(pid (\d+)\) is ready")


_WHO = re.compile(r"\[worker (\d+) pid (\d+)\]")  # how scale_bot signs its answers


def answers(fake: FakeTelegram, chat_id: int | None = None) -> list[tuple[str, int, int]]:
    """(text, worker, pid) of every message the bot sent (to ``chat_id``)."""
    out = []
    for sent in fake.sent_messages(chat_id):
        match = _WHO.search(sent["text"])
        assert match, sent["text"]
        out.append((sent["text"][: match.start()].strip(), int(match[1]), int(match[2])))
    return out


async def eventually(
    condition: Callable[[], object], timeout: float = 15.0, what: str = ""
) -> None:
    """Wait until ``condition()`` is true, polling; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what or condition}")
        await asyncio.sleep(0.02)


class Supervised:
    """One supervisor process, its log, and the workers it reported ready."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.lines: list[str] = []
        self.ready: dict[int, int] = {}
        """Worker number -> pid of its latest process that got ready."""
        self.every_pid: set[int] = set()
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def start(cls, *args: str, cwd: Path, **env: str) -> Supervised:
        proc = await asyncio.create_subprocess_exec(
            *tgfast_command(*args), cwd=cwd, env=subprocess_env(**env),
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        return cls(proc)

    async def _read(self) -> None:
        assert self.proc.stderr is not None
        async for raw in self.proc.stderr:
            line = raw.decode(errors="replace")
            self.lines.append(line)
            if match := _READY.search(line):
                self.ready[int(match.group(1))] = int(match.group(2))
                self.every_pid.add(int(match.group(2)))

    @property
    def log(self) -> str:
        return "".join(self.lines)

    async def wait_ready(self, workers: int, timeout: float = 30.0) -> dict[int, int]:
        """Wait until workers 0..workers-1 are all ready; their pids."""
        await eventually(
            lambda: len(self.ready) >= workers or self.proc.returncode is not None,
            timeout, "the workers to get ready",
        )  # fmt: skip
        assert len(self.ready) >= workers, f"the supervisor exited:\n{self.log}"
        return dict(self.ready)

    async def wait_log(self, pattern: str, timeout: float = 15.0) -> re.Match[str]:
        """Wait for a log line matching ``pattern``; the match."""
        regex = re.compile(pattern)
        found: list[re.Match[str]] = []

        def seen() -> bool:
            found[:] = [m for line in self.lines if (m := regex.search(line))]
            return bool(found)

        await eventually(seen, timeout, f"a log line matching {pattern!r}\n{self.log}")
        return found[-1]

    async def wait(self, timeout: float = 30.0) -> int:
        """Wait for the supervisor to exit (its log read to the end); its status."""
        code = await asyncio.wait_for(self.proc.wait(), timeout)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._reader), 5)
        return code

    def signal(self, sig: signal.Signals = signal.SIGTERM) -> None:
        self.proc.send_signal(sig)

    async def close(self) -> None:
        """Kill the supervisor and every worker it started, if still running."""
        if self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()
        for pid in self.every_pid | set(_children_pids(self.lines)):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader


def _children_pids(lines: list[str]) -> list[int]:
    """Pids from ``worker I started (pid P)`` lines (workers that never got ready)."""
    started = re.compile(r"worker \d+ started \(pid (\d+)\)")
    return [int(m.group(1)) for line in lines if (m := started.search(line))]


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False
