"""Testing bots without Telegram: a fake Bot API server on real sockets."""

from __future__ import annotations

from . import updates
from ._request import Call, UploadedFile
from .fake import DEFAULT_TOKEN, FakeTelegram, Fault

__all__ = ["DEFAULT_TOKEN", "Call", "FakeTelegram", "Fault", "UploadedFile", "updates"]
