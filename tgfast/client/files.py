"""The file-system side of downloads: a partial file nobody can plant in advance, and
reading a local Bot API server's files without leaving its directory."""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path

from ..errors import TelegramNotFound, TgfastError

__all__ = ["create_partial", "open_local_file"]

_BINARY = getattr(os, "O_BINARY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def create_partial(destination: Path) -> tuple[int, Path]:
    """A new, empty file beside ``destination`` for the download to be written to and
    then renamed over it: ``(fd, path)``.

    The name is random and the file is created exclusively (``O_EXCL``), so a file or
    symlink planted there beforehand is never opened or followed; it is in the same
    directory so that the final rename is atomic. Permissions follow the umask, as for
    any file the program creates.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _BINARY
    for _ in range(100):
        partial = destination.with_name(f".{destination.name}.{secrets.token_hex(8)}.part")
        try:
            return os.open(partial, flags, 0o666), partial
        except FileExistsError:
            continue
    raise FileExistsError(f"no free name for a partial download beside {destination}")


def open_local_file(local_dir: str, file_path: str, redact: Callable[[str], str] = str) -> int:
    """A read-only descriptor for ``file_path``, an absolute path that a local Bot API
    server answered ``getFile`` with, if it lies inside ``local_dir`` (its ``--dir``).

    The server's answer is not trusted to name a file we should read: a path outside
    the directory, or one that reaches out of it through a symlink, is refused. Where
    the platform allows, each component below the directory is opened with
    ``O_NOFOLLOW`` relative to its parent, so a symlink swapped in after a check cannot
    redirect the read either.

    A local server keeps a bot's files under a directory named by its token: every
    message names the path through ``redact``, and a failure to open is a
    ``TelegramNotFound`` whose text went through it too (an ``OSError`` names the path).
    """
    shown = redact(file_path)
    root = os.path.abspath(local_dir)
    wanted = os.path.normpath(file_path)
    relative = os.path.relpath(wanted, root) if wanted.startswith(root + os.sep) else None
    if relative is None or relative.startswith(os.pardir) or relative == os.curdir:
        raise TgfastError(
            f"refusing to read {shown!r}: outside the local Bot API directory {redact(root)!r}"
        )
    try:
        if os.open in os.supports_dir_fd and _NOFOLLOW and _DIRECTORY:
            return _open_below(root, relative.split(os.sep), shown)
        real = os.path.realpath(wanted)  # pragma: no cover - a platform without openat
        if not real.startswith(os.path.realpath(root) + os.sep):  # pragma: no cover
            raise TgfastError(f"refusing to read {shown!r}: it leads out of {redact(root)!r}")
        return os.open(real, os.O_RDONLY | _BINARY)  # pragma: no cover
    except OSError as exc:
        raise TelegramNotFound("download", 404, f"cannot read {shown!r}: {exc.strerror}") from None


def _open_below(root: str, parts: list[str], shown: str) -> int:
    parent = os.open(root, os.O_RDONLY | _DIRECTORY)
    try:
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            # the file itself without blocking: a FIFO planted there must not hang us
            flags = os.O_RDONLY | _NOFOLLOW | (_NONBLOCK if last else _DIRECTORY)
            try:
                fd = os.open(part, flags, dir_fd=parent)
            except OSError as exc:
                if os.path.islink(os.path.join(root, *parts[: i + 1])):
                    raise TgfastError(
                        f"refusing to read {shown!r}: a symlink inside the local Bot API directory"
                    ) from None
                raise exc from None
            os.close(parent)
            parent = fd
        if not stat.S_ISREG(os.fstat(parent).st_mode):
            raise TgfastError(f"refusing to read {shown!r}: not a regular file")
        fd, parent = parent, -1
        return fd
    finally:
        if parent >= 0:
            os.close(parent)
