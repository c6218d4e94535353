"""aiogram's ``aiogram.webhook`` at the same path: request handlers for an aiohttp
application you run yourself, on tgfast's webhook machinery (``tgfast.server.intake``).

For a server that tgfast runs (connection bounds, health and metrics paths, drain on
SIGTERM, several workers) use ``tgfast webhook app:dp`` or ``tgfast.server.WebhookServer``.
"""

from __future__ import annotations

__all__: list[str] = []
