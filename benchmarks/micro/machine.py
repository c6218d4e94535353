"""The machine line the standalone benchmark scripts print above their tables.

``machine: CPU, cores | Python | OS | tgfast version (build) | package versions | extras
| date``: ratios in one run hold on this shared machine, absolute times do not, so every
table says where and with what it was made.
"""

from __future__ import annotations

import datetime
import os
import platform
from collections.abc import Iterable
from importlib import metadata


def version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "absent"


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def machine_line(packages: Iterable[str] = (), *extras: str) -> str:
    """The line, with the versions of ``packages`` and any ``extras`` (e.g. a server's)."""
    import tgfast

    build = "compiled" if tgfast.__speedups__ else "pure Python"
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    parts = [
        f"machine: {cpu_model()}, {os.cpu_count()} cores",
        f"{platform.python_implementation()} {platform.python_version()}",
        platform.platform(),
        f"tgfast {tgfast.__version__} ({build})",
        *(f"{name} {version(name)}" for name in packages),
        *extras,
        now,
    ]
    return " | ".join(parts)
