"""The floor: the least a webhook echo bot can do on aiohttp, with no framework.

    python floor_echo.py --port P --path /webhook --secret S --token T --api-url URL

A bare ``aiohttp.web`` handler checks the secret, parses the body with
``orjson.loads``, answers 200 at once and, in a background task, sleeps
10 ms and POSTs ``sendMessage`` (an orjson body) with one bare
``aiohttp.ClientSession`` (default connector).  No types, no routing, no
bounds: what tgfast's webhook path is measured against.
"""

from __future__ import annotations

import asyncio
import hmac
from typing import Any

import botcli
import orjson
from aiohttp import ClientSession, web

SLEEP = 0.01
JSON = {"Content-Type": "application/json"}


def build_app(secret: str, path: str, token: str, api_url: str) -> web.Application:
    app = web.Application()
    tasks: set[asyncio.Task[None]] = set()
    expected = secret.encode()
    endpoint = f"{api_url}/bot{token}/sendMessage"

    async def on_startup(app: web.Application) -> None:
        app["session"] = ClientSession()

    async def on_cleanup(app: web.Application) -> None:
        await app["session"].close()

    async def echo(message: dict[str, Any]) -> None:
        await asyncio.sleep(SLEEP)
        body = orjson.dumps({"chat_id": message["chat"]["id"], "text": message["text"]})
        async with app["session"].post(endpoint, data=body, headers=JSON) as resp:
            await resp.read()

    async def webhook(request: web.Request) -> web.Response:
        given = request.headers.get("X-Telegram-Bot-Api-Secret-Token", "").encode()
        if not hmac.compare_digest(given, expected):
            return web.Response(status=403)
        update = orjson.loads(await request.read())
        message = update.get("message")
        if message is not None and "text" in message:
            task = asyncio.get_running_loop().create_task(echo(message))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        return web.Response()

    app.router.add_post(path, webhook)
    app.on_startup.append(on_startup)
    app.on_cleanup.append(on_cleanup)
    return app


def main() -> None:
    args = botcli.parser("The floor: a bare aiohttp webhook echo bot.").parse_args()
    app = build_app(args.secret, args.path, args.token, args.api_url)
    botcli.run(lambda: botcli.serve(app, args.host, args.port), args.loop)


if __name__ == "__main__":
    main()
