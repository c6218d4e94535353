"""Several worker processes for one bot: what ``tgfast webhook app:dp --workers N`` runs.

The supervisor (the process the user started) serves nothing itself: it runs the same
command once per worker, in a new session each (a Ctrl-C in the terminal reaches the
supervisor alone, which forwards exactly one SIGTERM: a worker that got the terminal's
signal and then the forwarded one would take the second for "exit at once"). It
restarts a worker that exits while it is not stopping, with a growing delay while a
worker keeps dying young; on SIGTERM/SIGINT it forwards SIGTERM so that every worker
drains, and exits when all have (a second signal is forwarded too: the workers then
exit at once). The design follows the pre-fork supervisors (gunicorn's arbiter,
uvicorn's multiprocess), minus the shared socket: workers share the port with
``SO_REUSEPORT`` or listen on one port each, which the worker command decides.

A worker learns who it is from its environment (``this_worker()``) and tells the
supervisor it is serving with ``notify_ready()`` through an inherited pipe. A worker
that exits before that failed to start: when every worker has failed to start and
none ever served (an import error, a port taken, a bad Redis URL) the supervisor
gives up with the workers' exit status instead of restarting them forever.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from .._logging import get_logger
from ..backoff import Backoff

__all__ = [
    "READY_FD_ENV",
    "RESTARTED_ENV",
    "WORKERS_ENV",
    "WORKER_ID_ENV",
    "RESTART_BACKOFF",
    "Supervisor",
    "WorkerIdentity",
    "notify_ready",
    "this_worker",
    "watch_supervisor",
]

log = get_logger("tgfast.supervisor")

WORKER_ID_ENV = "TGFAST_WORKER_ID"
"""This worker's number, 0 to N-1."""
WORKERS_ENV = "TGFAST_WORKERS"
"""How many workers the supervisor runs."""
READY_FD_ENV = "TGFAST_READY_FD"
"""The pipe a worker writes to once it serves (``notify_ready``)."""
RESTARTED_ENV = "TGFAST_WORKER_RESTARTED"
"""``1`` when an earlier worker with this number got ready: once-only start-up work
(``setWebhook``, dropping pending updates) is done already."""

_SIGNALS = (signal.SIGTERM, signal.SIGINT)


@dataclass(frozen=True, slots=True)
class WorkerIdentity:
    """Who this process is among the supervisor's workers."""

    id: int
    count: int
    restarted: bool


def this_worker(environ: Mapping[str, str] | None = None) -> WorkerIdentity | None:
    """This process's place among the workers, or None when no supervisor started it."""
    env = os.environ if environ is None else environ
    worker_id = env.get(WORKER_ID_ENV)
    if worker_id is None:
        return None
    return WorkerIdentity(
        id=int(worker_id),
        count=int(env.get(WORKERS_ENV, "1")),
        restarted=env.get(RESTARTED_ENV) == "1",
    )


def notify_ready() -> None:
    """Tell the supervisor this worker serves (once; nothing when no supervisor asked)."""
    fd = os.environ.pop(READY_FD_ENV, None)
    if fd is None:
        return
    with contextlib.suppress(OSError, ValueError):  # the supervisor is gone: nobody to tell
        os.write(int(fd), b"ready\n")
    with contextlib.suppress(OSError, ValueError):
        os.close(int(fd))


async def watch_supervisor(on_gone: Callable[[], object], interval: float = 0.5) -> None:
    """Call ``on_gone()`` once this process's parent is gone (the supervisor was killed).

    Workers run in sessions of their own, so no terminal signal reaches them: without
    this, a supervisor killed with SIGKILL would leave them serving with nobody to
    stop them. The worker drains and exits instead.
    """
    parent = os.getppid()
    while os.getppid() == parent:  # noqa: ASYNC110 - no event tells a reparented process
        await asyncio.sleep(interval)
    on_gone()


RESTART_BACKOFF = Backoff(min_delay=0.5, max_delay=30.0, factor=2.0, jitter=0.0, reset_after=10.0)
"""Before restarting a worker: at once after a run of 10 s or more; after a younger
death 0.5 s, then twice as long each time it dies young again, at most 30 s. Exact (no
jitter): the workers of one supervisor die for their own reasons, not in step."""


class _Slot:
    """One worker number and the process currently running it."""

    __slots__ = (
        "delay",
        "failed_to_start",
        "failures",
        "id",
        "process",
        "ready",
        "served",
        "started_at",
    )

    def __init__(self, worker_id: int) -> None:
        self.id = worker_id
        self.process: asyncio.subprocess.Process | None = None
        self.started_at = 0.0
        self.ready = False  # the current process notified
        self.served = False  # some process of this slot notified, ever
        self.failed_to_start: int | None = None  # exit status of the last start that failed
        self.delay = 0.0  # before the current restart
        self.failures = 0  # young deaths in a row


class Supervisor:
    """Run ``argv`` as ``workers`` processes until SIGTERM/SIGINT (or ``request_stop()``).

    Each worker gets ``env`` (the supervisor's own environment by default) plus
    ``TGFAST_WORKER_ID``, ``TGFAST_WORKERS``, ``TGFAST_READY_FD`` and, on a restart
    after it served, ``TGFAST_WORKER_RESTARTED=1``. ``run()`` returns the exit status:
    0 when every worker exited 0 after the stop, 1 after a forced stop or a worker's
    failure, or the workers' own status when none of them could start.
    """

    def __init__(
        self,
        argv: Sequence[str],
        workers: int,
        *,
        env: Mapping[str, str] | None = None,
        backoff: Backoff = RESTART_BACKOFF,
        kill_after: float = 10.0,
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.argv = list(argv)
        self.workers = workers
        self.env = dict(os.environ if env is None else env)
        self.backoff = backoff
        self.kill_after = kill_after
        self._slots = [_Slot(i) for i in range(workers)]
        self._stopping = asyncio.Event()
        self._forced = False
        self._gave_up: int | None = None
        self._failed = False

    @property
    def pids(self) -> dict[int, int]:
        """The running workers: worker number -> pid."""
        return {
            s.id: s.process.pid
            for s in self._slots
            if s.process is not None and s.process.returncode is None
        }

    def request_stop(self, name: str = "stop requested") -> None:
        """The first call drains every worker; the next makes them exit at once."""
        if not self._stopping.is_set():
            log.warning("%s: stopping %d workers (they drain), send it again to force",
                        name, self.workers)  # fmt: skip
            self._stopping.set()
        elif not self._forced:
            log.warning("%s again: the workers exit at once", name)
            self._forced = True
            asyncio.get_running_loop().call_later(self.kill_after, self._kill_all)
        else:
            return
        self._signal_all(signal.SIGTERM)

    async def run(self) -> int:
        """Start the workers, keep them running, stop them; the exit status."""
        loop = asyncio.get_running_loop()
        installed = []
        for sig in _SIGNALS:
            try:
                loop.add_signal_handler(sig, self.request_stop, sig.name)
            except (NotImplementedError, RuntimeError):  # not the main thread
                continue
            installed.append(sig)
        try:
            await asyncio.gather(*(self._keep(slot) for slot in self._slots))
        finally:
            for sig in installed:
                loop.remove_signal_handler(sig)
        if self._gave_up is not None:
            return self._gave_up
        if self._forced or self._failed:
            return 1
        log.info("all %d workers stopped", self.workers)
        return 0

    # -- one worker number ---------------------------------------------------------

    async def _keep(self, slot: _Slot) -> None:
        """Run ``slot``'s worker, again and again, until the supervisor stops."""
        while not self._stopping.is_set():
            process = await self._spawn(slot)
            status = await process.wait()
            if self._stopping.is_set():
                self._stopped(slot, status)
                return
            ran = time.monotonic() - slot.started_at
            if slot.ready or self.backoff.resets(ran):
                slot.failed_to_start = None
            else:
                slot.failed_to_start = status
                if self._every_worker_failed_to_start():
                    self._give_up()
                    return
            if self.backoff.resets(ran):  # it ran long enough: at once, and forget
                slot.failures, slot.delay = 0, 0.0
            else:  # died young again: wait longer each time
                slot.delay = self.backoff.delay(slot.failures)
                slot.failures += 1
            log.warning(
                "worker %d (pid %d) %s after %.1f s%s; restarting in %.1f s",
                slot.id, process.pid, _describe(status), ran,
                "" if slot.ready else " (before it was ready)", slot.delay,
            )  # fmt: skip
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), slot.delay)

    async def _spawn(self, slot: _Slot) -> asyncio.subprocess.Process:
        read_end, write_end = os.pipe()
        env = {
            **self.env,
            WORKER_ID_ENV: str(slot.id),
            WORKERS_ENV: str(self.workers),
            READY_FD_ENV: str(write_end),
        }
        if slot.served:
            env[RESTARTED_ENV] = "1"
        else:
            env.pop(RESTARTED_ENV, None)
        try:
            process = await asyncio.create_subprocess_exec(
                *self.argv, env=env, pass_fds=(write_end,), start_new_session=True
            )
        except BaseException:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)
        slot.process = process
        slot.started_at = time.monotonic()
        slot.ready = False
        self._watch_ready(slot, process, read_end)
        log.info("worker %d started (pid %d)", slot.id, process.pid)
        if self._stopping.is_set():  # the stop came while it was being started
            process.send_signal(signal.SIGTERM)
        return process

    def _watch_ready(self, slot: _Slot, process: asyncio.subprocess.Process, fd: int) -> None:
        loop = asyncio.get_running_loop()

        def readable() -> None:
            try:
                data = os.read(fd, 64)
            except OSError:
                data = b""
            loop.remove_reader(fd)
            os.close(fd)
            if data and slot.process is process:
                slot.ready = slot.served = True
                log.info("worker %d (pid %d) is ready", slot.id, process.pid)

        loop.add_reader(fd, readable)

    def _stopped(self, slot: _Slot, status: int) -> None:
        # A worker killed by our SIGTERM before it could handle signals had taken nothing.
        clean = status == 0 or (status == -signal.SIGTERM and not slot.ready)
        if not clean:
            self._failed = True
        log.log(
            logging.INFO if clean else logging.WARNING,
            "worker %d (pid %d) %s", slot.id, slot.process.pid if slot.process else 0,
            _describe(status),
        )  # fmt: skip

    # -- all of them ---------------------------------------------------------------

    def _every_worker_failed_to_start(self) -> bool:
        return not any(s.served for s in self._slots) and all(
            s.failed_to_start is not None for s in self._slots
        )

    def _give_up(self) -> None:
        statuses = {s.failed_to_start for s in self._slots}
        status = statuses.pop() if len(statuses) == 1 else 1
        self._gave_up = status if status is not None and status > 0 else 1
        log.error(
            "every worker failed to start (%s); giving up: see the workers' errors above",
            ", ".join(f"worker {s.id} {_describe(s.failed_to_start or 0)}" for s in self._slots),
        )
        self._stopping.set()
        self._signal_all(signal.SIGTERM)

    def _signal_all(self, sig: signal.Signals) -> None:
        for slot in self._slots:
            process = slot.process
            if process is not None and process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(sig)

    def _kill_all(self) -> None:
        if self.pids:
            log.error("workers still running %.0f s after a forced stop: killing %s",
                      self.kill_after, sorted(self.pids.values()))  # fmt: skip
            self._signal_all(signal.SIGKILL)


def _describe(status: int) -> str:
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return f"was killed by {name}"
    return f"exited with status {status}"
