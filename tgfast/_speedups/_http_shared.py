"""What both twins of the HTTP client protocol share: its errors.

Both are ``OSError`` subclasses: to a ``Bot`` they are network failures like a reset
connection (``TelegramNetworkError``), repeated only where a call may be repeated.
"""

from __future__ import annotations

__all__ = ["ConnectFailed", "MalformedResponse"]


class MalformedResponse(ConnectionError):
    """The server's answer is not an HTTP/1.1 response we can read, or stopped short."""


class ConnectFailed(ConnectionError):
    """No connection was made: nothing reached the server, so any call may be retried."""
