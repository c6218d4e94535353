"""Where calls go: a Bot API server, ``TelegramAPIServer`` (aiogram's class: URL
templates, ``from_base``, ``PRODUCTION``, ``TEST``).

``TelegramServer(url, local=..., local_dir=...)`` is tgfast's earlier way to describe
one, kept as a constructor that returns a ``TelegramAPIServer``; ``TELEGRAM`` is
``PRODUCTION`` (the same object).
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

from yarl import URL

__all__ = [
    "PRODUCTION",
    "TELEGRAM",
    "TEST",
    "APIServer",
    "BareFilesPathWrapper",
    "FilesPathWrapper",
    "SimpleFilesPathWrapper",
    "TelegramAPIServer",
    "TelegramServer",
    "check_base_url",
]


def check_base_url(base: str) -> str:
    """``base`` if it can be a Bot API server's address; a ``ValueError`` saying why
    not otherwise (a bracket left open, a port out of range, no host, not http)."""
    try:
        url = URL(base)
        port = url.port
    except (ValueError, TypeError) as exc:
        raise ValueError(f"not a valid URL: {base!r} ({exc})") from None
    if url.scheme not in ("http", "https"):
        raise ValueError(f"not an http(s) URL: {base!r}")
    if not url.host:
        raise ValueError(f"no host in {base!r}")
    if port is not None and not 0 < port < 65536:
        raise ValueError(f"port out of range 1-65535 in {base!r}")
    if url.query_string or url.fragment:
        raise ValueError(f"a base URL has no query or fragment: {base!r}")
    return base


class FilesPathWrapper(ABC):
    """Maps a local Bot API server's file paths to this machine's, and back
    (the server runs in a container whose ``--dir`` is mounted elsewhere here)."""

    @abstractmethod
    def to_local(self, path: Path | str) -> Path | str: ...

    @abstractmethod
    def to_server(self, path: Path | str) -> Path | str: ...


class BareFilesPathWrapper(FilesPathWrapper):
    """The server's paths are this machine's paths."""

    def to_local(self, path: Path | str) -> Path | str:
        return path

    def to_server(self, path: Path | str) -> Path | str:
        return path


class SimpleFilesPathWrapper(FilesPathWrapper):
    """``server_path`` on the server is ``local_path`` here."""

    def __init__(self, server_path: Path, local_path: Path) -> None:
        self.server_path = server_path
        self.local_path = local_path

    def to_local(self, path: Path | str) -> Path | str:
        return Path(self.local_path) / Path(path).relative_to(self.server_path)

    def to_server(self, path: Path | str) -> Path | str:
        return Path(self.server_path) / Path(path).relative_to(self.local_path)


@dataclass(frozen=True)
class TelegramAPIServer:
    """A Bot API server: Telegram's, a local ``telegram-bot-api``, a balancer, a fake.
    ``base`` and ``file`` are templates with ``{token}``, ``{method}`` and ``{path}``;
    ``from_base(url)`` fills them with Telegram's layout, and ``base_url`` is that
    plain address again (what a repr or a log line shows: never a token).

    In local mode (``is_local=True``, a server started with ``--local``) ``getFile``
    answers with absolute paths, and downloads read them from disk, but only inside
    ``local_dir`` (the server's ``--dir`` as seen from here, after
    ``wrap_local_file``): tgfast's addition, because the server's answer alone should
    not decide which file of this machine is read. With a ``SimpleFilesPathWrapper`` it
    defaults to the wrapper's ``local_path``; without either, a local download fails
    with an error that says to pass it.
    """

    base: str
    file: str
    is_local: bool = False
    wrap_local_file: FilesPathWrapper = field(default=BareFilesPathWrapper())
    local_dir: str | None = None

    def __post_init__(self) -> None:
        local_dir: str | Path | None = self.local_dir
        if local_dir is None and isinstance(self.wrap_local_file, SimpleFilesPathWrapper):
            local_dir = self.wrap_local_file.local_path
        if local_dir is not None:
            object.__setattr__(self, "local_dir", os.fspath(local_dir))

    @property
    def local(self) -> bool:
        """``is_local``, by ``TelegramServer``'s name."""
        return self.is_local

    @property
    def base_url(self) -> str:
        """The server's address without the templates: ``https://api.telegram.org``."""
        head, found, _ = self.base.partition("/bot{token}")
        return head if found else self.base.partition("{")[0].rstrip("/")

    def api_url(self, token: str, method: str) -> str:
        return self.base.format(token=token, method=method)

    def file_url(self, token: str, path: str | Path) -> str:
        return self.file.format(token=token, path=path)

    def to_local(self, file_path: str) -> str:
        """The path on this machine of a file the server named."""
        return os.fspath(self.wrap_local_file.to_local(file_path))

    @classmethod
    def from_base(cls, base: str, **kwargs: Any) -> TelegramAPIServer:
        """The server at ``base`` (``"http://localhost:8081"``), with Telegram's URL
        layout; a ``base`` that is not an http(s) URL with a host and a valid port is a
        ``ValueError`` here, not a failure at the first call."""
        base = check_base_url(base).rstrip("/")
        return cls(
            base=f"{base}/bot{{token}}/{{method}}",
            file=f"{base}/file/bot{{token}}/{{path}}",
            **kwargs,
        )


def TelegramServer(  # tgfast's earlier class name, kept as its constructor
    base: str = "https://api.telegram.org",
    local: bool = False,
    local_dir: str | os.PathLike[str] | None = None,
) -> TelegramAPIServer:
    """tgfast's earlier way to describe a server: ``TelegramServer(url, local=...,
    local_dir=...)`` is ``TelegramAPIServer.from_base(url, is_local=..., local_dir=...)``.

    Unlike ``from_base``, ``local=True`` without ``local_dir`` is refused at once."""
    if local and not local_dir:
        raise ValueError(
            "TelegramServer(local=True) needs local_dir, the local Bot API server's "
            "--dir: files are read from there and nowhere else"
        )
    return TelegramAPIServer.from_base(
        base, is_local=local, local_dir=None if local_dir is None else os.fspath(local_dir)
    )


PRODUCTION = TelegramAPIServer.from_base("https://api.telegram.org")
"""Telegram's server."""

TELEGRAM = PRODUCTION
"""``PRODUCTION``, by tgfast's earlier name (the same object)."""

TEST = TelegramAPIServer(
    base="https://api.telegram.org/bot{token}/test/{method}",
    file="https://api.telegram.org/file/bot{token}/test/{path}",
)
"""Telegram's test environment."""

APIServer: TypeAlias = TelegramAPIServer
"""What a ``Bot`` sends to (``TelegramAPIServer``; the name stays for annotations)."""
