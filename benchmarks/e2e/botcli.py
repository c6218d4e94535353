"""What the floor and aiogram echo bots share: their command line and how they serve.

Both take the options of ``tgfast webhook`` (``--host --port --path --secret
--token --api-url``) so the runner starts every contender the same way, and
both run on uvloop by default, like tgfast, so that the loop is not what is
compared (``--loop asyncio`` for the stock loop).
"""

from __future__ import annotations

import argparse
import asyncio
import signal
from collections.abc import Callable, Coroutine
from typing import Any

from aiohttp import web


async def serve(app: web.Application, host: str, port: int) -> None:
    """Serve an aiohttp app until SIGTERM/SIGINT, then clean it up (its on_shutdown runs)."""
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await runner.cleanup()


def run(main: Callable[[], Coroutine[Any, Any, None]], loop: str) -> None:
    """Run ``main()`` on uvloop or the stock asyncio loop."""
    if loop == "uvloop":
        import uvloop

        uvloop.run(main())
    else:
        asyncio.run(main())


def parser(description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--path", default="/webhook")
    p.add_argument("--secret", default="")
    p.add_argument("--token", required=True)
    p.add_argument("--api-url", required=True)
    p.add_argument("--loop", choices=("uvloop", "asyncio"), default="uvloop")
    return p
