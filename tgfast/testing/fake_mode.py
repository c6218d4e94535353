"""``--fake``: serve a bot against the built-in FakeTelegram, and talk to it over HTTP.

The bot's API base is a ``FakeTelegram`` in the same process. These routes let a
person (curl) or a script play the user's side:

- ``POST /fake/updates``: an update, a list of them, or a shorthand
  (``{"text": "hi", "chat_id": 42}`` for a message, ``{"callback_data": "yes",
  "chat_id": 42, "message_id": 1}`` for a button press on a message the bot sent).
  Each goes through Telegram's path: delivered to the webhook by the fake (with the
  secret), or queued for getUpdates in polling mode. Answers each update with, for a
  webhook, the HTTP status the bot answered, and with how its handling ended:
  ``"outcome"`` is ``"handled"``, ``"unhandled"`` (no handler matched), ``"failed"``
  (the handler raised: the traceback is in the bot's log) or ``null`` when it did not
  end within ``?wait=S`` seconds (10 by default; 0 answers at once).
- ``GET /fake/calls?after=N&wait=S``: the Bot API calls the bot made, from index
  ``N`` on; waits up to ``S`` seconds for at least one.

Every call the bot makes is also logged (``tgfast.fake``) as it arrives. Neither the
log nor ``/fake/calls`` shows the webhook secret (``secret_token`` reads ``<secret>``):
anyone who can read them could otherwise post forged updates to the webhook.

Ids in a shorthand (``chat_id``, ``user_id``, ``message_id``) are JSON integers that
fit Telegram's ids (at most 52 bits); anything else is a 400 naming the field.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from typing import TYPE_CHECKING, Any

import orjson
from aiohttp import web

from .._logging import get_logger
from ..dispatcher import FAILED, UNHANDLED
from . import updates
from .fake import FakeTelegram

if TYPE_CHECKING:
    from ..client import Bot
    from ..server.processing import UpdateProcessor
    from ..types import Update

__all__ = ["FakeControl"]

log = get_logger("tgfast.fake")

HIDDEN = "<secret>"
_MAX_ID = 2**53 - 1  # Telegram: "at most 52 significant bits"
_KEPT_OUTCOMES = 1000
_DEFAULT_WAIT = 10.0


def shown(params: dict[str, Any]) -> dict[str, Any]:
    """A call's parameters as the log and ``/fake/calls`` show them: without the secret."""
    if "secret_token" not in params:
        return params
    return {**params, "secret_token": HIDDEN}


def _id(item: dict[str, Any], name: str, default: int) -> int:
    value = item.get(name, default)
    if type(value) is not int or not -_MAX_ID <= value <= _MAX_ID:
        raise ValueError(f"{name}: expected an integer id (at most 52 bits), got {value!r}")
    return value


class FakeControl:
    """The ``/fake/...`` routes for one ``FakeTelegram``; ``webhook`` picks delivery."""

    def __init__(self, fake: FakeTelegram, *, webhook: bool) -> None:
        self.fake = fake
        self.webhook = webhook
        self._message_ids = itertools.count(1_000_000)
        self._watcher: asyncio.Task[None] | None = None
        self._logged = 0
        self._outcomes: dict[int, asyncio.Future[str]] = {}

    def watch(self, processor: UpdateProcessor) -> None:
        """Note how each update ``processor`` handles ends, for ``/fake/updates``."""
        feed = processor._feed

        async def feed_and_note(bot: Bot, update: Update) -> Any:
            try:
                result = await feed(bot, update)
            except BaseException:
                self._note(update.update_id, "failed")
                raise
            outcome = (
                "unhandled" if result is UNHANDLED else "failed" if result is FAILED else "handled"
            )
            self._note(update.update_id, outcome)
            return result

        processor._feed = feed_and_note

    def _outcome(self, update_id: int) -> asyncio.Future[str]:
        future = self._outcomes.get(update_id)
        if future is None:
            while len(self._outcomes) >= _KEPT_OUTCOMES:
                del self._outcomes[next(iter(self._outcomes))]
            future = self._outcomes[update_id] = asyncio.get_running_loop().create_future()
        return future

    def _note(self, update_id: int, outcome: str) -> None:
        future = self._outcome(update_id)
        if not future.done():
            future.set_result(outcome)

    def add_routes(self, app: web.Application) -> None:
        app.router.add_post("/fake/updates", self._on_updates)
        app.router.add_get("/fake/calls", self._on_calls)

    def app(self) -> web.Application:
        """A stand-alone application with just these routes (polling mode)."""
        app = web.Application()
        self.add_routes(app)
        return app

    # -- routes --------------------------------------------------------------------

    async def _on_updates(self, request: web.Request) -> web.Response:
        try:
            wait = min(float(request.query.get("wait", _DEFAULT_WAIT)), 60.0)
            body = orjson.loads(await request.read())
            items = body if isinstance(body, list) else [body]
            updates = [self.expand(item) for item in items]
        except (orjson.JSONDecodeError, TypeError, ValueError) as exc:
            return web.json_response({"error": str(exc)}, status=400)
        out: list[dict[str, Any]] = []
        for update in updates:  # one by one: a chat's updates arrive in order
            if self.webhook:
                update = self.fake._stamp(update)  # numbered here, to wait for its outcome
                out.append({"update": update, "status": await self.fake.deliver(update)})
            else:
                out.append({"update": self.fake.add_update(update), "status": None})
        for item in out:
            item["outcome"] = await self._wait_for(item, wait)
        return web.Response(body=orjson.dumps(out), content_type="application/json")

    async def _wait_for(self, item: dict[str, Any], wait: float) -> str | None:
        """How the update of ``item`` ended, waiting up to ``wait`` seconds; None if not yet."""
        if item["status"] not in (None, 200):
            return None  # refused: not taken
        future = self._outcome(item["update"]["update_id"])
        if not future.done() and wait > 0:
            await asyncio.wait((future,), timeout=wait)
        return future.result() if future.done() else None

    async def _on_calls(self, request: web.Request) -> web.Response:
        try:
            after = int(request.query.get("after", "0"))
            wait = min(float(request.query.get("wait", "0")), 60.0)
        except ValueError as exc:
            return web.json_response({"error": str(exc)}, status=400)
        deadline = time.monotonic() + wait
        # the fake records calls without signalling them: poll, briefly
        while len(self.fake.calls) <= after and time.monotonic() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(0.01)
        calls = [
            {"method": c.method, "params": shown(c.params), "http_method": c.http_method}
            for c in self.fake.calls[after:]
        ]
        payload = {"calls": calls, "next": after + len(calls)}
        return web.Response(
            body=orjson.dumps(payload, default=str), content_type="application/json"
        )

    # -- shorthands ----------------------------------------------------------------

    def expand(self, item: Any) -> dict[str, Any]:
        """An update from a shorthand; a full update (with a kind) is taken as it is."""
        if not isinstance(item, dict):
            raise TypeError(f"an update is a JSON object, got {type(item).__name__}")
        if "text" in item and "message" not in item:
            return {"message": self._message(item)}
        if "callback_data" in item:
            return {"callback_query": self._callback(item)}
        return item

    def _ids(self, item: dict[str, Any]) -> tuple[int, int]:
        chat_id = _id(item, "chat_id", _id(item, "user_id", 1))
        return chat_id, _id(item, "user_id", abs(chat_id))

    def _user(self, item: dict[str, Any]) -> dict[str, Any]:
        return updates.user(self._ids(item)[1], str(item.get("first_name", "User")))

    def _message(self, item: dict[str, Any]) -> dict[str, Any]:
        chat_id, user_id = self._ids(item)
        message = updates.message(
            str(item["text"]),
            chat_id=chat_id,
            user_id=user_id,
            message_id=_id(item, "message_id", next(self._message_ids)),
            date=int(time.time()),
        )
        message["from"] = self._user(item)
        if chat_id > 0:  # a private chat is named after its user
            message["chat"]["first_name"] = message["from"]["first_name"]
        return message

    def _callback(self, item: dict[str, Any]) -> dict[str, Any]:
        chat_id, _ = self._ids(item)
        query: dict[str, Any] = {
            "id": str(next(self._message_ids)),
            "from": self._user(item),
            "chat_instance": str(chat_id),
            "data": str(item["callback_data"]),
        }
        wanted = item.get("message_id")
        sent = [m for m in self.fake.sent_messages(chat_id)
                if wanted is None or m["message_id"] == wanted]  # fmt: skip
        if sent:
            query["message"] = sent[-1]
        return query

    # -- echo of the bot's calls ------------------------------------------------------

    def start_watching(self) -> None:
        """Log each call the bot makes to the fake, as it arrives."""
        if self._watcher is None:
            self._watcher = asyncio.ensure_future(self._watch())

    async def stop_watching(self) -> None:
        """Stop, after logging the calls not logged yet."""
        watcher, self._watcher = self._watcher, None
        if watcher is not None:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
            self._log_new_calls()

    async def _watch(self) -> None:
        while True:
            self._log_new_calls()
            await asyncio.sleep(0.05)

    def _log_new_calls(self) -> None:
        calls = self.fake.calls
        for call in calls[self._logged :]:
            if call.method != "getUpdates":
                log.info("bot -> %s %s", call.method,
                         orjson.dumps(shown(call.params), default=str).decode())  # fmt: skip
        self._logged = len(calls)
