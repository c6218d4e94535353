"""The dispatchers being compared, each behind the same small interface.

Every contender registers twenty ``Command`` handlers, ``/cmd0`` ... ``/cmd19``,
in that order, and is fed updates whose text is ``/cmd19``: the last handler,
so a dispatcher that tries its filters one by one pays for all twenty.  Each
handler counts its calls, so a benchmark can check that every update it timed
really reached ``/cmd19`` and nothing else.

A contender (built fresh by ``load(name)``, with its own counters) has:

* ``decode(body: bytes) -> update``: the contender's own decoded update, made
  outside the timed part for ``dispatch_20``;
* ``dispatch(updates)``: a coroutine feeding decoded updates one by one
  (``dispatch_20``);
* ``decode_dispatch(bodies)``: a coroutine feeding raw webhook bodies one by
  one (``decode_dispatch_20``: decode plus dispatch, the webhook path minus HTTP);
* ``calls``: how many times each of the twenty handlers ran;
* ``requests()``: what the contender tried to send to the Bot API (must stay
  empty: nothing here may touch the network);
* ``batch``: how many updates one benchmark round feeds (one round is one
  ``run_until_complete`` of ``dispatch``/``decode_dispatch``, so the event loop's
  entry cost is spread over the batch).

The loops live inside the contender's coroutine, one ``await`` per update on
the contender's own entry point (no wrapper in between), so the benchmark
measures the dispatcher and not our glue.

``load(name)`` raises ``Missing`` with the reason when a contender cannot run
(tgfast's dispatcher not there yet, a build that is not what its label says).
"""

from __future__ import annotations

import importlib.machinery
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import orjson
from payloads import SMALL_UPDATE, dump

# Order used for test ids and table rows: ours first, then the field, then the floor.
NAMES = ("tgfast-compiled", "tgfast-pure", "aiogram", "floor")
FLOOR = "floor"
PURE = "tgfast-pure"

COMMANDS = [f"cmd{i}" for i in range(20)]
TARGET = len(COMMANDS) - 1  # /cmd19, the last one registered

# Syntactically valid bot token (digits ':' secret); never used on the network.
FAKE_TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0"

# Updates per round.  aiogram is ~100x slower, so fewer of them keep its rounds
# about as long as the others' (a few ms).
BATCH = {"tgfast-compiled": 1000, "tgfast-pure": 1000, "aiogram": 100, "floor": 1000}

# The pure twin: run in its own process with TGFAST_NO_EXTENSIONS=1 (see load()).
PURE_ENV = "TGFAST_NO_EXTENSIONS"


class Missing(Exception):
    """A contender that cannot run here; the message says why."""


@dataclass
class Contender:
    name: str
    description: str
    decode: Callable[[bytes], Any]
    dispatch: Callable[[list[Any]], Awaitable[None]]
    decode_dispatch: Callable[[list[bytes]], Awaitable[None]]
    calls: list[int]
    requests: Callable[[], list[str]] = list
    batch: int = 1000

    def expect(self, fed: int) -> None:
        """Fail unless exactly ``fed`` updates reached /cmd19 and none another handler."""
        expected = [0] * len(COMMANDS)
        expected[TARGET] = fed
        if self.calls != expected:
            wrong = {f"/{COMMANDS[i]}": n for i, n in enumerate(self.calls) if n != expected[i]}
            raise AssertionError(
                f"{self.name}: {fed} updates fed to /{COMMANDS[TARGET]}, handler calls {wrong}"
            )
        requests = self.requests()
        if requests:
            raise AssertionError(f"{self.name} tried to call the Bot API: {requests[:3]}")


# --------------------------------------------------------------------------
# updates
# --------------------------------------------------------------------------


def update_dict(update_id: int) -> dict:
    """``/cmd19`` typed in a private chat, with the bot_command entity Telegram sends."""
    text = f"/{COMMANDS[TARGET]}"
    message = dict(SMALL_UPDATE["message"])
    message.update(
        message_id=update_id % 1_000_000 + 1,
        text=text,
        entities=[{"offset": 0, "length": len(text), "type": "bot_command"}],
    )
    return {"update_id": update_id, "message": message}


def bodies(n: int, first_id: int = 731_904_528) -> list[bytes]:
    """``n`` webhook bodies with distinct update ids, encoded as Telegram encodes them."""
    return [dump(update_dict(first_id + i)) for i in range(n)]


def _counting_handlers(calls: list[int]) -> list[Callable[[Any], Awaitable[None]]]:
    """One ``async def handler(message)`` per command, each counting its own calls."""

    def make(i: int) -> Callable[[Any], Awaitable[None]]:
        async def handler(message: Any) -> None:
            calls[i] += 1

        handler.__name__ = handler.__qualname__ = f"on_{COMMANDS[i]}"
        return handler

    return [make(i) for i in range(len(COMMANDS))]


# --------------------------------------------------------------------------
# floor: orjson dicts, split off the command, one dict lookup, call the handler
# --------------------------------------------------------------------------


def _load_floor() -> Contender:
    calls = [0] * len(COMMANDS)
    table = {f"/{c}": h for c, h in zip(COMMANDS, _counting_handlers(calls), strict=True)}
    get = table.get
    loads = orjson.loads

    async def feed(update: dict) -> None:
        message = update["message"]
        handler = get(message["text"].split(" ", 1)[0])
        if handler is not None:
            await handler(message)

    async def feed_raw(body: bytes) -> None:
        message = loads(body)["message"]
        handler = get(message["text"].split(" ", 1)[0])
        if handler is not None:
            await handler(message)

    async def dispatch(updates: list[dict]) -> None:
        for update in updates:
            await feed(update)

    async def decode_dispatch(raw: list[bytes]) -> None:
        for body in raw:
            await feed_raw(body)

    return Contender(
        "floor",
        "orjson.loads (decode_dispatch_20 only), message['text'].split(' ', 1)[0], "
        "one dict lookup, await handler(message)",
        loads,
        dispatch,
        decode_dispatch,
        calls,
        batch=BATCH["floor"],
    )


# --------------------------------------------------------------------------
# aiogram
# --------------------------------------------------------------------------
# dispatch_20: Dispatcher.feed_update(bot, update) with Updates validated with
# context={"bot": bot} beforehand (an Update not bound to this bot is dumped and
# validated again inside feed_update).
# decode_dispatch_20: what aiogram.webhook.aiohttp_server.SimpleRequestHandler
# does with handle_in_background=False (the mode that waits for the handler, as
# tgfast's feed_raw_update does):
#     dispatcher.feed_webhook_update(bot, await request.json(loads=bot.session.json_loads))
# where request.json() is loads(body.decode("utf-8")); feed_webhook_update takes
# a dict (or an Update), not bytes, and validates it with Update.model_validate.


def _load_aiogram() -> Contender:
    try:
        from aiogram import Bot, Dispatcher, Router
        from aiogram.filters import Command
        from aiogram.types import Update
    except ImportError as exc:
        raise Missing(f"aiogram not importable: {exc}") from exc

    bot = Bot(token=FAKE_TOKEN)  # its aiohttp session is created on the first request
    requests: list[Any] = []

    async def no_network(make_request: Any, bot: Any, method: Any) -> Any:
        requests.append(type(method).__name__)
        raise RuntimeError(f"benchmark bot must not call the Bot API ({type(method).__name__})")

    bot.session.middleware(no_network)

    calls = [0] * len(COMMANDS)
    router = Router()
    for command, handler in zip(COMMANDS, _counting_handlers(calls), strict=True):
        router.message(Command(command))(handler)
    dp = Dispatcher()
    dp.include_router(router)

    json_loads = bot.session.json_loads
    validate = Update.model_validate
    context = {"bot": bot}

    def decode(body: bytes) -> Any:
        return validate(json_loads(body.decode("utf-8")), context=context)

    feed_update = dp.feed_update
    feed_webhook_update = dp.feed_webhook_update

    async def dispatch(updates: list[Any]) -> None:
        for update in updates:
            await feed_update(bot, update)

    async def decode_dispatch(raw: list[bytes]) -> None:
        for body in raw:
            await feed_webhook_update(bot, json_loads(body.decode("utf-8")))

    return Contender(
        "aiogram",
        "Dispatcher + Router, 20 @router.message(Command(...)) handlers; "
        "feed_update(bot, Update) / feed_webhook_update(bot, json_loads(body.decode()))",
        decode,
        dispatch,
        decode_dispatch,
        calls,
        requests.copy,
        batch=BATCH["aiogram"],
    )


# --------------------------------------------------------------------------
# tgfast
# --------------------------------------------------------------------------


def _is_extension_module(module: Any) -> bool:
    path = getattr(module, "__file__", None) or ""
    return path.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def _tgfast_api() -> Any:
    try:
        import tgfast
        from tgfast import Bot, Dispatcher, Router  # noqa: F401
        from tgfast.filters import Command  # noqa: F401
    except ImportError as exc:
        raise Missing(f"tgfast's dispatcher is not there yet ({exc})") from exc
    return tgfast


def _live_modules() -> list[Any]:
    """The decoder and routing runtime tgfast's Dispatcher really uses in this process."""
    from tgfast import decoding
    from tgfast.dispatcher import routing

    return [decoding._impl, routing.impl]


def _build_tgfast(name: str, description: str) -> Contender:
    from tgfast import Bot, Dispatcher, Router
    from tgfast.filters import Command

    calls = [0] * len(COMMANDS)
    router = Router()
    for command, handler in zip(COMMANDS, _counting_handlers(calls), strict=True):
        router.message(Command(command))(handler)
    dp = Dispatcher()
    dp.include_router(router)
    bot = Bot("123456:ABCdef", rate_limiter=None)

    from tgfast import decode_update
    from tgfast.types.binding import current_bot

    feed_update = dp.feed_update
    feed_raw_update = dp.feed_raw_update

    # A serving worker task sets current_bot once (tgfast.server's UpdateProcessor);
    # each round runs in a task of its own, so each round sets it once, likewise.
    async def dispatch(updates: list[Any]) -> None:
        current_bot.set(bot)
        for update in updates:
            await feed_update(bot, update)

    async def decode_dispatch(raw: list[bytes]) -> None:
        current_bot.set(bot)
        for body in raw:
            await feed_raw_update(bot, body)

    def requests() -> list[str]:
        # BotSession opens its aiohttp session on the first request, never before.
        opened = getattr(bot.session, "_client", None) is not None
        return ["an HTTP session was opened"] if opened else []

    return Contender(
        name, description, decode_update, dispatch, decode_dispatch, calls, requests, BATCH[name]
    )


def _load_tgfast_compiled() -> Contender:
    tgfast = _tgfast_api()
    if not tgfast.__speedups__:
        raise Missing(
            "this process runs tgfast's pure twins "
            f"({PURE_ENV}={os.environ.get(PURE_ENV)!r}, or a pure build)"
        )
    for module in _live_modules():
        if not _is_extension_module(module):
            raise Missing(f"{module.__name__} is not a compiled extension ({module.__file__})")
    return _build_tgfast(
        "tgfast-compiled",
        "Dispatcher + Router, 20 @router.message(Command(...)) handlers; "
        "feed_update(bot, Update) / feed_raw_update(bot, body) in a task whose current_bot "
        "is already the bot (as in tgfast's serving workers), Cython build",
    )


def _load_tgfast_pure() -> Contender:
    tgfast = _tgfast_api()
    if tgfast.__speedups__:
        raise Missing(
            f"measured in a separate process with {PURE_ENV}=1 "
            "(tgfast picks compiled or pure modules once, at import)"
        )
    for module in _live_modules():
        if _is_extension_module(module) or not module.__name__.endswith("_py"):
            raise Missing(f"{module.__name__} is not a pure twin ({module.__file__})")
    return _build_tgfast(
        "tgfast-pure",
        f"the same, every tgfast module its pure-Python twin ({PURE_ENV}=1, in its own process)",
    )


_LOADERS: dict[str, Callable[[], Contender]] = {
    "tgfast-compiled": _load_tgfast_compiled,
    "tgfast-pure": _load_tgfast_pure,
    "aiogram": _load_aiogram,
    "floor": _load_floor,
}
assert tuple(_LOADERS) == NAMES


def load(name: str) -> Contender:
    """A fresh contender (its own dispatcher and counters); raises ``Missing``."""
    try:
        return _LOADERS[name]()
    except Missing:
        raise
    except Exception as exc:  # a broken build may raise anything
        raise Missing(f"{type(exc).__name__}: {exc}") from exc


def new_loop() -> Any:
    """The event loop every contender runs on: uvloop, tgfast's default."""
    import uvloop

    return uvloop.new_event_loop()


def smoke(name: str, n: int = 5) -> Contender:
    """Build ``name``, feed it ``n`` decoded and ``n`` raw updates, check the counts."""
    contender = load(name)
    loop = new_loop()
    try:
        raw = bodies(n)
        loop.run_until_complete(contender.dispatch([contender.decode(b) for b in raw]))
        contender.expect(n)
        loop.run_until_complete(contender.decode_dispatch(raw))
        contender.expect(2 * n)
    finally:
        loop.close()
    return contender


def profile(name: str, path: str, batches: int, sort: str, top: int) -> None:
    """Run ``batches`` rounds of one contender under cProfile; print the top costs."""
    import cProfile
    import pstats

    contender = load(name)
    raw = bodies(contender.batch)
    if path == "dispatch_20":
        items, feed = [contender.decode(b) for b in raw], contender.dispatch
    else:
        items, feed = raw, contender.decode_dispatch
    loop = new_loop()
    try:
        loop.run_until_complete(feed(items))  # warm-up, outside the profile
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(batches):
            loop.run_until_complete(feed(items))
        profiler.disable()
    finally:
        loop.close()
    contender.expect((batches + 1) * len(items))
    print(f"{name} {path}: {batches} x {len(items)} updates under cProfile, sorted by {sort}")
    pstats.Stats(profiler).strip_dirs().sort_stats(sort).print_stats(top)


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(
        description="Check that every dispatch contender runs (default), or profile one.",
    )
    parser.add_argument("--profile", choices=NAMES, help="profile this contender instead")
    parser.add_argument(
        "--path", choices=("dispatch_20", "decode_dispatch_20"), default="dispatch_20"
    )
    parser.add_argument("--batches", type=int, default=20, help="rounds under the profiler")
    parser.add_argument("--sort", default="tottime", help="pstats sort key (tottime, cumulative)")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    if args.profile:
        profile(args.profile, args.path, args.batches, args.sort, args.top)
        return
    for n in NAMES:
        try:
            c = smoke(n)
        except Missing as exc:
            print(f"{n:16} MISSING  {exc}")
        else:
            print(f"{n:16} ok       {c.description}")


if __name__ == "__main__":  # python benchmarks/micro/dispatch_contenders.py [--profile NAME]
    main()
