"""aiogram's path for the bot-wide defaults: ``DefaultBotProperties`` and ``Default``."""

from __future__ import annotations

from ..defaults import DEFAULT, BotDefaults, Default, DefaultBotProperties

__all__ = ["DEFAULT", "BotDefaults", "Default", "DefaultBotProperties"]
