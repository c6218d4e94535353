"""Run a bot written the aiogram way on aiogram, and the same source on tgfast after
``s/aiogram/tgfast/`` in its imports; record the Bot API calls each makes.

Each run gets its own FakeTelegram, so message ids and the like are the same in both;
updates are shown to the fake (so that it knows the messages a bot replies to), then fed
one at a time through ``dp.feed_raw_update``, each handled before the next, so the two call lists are comparable call for call.
"""

from __future__ import annotations

import asyncio
import re
import sys
import types
from collections.abc import Callable
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


async def record(name: str, framework: str, mode: str = "feed") -> list[tuple[str, dict[str, Any]]]:
    """The calls bot ``name`` makes on ``framework`` for its ``UPDATES``, in order:
    fed one by one to ``dp.feed_raw_update`` (``mode="feed"``), or taken by
    ``dp.start_polling`` from the fake's getUpdates (``mode="polling"``), the next update
    offered once the calls for the last have stopped coming."""
    module = load(name, framework)
    async with FakeTelegram(token="42:TEST") as fake:
        bot = module.make_bot(fake.url)
        dp = module.dp
        updates = [
            complete(spec, update_id, 100 + update_id)
            for update_id, spec in enumerate(module.UPDATES, 1)
        ]
        if mode == "polling":
            await _poll(dp, bot, fake, updates)
        else:
            await dp.emit_startup(bot=bot, dispatcher=dp, **dp.workflow_data)
            try:
                for update in updates:
                    await dp.feed_raw_update(bot, fake.add_update(update))
            finally:
                await dp.emit_shutdown(bot=bot, dispatcher=dp, **dp.workflow_data)
                await bot.session.close()
        return [(call.method, call.params) for call in fake.calls if call.method not in _OWN]


async def _poll(dp: Any, bot: Any, fake: FakeTelegram, updates: list[dict[str, Any]]) -> None:
    polling = asyncio.create_task(dp.start_polling(bot, handle_signals=False, polling_timeout=1))
    try:
        await _settled(fake, lambda: any(c.method == "getUpdates" for c in fake.calls))
        for update in updates:
            fake.add_update(update)
            await _settled(fake, lambda: True)
    finally:
        await dp.stop_polling()
        await asyncio.wait_for(polling, 30)


async def _settled(fake: FakeTelegram, ready: Callable[[], bool], quiet: float = 0.4) -> None:
    """Until ``ready()`` and no call but getUpdates for ``quiet`` seconds (30 s at most)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    seen, since = -1, loop.time()
    while loop.time() < deadline:
        count = sum(call.method != "getUpdates" for call in fake.calls)
        if count != seen:
            seen, since = count, loop.time()
        elif ready() and loop.time() - since >= quiet:
            return
        await asyncio.sleep(0.05)
    raise TimeoutError("the bot kept calling, or never polled")
