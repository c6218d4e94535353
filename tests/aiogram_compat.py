"""Run a bot written the aiogram way on aiogram, and the same source on tgfast after
``s/aiogram/tgfast/`` in its imports; record the Bot API calls each makes.

Each run gets its own FakeTelegram, so message ids and the like are the same in both;
updates are shown to the fake (so that it knows the messages a bot replies to), then fed
one at a time through ``dp.feed_raw_update``, each handled before the next, so the two call lists are comparable call for call.
"""

from __future__ import annotations

import asyncio
import itertools
import re
import sys
import types
from pathlib import Path
from typing import Any

from tgfast.testing import FakeTelegram

__all__ = ["BOTS", "complete", "port", "record"]

BOTS_DIR = Path(__file__).parent / "aiogram_bots"
BOTS = sorted(path.stem for path in BOTS_DIR.glob("*.py") if not path.stem.startswith("_"))
_IMPORT = re.compile(r"^(\s*)(from|import)\s+aiogram\b", re.MULTILINE)
# the calls a framework makes for itself, not for the bot's logic
_OWN = frozenset({"getMe", "getUpdates", "deleteWebhook", "close", "logOut"})


def port(source: str) -> str:
    """The one change a user makes: ``aiogram`` -> ``tgfast`` in import statements."""
    return _IMPORT.sub(r"\1\2 tgfast", source)


def load(name: str, framework: str) -> types.ModuleType:
    """The bot module ``name``, as written (aiogram) or ported (tgfast), freshly executed."""
    path = BOTS_DIR / f"{name}.py"
    source = path.read_text()
    if framework == "tgfast":
        source = port(source)
    module = types.ModuleType(f"aiogram_bots_{framework}_{name}")
    module.__file__ = str(path)
    sys.modules[module.__name__] = module  # for dataclass-like machinery that looks it up
    exec(compile(source, str(path), "exec"), module.__dict__)
    return module


def complete(spec: dict[str, Any], update_id: int, message_id: int) -> dict[str, Any]:
    """A whole update from the short form in a bot's ``UPDATES``: ids, dates, a private
    chat and a user filled in where the bot module left them out."""
    ((kind, event),) = spec.items()
    event = dict(event)
    user = {"id": 1, "is_bot": False, "first_name": "User", **event.pop("from", {})}
    if kind in {"message", "edited_message", "channel_post"}:
        chat = {"id": user["id"], "type": "private", **event.pop("chat", {})}
        event = {
            "message_id": message_id,
            "date": 1_700_000_000,
            "chat": chat,
            "from": user,
            **event,
        }
    elif kind == "callback_query":
        chat = {"id": user["id"], "type": "private"}
        menu = {"inline_keyboard": [[{"text": "menu", "callback_data": "menu"}]]}
        message = {"message_id": message_id, "date": 1_700_000_000, "chat": chat, "text": "menu"}
        message["reply_markup"] = menu
        event = {
            "id": f"cq{update_id}",
            "from": user,
            "chat_instance": "ci",
            "message": message,
            **event,
        }
    elif kind in {"chat_member", "my_chat_member"}:
        event = {"from": user, "date": 1_700_000_000, **event}
    return {"update_id": update_id, kind: event}


async def record(name: str, framework: str) -> list[tuple[str, dict[str, Any]]]:
    """The calls bot ``name`` makes on ``framework`` for its ``UPDATES``, in order."""
    module = load(name, framework)
    async with FakeTelegram(token="42:TEST") as fake:
        bot = module.make_bot(fake.url)
        dp = module.dp
        await dp.emit_startup(bot=bot, dispatcher=dp, **dp.workflow_data)
        counter = itertools.count(1)
        try:
            for update_id, spec in enumerate(module.UPDATES, 1):
                update = fake.add_update(complete(spec, update_id, 100 + next(counter)))
                await dp.feed_raw_update(bot, update)
                await asyncio.sleep(0)
        finally:
            await dp.emit_shutdown(bot=bot, dispatcher=dp, **dp.workflow_data)
            await bot.session.close()
        return [(call.method, call.params) for call in fake.calls if call.method not in _OWN]
