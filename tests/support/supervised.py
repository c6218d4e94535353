"""A ``tgfast ... --workers N`` process for the supervisor and scale-out tests.

The supervisor and its workers share one stderr (the workers inherit it); the test
reads it line by line and learns the workers' pids from the supervisor's
``worker I (pid P) is ready`` lines. ``close()`` kills whatever is left, workers
included, so that a failing test leaves no process behind, and reads the log to its
end, so that no pipe is left open either.
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
    """One supervisor process, its log, and the workers it reported ready.

    The log is a pipe of the test's own, not the process's ``stderr=PIPE``: the
    workers inherit its write end, so it stays open until the last of them is gone,
    which can be after the supervisor (killed with SIGKILL, it leaves its workers
    behind for a moment). A ``PIPE`` would tie the process's transport to that: on
    Python 3.10, ``wait()`` returns at the exit while the transport stays open until
    the pipe's end of file, and is reported unclosed when the test is over first.
    """

    def __init__(
        self,
        proc: asyncio.subprocess.Process,
        log: asyncio.StreamReader,
        log_pipe: asyncio.ReadTransport,
    ) -> None:
        self.proc = proc
        self.lines: list[str] = []
        self.ready: dict[int, int] = {}
        """Worker number -> pid of its latest process that got ready."""
        self._log_pipe = log_pipe
        self._pipe_inode = os.fstat(log_pipe.get_extra_info("pipe").fileno()).st_ino
        self._reader = asyncio.ensure_future(self._read(log))

    @classmethod
    async def start(cls, *args: str, cwd: Path, **env: str) -> Supervised:
        read_end, write_end = os.pipe()
        pipe = open(read_end, "rb", buffering=0)
        log = asyncio.StreamReader()
        try:
            log_pipe, _ = await asyncio.get_running_loop().connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(log), pipe
            )  # the transport owns the read end now
        except BaseException:
            pipe.close()
            os.close(write_end)
            raise
        try:
            proc = await asyncio.create_subprocess_exec(
                *tgfast_command(*args), cwd=cwd, env=subprocess_env(**env),
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                stderr=write_end,
            )  # fmt: skip
        except BaseException:
            log_pipe.close()
            raise
        finally:
            os.close(write_end)  # the supervisor and its workers hold it
        return cls(proc, log, log_pipe)

    async def _read(self, log: asyncio.StreamReader) -> None:
        async for raw in log:
            line = raw.decode(errors="replace")
            self.lines.append(line)
            if match := _READY.search(line):
                self.ready[int(match.group(1))] = int(match.group(2))

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

    async def close(self, timeout: float = 15.0) -> None:
        """Kill the supervisor and every worker it started, if still running, and
        read the log to its end (every process that could write to it is gone)."""
        if self.proc.returncode is None:
            self.proc.kill()
        await self.proc.wait()  # no worker is started after this
        try:
            # its workers, reported or not yet: every process that holds the log's
            # write end (never a pid from the log, which may be another's by now)
            for pid in self._writers():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            try:
                await asyncio.wait_for(asyncio.shield(self._reader), timeout)
            except asyncio.TimeoutError:
                raise AssertionError(
                    f"the log is still open {timeout} s after the supervisor was killed: "
                    f"pids {sorted(self._writers())} hold it\n{self.log}"
                ) from None
        finally:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
            self._log_pipe.close()  # already closed at the end of file

    def _writers(self) -> set[int]:
        """Pids of the processes whose descriptors include the log's write end."""
        target = f"pipe:[{self._pipe_inode}]"
        found = set()
        for fds in Path("/proc").glob("[0-9]*/fd"):
            with contextlib.suppress(OSError):  # gone, or not ours to look at
                for fd in fds.iterdir():
                    with contextlib.suppress(OSError):  # closed meanwhile
                        if os.readlink(fd) == target:
                            found.add(int(fds.parent.name))
                            break
        found.discard(os.getpid())  # the read end, in this process
        return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False
