"""A real ``redis-server`` on 127.0.0.1 for tests: start, stop, restart on the same port.

Not a conftest: test modules that need Redis make their own server (a fixture of
their own scope), so a test that stops its server disturbs no other test. The server
runs with ``--save '' --appendonly no`` in a temporary directory; ``stop(save=True)``
writes the dump file (``SHUTDOWN SAVE``) that the next ``start()`` loads, so data
survives a restart only when a test asks for it.
"""

from __future__ import annotations

import atexit
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

__all__ = ["RedisServer", "free_port"]

REDIS_SERVER = shutil.which("redis-server")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _command(port: int, *parts: str, timeout: float = 1.0) -> bytes:
    """Send one RESP command and return the first reply line (no redis-py needed)."""
    payload = f"*{len(parts)}\r\n".encode() + b"".join(
        f"${len(p.encode())}\r\n{p}\r\n".encode() for p in parts
    )
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(payload)
        reply = b""
        while not reply.endswith(b"\r\n"):
            chunk = sock.recv(4096)
            if not chunk:
                break
            reply += chunk
        return reply


class RedisServer:
    """One ``redis-server`` process; ``url`` stays the same across restarts."""

    def __init__(self, port: int | None = None) -> None:
        if REDIS_SERVER is None:
            raise RuntimeError(
                "redis-server is not installed (scripts/test.sh installs it: "
                "apt-get install redis-server)"
            )
        self.port = port or free_port()
        self.directory = Path(tempfile.mkdtemp(prefix="tgfast-redis-"))
        self.process: subprocess.Popen[bytes] | None = None
        atexit.register(self.close)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> None:
        """Start the server and return once it answers PING."""
        assert self.process is None, "already running"
        self.process = subprocess.Popen(
            [
                str(REDIS_SERVER),
                "--port", str(self.port),
                "--bind", "127.0.0.1",
                "--save", "",
                "--appendonly", "no",
                "--dir", str(self.directory),
                "--dbfilename", "dump.rdb",
                "--logfile", str(self.directory / "redis.log"),
                "--daemonize", "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + timeout
        while True:
            try:
                if _command(self.port, "PING").startswith(b"+PONG"):
                    return
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                log = (self.directory / "redis.log").read_text(errors="replace")[-2000:]
                self.kill()
                raise RuntimeError(f"redis-server on port {self.port} did not start:\n{log}")
            time.sleep(0.01)

    def stop(self, *, save: bool = False, timeout: float = 10.0) -> None:
        """Stop the server; with ``save``, write the dump file the next start loads."""
        process = self.process
        if process is None:
            return
        try:
            _command(self.port, "SHUTDOWN", "SAVE" if save else "NOSAVE")
        except OSError:
            pass  # the connection closes as the server exits
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise RuntimeError("redis-server did not shut down") from None
        finally:
            self.process = None

    def restart(self, *, save: bool = True) -> None:
        self.stop(save=save)
        self.start()

    def flushall(self) -> None:
        assert _command(self.port, "FLUSHALL").startswith(b"+OK")

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def close(self) -> None:
        """Kill the server and remove its directory (also run at exit)."""
        self.kill()
        shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> RedisServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
