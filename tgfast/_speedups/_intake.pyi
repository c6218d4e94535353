"""Typing stub for the compiled webhook intake; its behaviour is that of ``_intake_py``.

Checked against the compiled module by ``tests/test_stubs.py`` (``mypy.stubtest``).
``server`` is the ``WebhookServer`` whose rare paths (health, metrics, logs, 400s,
``answer_later``) the protocol calls.
"""

import asyncio
from collections import deque
from typing import Any

from typing_extensions import disjoint_base

__all__ = ["IntakeState", "WebhookProtocol"]

@disjoint_base
class IntakeState:
    server: Any
    loop: asyncio.AbstractEventLoop
    processor: Any
    rejected: Any
    reclaimer: Any
    allows: Any
    decode: Any
    accepted: Any
    duplicate: Any
    path: bytes
    ok: bytes
    unavailable: tuple[bytes, ...]
    turn: int
    parked: deque[WebhookProtocol]
    waker: asyncio.Task[None] | None
    wrong_method: bytes
    too_large: bytes
    secret_refused: bytes
    secret: bytes | None
    max_body_size: int
    read_budget: int
    reading: int
    max_connections: int
    header_timeout: float
    body_timeout: float
    keepalive_timeout: float
    connections: set[WebhookProtocol]
    reply_mode: bool
    access_log: bool
    def __init__(
        self,
        server: Any,
        *,
        path: bytes,
        secret: bytes | None,
        secret_refused: bytes,
        retry_after: tuple[bytes, ...],
        max_body_size: int,
        read_budget: int,
        header_timeout: float,
        body_timeout: float,
        keepalive_timeout: float,
        max_connections: int,
        reply_mode: bool,
        allows: Any,
        access_log: bool,
    ) -> None: ...
    def refusal(self) -> bytes: ...
    def park(self, protocol: WebhookProtocol) -> None: ...
    def close(self) -> None: ...

@disjoint_base
class WebhookProtocol:
    @property
    def peer(self) -> str | None: ...
    @property
    def busy(self) -> bool: ...
    def __init__(self, state: IntakeState) -> None: ...
    def connection_made(self, transport: Any) -> None: ...
    def connection_lost(self, exc: BaseException | None) -> None: ...
    def eof_received(self) -> bool | None: ...
    def pause_writing(self) -> None: ...
    def resume_writing(self) -> None: ...
    def data_received(self, data: bytes) -> None: ...
    def on_message_begin(self) -> None: ...
    def on_url(self, url: bytes) -> None: ...
    def on_header(self, name: bytes, value: bytes) -> None: ...
    def on_headers_complete(self) -> None: ...
    def on_body(self, chunk: bytes) -> None: ...
    def on_message_complete(self) -> None: ...
    def unpark(self) -> None: ...
    def close(self) -> None: ...
