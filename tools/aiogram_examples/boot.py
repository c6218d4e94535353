"""Run one aiogram example (or its tgfast port) with every Bot pointed at $FAKE_URL.

Started by run.py as ``python boot.py EXAMPLE.py [ARGS...]`` with $FW (aiogram or
tgfast), $FAKE_URL and $BOT_TOKEN set. A Bot made without a session gets one on the
fake, through the framework's own public AiohttpSession/TelegramAPIServer. A module
with a ``router`` and no ``__main__`` block is served by a dispatcher made here.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import runpy
import sys
from typing import Any


def main() -> None:
    framework, fake, path = os.environ["FW"], os.environ["FAKE_URL"], sys.argv[1]
    bot_module = importlib.import_module(f"{framework}.client.bot")
    sessions = importlib.import_module(f"{framework}.client.session.aiohttp")
    servers = importlib.import_module(f"{framework}.client.telegram")
    original = bot_module.Bot.__init__

    def on_fake(self: Any, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("session") is None:
            api = servers.TelegramAPIServer.from_base(fake)
            kwargs["session"] = sessions.AiohttpSession(api=api)
        original(self, *args, **kwargs)

    bot_module.Bot.__init__ = on_fake
    sys.path.insert(0, os.path.dirname(path))
    sys.argv = [path, *sys.argv[2:]]
    with open(path) as source:
        has_main = "__main__" in source.read()
    if has_main:
        runpy.run_path(path, run_name="__main__")
        return
    names = runpy.run_path(path, run_name="example")
    top = importlib.import_module(framework)
    dp = top.Dispatcher()
    dp.include_router(names["router"])
    asyncio.run(dp.start_polling(top.Bot(os.environ["BOT_TOKEN"])))


if __name__ == "__main__":
    main()
