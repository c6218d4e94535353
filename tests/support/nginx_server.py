"""A real ``nginx`` on 127.0.0.1 as a round-robin balancer, for tests and the benchmark.

Not a conftest: whoever needs a balancer makes one (``with Nginx([p1, p2]) as lb:``)
and posts to ``lb.url``. nginx runs in the foreground (``daemon off``) from a config
written to a temporary directory, one worker process, no access log. The upstream is
plain round robin over the given ports, as a deployment would put it in front of
tgfast workers: ``proxy_next_upstream`` moves a request on when a worker refuses the
connection, times out or answers 502/503/504 (a worker that died or is draining),
including POSTs (``non_idempotent``), which is what Telegram's redelivery would do
anyway. ``X-Forwarded-For`` and ``X-Real-IP`` carry the client's address.

``scripts/test.sh`` installs Debian's nginx package when it is missing.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from redis_server import free_port

__all__ = ["NGINX", "Nginx", "nginx_config"]

NGINX = shutil.which("nginx") or next(
    (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if Path(p).exists()), None
)


def nginx_config(
    directory: Path,
    port: int,
    upstreams: Sequence[int],
    *,
    keepalive: int = 32,
    next_upstream_tries: int = 0,
    fail_timeout: float = 1.0,
) -> str:
    """The nginx.conf text: listen on ``port``, round robin over ``upstreams``.

    ``next_upstream_tries`` 0 means as many tries as there are upstream servers.
    """
    servers = "\n".join(
        f"        server 127.0.0.1:{p} max_fails=1 fail_timeout={fail_timeout:g}s;"
        for p in upstreams
    )
    # as root, nginx's worker would switch to "nobody" and could not use the temp dirs
    user = "user root root;\n" if os.geteuid() == 0 else ""
    return f"""\
{user}worker_processes 1;
daemon off;
pid {directory}/nginx.pid;
error_log {directory}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {directory}/client_body;
    proxy_temp_path {directory}/proxy;
    fastcgi_temp_path {directory}/fastcgi;
    uwsgi_temp_path {directory}/uwsgi;
    scgi_temp_path {directory}/scgi;
    client_max_body_size 2m;
    client_body_buffer_size 2m;
    upstream tgfast_workers {{
{servers}
        keepalive {keepalive};
    }}
    server {{
        listen 127.0.0.1:{port} backlog=4096;
        location / {{
            proxy_pass http://tgfast_workers;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Real-IP $remote_addr;
            proxy_next_upstream error timeout http_502 http_503 http_504 non_idempotent;
            proxy_next_upstream_tries {next_upstream_tries};
            proxy_connect_timeout 1s;
            proxy_read_timeout 30s;
        }}
    }}
}}
"""


class Nginx:
    """One nginx process in front of ``upstreams`` (ports on 127.0.0.1)."""

    def __init__(
        self, upstreams: Sequence[int], port: int | None = None, **options: object
    ) -> None:
        if NGINX is None:
            raise RuntimeError(
                "nginx is not installed (scripts/test.sh installs it: apt-get install nginx)"
            )
        self.port = port or free_port()
        self.upstreams = list(upstreams)
        self.directory = Path(tempfile.mkdtemp(prefix="tgfast-nginx-"))
        self.config = self.directory / "nginx.conf"
        self.config.write_text(
            nginx_config(self.directory, self.port, self.upstreams, **options)  # type: ignore[arg-type]
        )
        self.process: subprocess.Popen[bytes] | None = None
        atexit.register(self.close)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def error_log(self) -> str:
        path = self.directory / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def start(self, timeout: float = 10.0) -> None:
        """Start nginx and return once it accepts connections."""
        assert self.process is None, "already running"
        self.process = subprocess.Popen(
            [str(NGINX), "-c", str(self.config), "-p", str(self.directory), "-e",
             str(self.directory / "error.log")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group: kill() takes the workers too
        )  # fmt: skip
        deadline = time.monotonic() + timeout
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                stderr = (
                    self.process.stderr.read().decode(errors="replace")
                    if (self.process.poll() is not None and self.process.stderr)
                    else ""
                )
                self.kill()
                raise RuntimeError(
                    f"nginx on port {self.port} did not start:\n{stderr}{self.error_log[-2000:]}"
                )
            time.sleep(0.02)

    def stop(self, timeout: float = 10.0) -> None:
        """Graceful stop (SIGQUIT: finish the requests in progress)."""
        process = self.process
        if process is None:
            return
        process.send_signal(3)  # SIGQUIT
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        finally:
            if process.stderr is not None:
                process.stderr.close()
            self.process = None

    def kill(self) -> None:
        """SIGKILL to the whole group: a killed master would leave its workers running."""
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            if self.process.stderr is not None:
                self.process.stderr.close()
            self.process = None

    def close(self) -> None:
        """Kill nginx and remove its directory (also run at exit)."""
        self.kill()
        shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> Nginx:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
