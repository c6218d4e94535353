"""A real Redis Sentinel deployment on 127.0.0.1 for tests: a master, a replica and
three sentinels (Debian's ``redis-sentinel``, else ``redis-server --sentinel``), each
on a free port, tuned to fail over within a few seconds of the master's death.

Not a conftest: the failover tests make their own and kill its master.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import redis
from redis_server import REDIS_SERVER, RedisServer, free_port

__all__ = ["SENTINEL_COMMAND", "SentinelFleet"]

SERVICE = "mymaster"
_SENTINEL = shutil.which("redis-sentinel")
SENTINEL_COMMAND: list[str] | None = (
    [_SENTINEL]
    if _SENTINEL is not None
    else [REDIS_SERVER, "--sentinel"]
    if REDIS_SERVER is not None
    else None
)
"""How to start a sentinel: Debian's ``redis-sentinel`` (its own package), or the server
binary in sentinel mode."""


def _until(check: Callable[[], bool], what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if check():
                return
        except redis.RedisError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"not within {timeout} s: {what}")
        time.sleep(0.05)


class SentinelFleet:
    """``master`` and ``replica`` (``RedisServer``s) watched by three sentinels that
    agree (quorum 2) a master is down after ``down_after_ms``."""

    def __init__(self, *, down_after_ms: int = 1000, failover_timeout_ms: int = 5000) -> None:
        if SENTINEL_COMMAND is None:
            raise RuntimeError(
                "redis-sentinel is not installed (scripts/test.sh installs it: "
                "apt-get install redis-server redis-sentinel)"
            )
        self.master = RedisServer()
        self.replica = RedisServer()
        self.down_after_ms = down_after_ms
        self.failover_timeout_ms = failover_timeout_ms
        self.ports = [free_port() for _ in range(3)]
        self.directory = Path(tempfile.mkdtemp(prefix="tgfast-sentinel-"))
        self.processes: list[subprocess.Popen[bytes]] = []

    def url(self, db: int = 0) -> str:
        hosts = ",".join(f"127.0.0.1:{port}" for port in self.ports)
        return f"redis+sentinel://{hosts}/{SERVICE}/{db}"

    def admin(self, port: int) -> redis.Redis:
        return redis.Redis(port=port, socket_timeout=2, socket_connect_timeout=2)

    def start(self) -> None:
        """Master, replica in sync, then the sentinels, once each knows the replica and
        the two other sentinels (else it could not fail over)."""
        self.master.start()
        self.replica.start()
        with self.admin(self.replica.port) as replica:
            replica.replicaof("127.0.0.1", self.master.port)
            _until(lambda: replica.info("replication")["master_link_status"] == "up",
                   "the replica in sync", 15)  # fmt: skip
        for n, port in enumerate(self.ports):
            config = self.directory / f"sentinel-{n}.conf"
            config.write_text(
                f"port {port}\nbind 127.0.0.1\ndir {self.directory}\n"
                f"logfile {self.directory / f'sentinel-{n}.log'}\n"
                f"sentinel monitor {SERVICE} 127.0.0.1 {self.master.port} 2\n"
                f"sentinel down-after-milliseconds {SERVICE} {self.down_after_ms}\n"
                f"sentinel failover-timeout {SERVICE} {self.failover_timeout_ms}\n"
                f"sentinel parallel-syncs {SERVICE} 1\n"
            )
            assert SENTINEL_COMMAND is not None
            self.processes.append(
                subprocess.Popen(
                    [*SENTINEL_COMMAND, str(config)],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )  # fmt: skip
            )
        for port in self.ports:
            with self.admin(port) as sentinel:

                def ready(sentinel: redis.Redis = sentinel) -> bool:
                    state = sentinel.sentinel_master(SERVICE)
                    return int(state["num-slaves"]) >= 1 and int(state["num-other-sentinels"]) >= 2

                _until(ready, f"sentinel {port} seeing the replica and the others", 20)

    def master_address(self) -> tuple[str, int]:
        """Where the sentinels say the master is (the first that answers)."""
        for port in self.ports:
            try:
                with self.admin(port) as sentinel:
                    host, master_port = sentinel.sentinel_get_master_addr_by_name(SERVICE)
                    return str(host), int(master_port)
            except redis.RedisError:
                continue
        raise RuntimeError("no sentinel answered")

    def sync_replica(self) -> None:
        """Return once the replica has every write the master had (WAIT on a write of
        this connection: replication is in order)."""
        with self.admin(self.master.port) as master:
            master.set("tgfast-test:fence", "1")
            assert master.wait(1, 5000) == 1, "the replica did not acknowledge"

    def kill_master(self) -> None:
        """SIGKILL the master (no shutdown, no save)."""
        self.master.kill()

    def wait_failover(self, timeout: float = 20.0) -> None:
        """Return once every sentinel names the replica as the master and it is one."""

        def promoted() -> bool:
            for port in self.ports:
                with self.admin(port) as sentinel:
                    _, master_port = sentinel.sentinel_get_master_addr_by_name(SERVICE)
                    if int(master_port) != self.replica.port:
                        return False
            with self.admin(self.replica.port) as replica:
                return bool(replica.info("replication")["role"] == "master")

        _until(promoted, "the failover to the replica", timeout)

    def log(self) -> str:
        return "\n".join(
            path.read_text(errors="replace")[-3000:]
            for path in sorted(self.directory.glob("sentinel-*.log"))
        )

    def close(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.kill()
            process.wait()
        self.processes.clear()
        self.master.close()
        self.replica.close()
        shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> SentinelFleet:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
