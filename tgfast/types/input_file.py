"""Files to upload: ``bot.send_photo(chat_id, FSInputFile("cat.jpg"))``.

A file already on Telegram's servers is sent as its ``file_id`` string, and a file on
the web as its URL string: neither needs an ``InputFile``, and a call without one goes
out as JSON. Only calls holding an ``InputFile`` become multipart uploads.

Each kind takes aiogram's ``chunk_size`` and reads itself as aiogram's do:
``async for chunk in upload.read(bot)`` (a custom session streams it so).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

from ._types import InputFile

__all__ = ["BufferedInputFile", "FSInputFile", "InputFile", "URLInputFile"]

CHUNK_SIZE = 64 * 1024


class _Upload(InputFile):
    """Shared by the upload kinds: a file name and what to stream."""

    __slots__ = ("content_type", "filename")

    filename: str
    content_type: str | None

    # Two uploads are the same only when they are the same object.
    __eq__ = object.__eq__
    __hash__ = object.__hash__  # type: ignore[assignment]

    def chunks(self) -> AsyncIterator[bytes] | bytes:
        """The content, as bytes or as an async iterator of byte chunks."""
        raise NotImplementedError

    async def read(self, bot: Any = None) -> AsyncIterator[bytes]:
        """The content in chunks of at most ``chunk_size`` bytes (aiogram's reader; the
        bot is not needed here)."""
        content = self.chunks()
        if isinstance(content, bytes):
            size = self.chunk_size
            for start in range(0, len(content), size):
                yield content[start : start + size]
            return
        async for chunk in content:
            yield chunk


class FSInputFile(_Upload):
    """A file on the local disk, streamed in chunks when the call is sent.

    It is read again on every attempt, so a retried upload sends it whole.
    """

    __slots__ = ("chunk_size", "path")

    def __init__(
        self,
        path: str | os.PathLike[str],
        filename: str | None = None,
        *,
        content_type: str | None = None,
        chunk_size: int = CHUNK_SIZE,
    ) -> None:
        self.path = Path(path)
        self.filename = filename or self.path.name
        self.content_type = content_type
        self.chunk_size = _chunk_size(chunk_size)
        self._extra = None

    async def _read(self) -> AsyncIterator[bytes]:
        with self.path.open("rb") as f:
            while chunk := f.read(self.chunk_size):
                yield chunk

    def chunks(self) -> AsyncIterator[bytes]:
        return self._read()

    def __repr__(self) -> str:
        return f"FSInputFile({str(self.path)!r}, filename={self.filename!r})"


class BufferedInputFile(_Upload):
    """Bytes held in memory, uploaded under ``filename``."""

    __slots__ = ("chunk_size", "data")

    def __init__(
        self,
        data: bytes,
        filename: str,
        chunk_size: int = CHUNK_SIZE,
        *,
        content_type: str | None = None,
    ) -> None:
        self.data = bytes(data)
        self.filename = filename
        self.content_type = content_type
        self.chunk_size = _chunk_size(chunk_size)
        self._extra = None

    @classmethod
    def from_file(
        cls, path: str | os.PathLike[str], filename: str | None = None, chunk_size: int = CHUNK_SIZE
    ) -> BufferedInputFile:
        """Read a whole file now (for small files sent many times)."""
        p = Path(path)
        return cls(p.read_bytes(), filename or p.name, chunk_size)

    def chunks(self) -> bytes:
        return self.data

    def __repr__(self) -> str:
        return f"BufferedInputFile(<{len(self.data)} bytes>, filename={self.filename!r})"


class URLInputFile(_Upload):
    """A file on the web, fetched while the call is sent and streamed on to Telegram
    (for a URL Telegram cannot fetch itself: headers, a private host, a size over
    Telegram's URL limits). Fetched again on every attempt."""

    __slots__ = ("chunk_size", "headers", "timeout", "url")

    def __init__(
        self,
        url: str,
        headers: Mapping[str, str] | None = None,
        filename: str | None = None,
        chunk_size: int = CHUNK_SIZE,
        timeout: float = 30,
        *,
        content_type: str | None = None,
    ) -> None:
        self.url = url
        self.headers = dict(headers or {})
        self.filename = filename or url.rsplit("/", 1)[-1].partition("?")[0] or "file"
        self.content_type = content_type
        self.chunk_size = _chunk_size(chunk_size)
        self.timeout = timeout
        self._extra = None

    async def _read(self) -> AsyncIterator[bytes]:
        import aiohttp  # only uploads from a URL need it here

        timeout = aiohttp.ClientTimeout(total=self.timeout)
        async with (
            aiohttp.ClientSession(timeout=timeout) as session,
            session.get(self.url, headers=self.headers, raise_for_status=True) as response,
        ):
            async for chunk in response.content.iter_chunked(self.chunk_size):
                yield chunk

    def chunks(self) -> AsyncIterator[bytes]:
        return self._read()

    def __repr__(self) -> str:
        return f"URLInputFile({self.url!r}, filename={self.filename!r})"


def _chunk_size(value: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"chunk_size must be a positive int, not {value!r}")
    return value
