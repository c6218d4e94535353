"""FakeTelegram: a real HTTP server on 127.0.0.1 that speaks the Bot API, for tests.

A bot under test talks to it over real sockets exactly as it talks to Telegram, so
the whole client path (encoding, sessions, retries, decoding) is exercised; the test
then reads what arrived (``calls``, ``sent_messages``), feeds updates in
(``add_update``, ``deliver``) and injects the failures Telegram and proxies produce
(``fail``, ``http_error``, ``drop``, ``delay``).
"""

from __future__ import annotations

import asyncio
import inspect
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Literal
from urllib.parse import parse_qsl

import aiohttp
import orjson
from aiohttp import MultipartReader, web

from tgfast.methods import METHODS

from ._answers import ChatState, fallback_result
from ._messages import Store
from ._request import (
    MAX_BODY_SIZE,
    ApiError,
    Call,
    UploadedFile,
    body_type,
    normalize,
    read_multipart,
    read_params,
)

__all__ = ["DEFAULT_TOKEN", "FakeTelegram", "Fault"]

DEFAULT_TOKEN = "123456789:TEST-fake-token-AAAAAAAAAAAAAAAAAAAAAAA"

_HIDDEN_BY_DEFAULT = frozenset({"chat_member", "message_reaction", "message_reaction_count"})
_WEBHOOK_CONFLICT = (
    "Conflict: can't use getUpdates method while webhook is active;"
    " use deleteWebhook to delete the webhook first"
)
_TERMINATED = (
    "Conflict: terminated by other getUpdates request;"
    " make sure that only one bot instance is running"
)


@dataclass(eq=False)
class Fault:
    """One injected misbehaviour, as returned by ``fail``/``http_error``/``drop``/``delay``.

    It answers the next ``remaining`` matching calls (``None``: until cleared);
    ``hits`` counts the calls it answered, and ``cancel()`` retires it early.
    """

    kind: Literal["fail", "http_error", "drop", "delay"]
    method: str | None
    chat_id: int | str | None
    remaining: int | None
    error: ApiError | None = None
    status: int = 0
    body: bytes = b""
    content_type: str = ""
    seconds: float = 0.0
    hits: int = 0

    @property
    def active(self) -> bool:
        return self.remaining is None or self.remaining > 0

    def cancel(self) -> None:
        self.remaining = 0

    def _matches(self, method: str, params: dict[str, Any]) -> bool:
        return (
            self.active
            and (self.method is None or self.method == method)
            and (self.chat_id is None or params.get("chat_id") == self.chat_id)
        )


class FakeTelegram:
    """A fake Bot API server; use as ``async with FakeTelegram() as fake:``."""

    def __init__(self, *, token: str = DEFAULT_TOKEN, username: str = "tgfast_test_bot") -> None:
        bot_id, sep, _ = token.partition(":")
        if not (sep and bot_id.isdigit()):
            raise ValueError("a bot token looks like '<bot id>:<secret>'")
        self.token = token
        self.bot_user: dict[str, Any] = {
            "id": int(bot_id),
            "is_bot": True,
            "first_name": "tgfast test bot",
            "username": username,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }
        self.calls: list[Call] = []
        self.errors: list[BaseException] = []
        """Exceptions raised inside the fake while answering: a test should see none."""
        self.webhook: dict[str, Any] | None = None
        """The settings of the last setWebhook, or None when no webhook is set."""
        self._store = Store(self.bot_user)
        self._state = ChatState(self._store)
        self._names = {name.lower(): name for name in METHODS}
        self._canned: dict[str, Any] = {}
        self._faults: list[Fault] = []
        self._updates: list[dict[str, Any]] = []
        self._next_update_id = 1
        self._allowed_updates: list[str] = []
        self._poller: asyncio.Future[str] | None = None
        self._stopping = asyncio.Event()
        self._session: aiohttp.ClientSession | None = None
        self._runner: web.AppRunner | None = None
        self._url: str | None = None
        self._own: dict[str, Callable[[dict[str, Any]], Any]] = {
            "getMe": lambda params: self.bot_user,
            "setWebhook": self._set_webhook,
            "deleteWebhook": self._delete_webhook,
            "getWebhookInfo": self._webhook_info,
        }

    # -- life cycle ----------------------------------------------------------------

    async def start(self) -> FakeTelegram:
        """Listen on 127.0.0.1 on a free port."""
        if self._runner is not None:
            raise RuntimeError("FakeTelegram is already started")
        app = web.Application(client_max_size=MAX_BODY_SIZE, middlewares=[self._guard])
        app.router.add_route("*", "/bot{token}/{method}", self._on_method)
        app.router.add_get("/file/bot{token}/{path:.+}", self._on_file)
        app.router.add_route("*", "/{tail:.*}", self._on_unknown)
        self._stopping = asyncio.Event()
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=5.0)  # no token in logs
        await runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.bind(("127.0.0.1", 0))
            await web.SockSite(runner, sock).start()
        except BaseException:
            sock.close()
            await runner.cleanup()
            raise
        self._runner = runner
        self._url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        return self

    async def stop(self) -> None:
        """Answer pending long polls and delays at once, then close everything."""
        self._stopping.set()
        self._wake()
        if self._session is not None:
            await self._session.close()
            self._session = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeTelegram:
        return await self.start()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``, the base of the Bot API and of file downloads."""
        if self._url is None:
            raise RuntimeError("FakeTelegram is not started")
        return self._url

    # -- what the bot did ----------------------------------------------------------

    def calls_to(self, method: str) -> list[Call]:
        """The calls of one method (named in any case), in order."""
        method = self._canonical(method)
        return [call for call in self.calls if call.method == method]

    def sent_messages(self, chat_id: int | str | None = None) -> list[dict[str, Any]]:
        """Every message the bot posted (sent, forwarded, copied), as it was posted."""
        if chat_id is None:
            return list(self._store.sent)
        cid = self._store.chat_id_of(chat_id)
        return [message for message in self._store.sent if message["chat"]["id"] == cid]

    def ephemeral_messages(self, chat_id: int | str | None = None) -> list[dict[str, Any]]:
        """The ephemeral messages the bot has in a chat now (edits applied, deleted ones
        gone): each names its ``receiver_user`` and its ``ephemeral_message_id``."""
        cid = None if chat_id is None else self._store.chat_id_of(chat_id)
        return [m for (c, _e), m in self._store.ephemeral.items() if cid is None or c == cid]

    # -- what Telegram holds -------------------------------------------------------

    def add_file(self, data: bytes, *, file_path: str | None = None) -> dict[str, Any]:
        """Register a file the bot can getFile and download; returns its File object."""
        return self._store.add_file(bytes(data), file_path=file_path).as_file()

    def add_update(self, update: dict[str, Any]) -> dict[str, Any]:
        """Queue an update for getUpdates; numbers it when it has no ``update_id``."""
        update = self._stamp(update)
        self._updates.append(update)
        self._wake()
        return update

    def respond(self, method: str, result: Any) -> None:
        """Answer ``method`` with ``result``, or with ``result(call)`` when it is callable.

        The result is sent as given, not validated: a test may hand the client
        something malformed on purpose. A method unknown to the spec becomes known.
        """
        name = self._canonical(method)
        self._names.setdefault(name.lower(), name)
        self._canned[name] = result

    # -- faults --------------------------------------------------------------------

    def fail(
        self,
        method: str | None = None,
        *,
        error_code: int = 400,
        description: str | None = None,
        retry_after: int | None = None,
        migrate_to_chat_id: int | None = None,
        times: int | None = 1,
        chat_id: int | str | None = None,
    ) -> Fault:
        """Answer with a Telegram error; ``retry_after``/``migrate_to_chat_id`` go in
        ``parameters``. The description defaults to Telegram's wording for the case."""
        parameters: dict[str, Any] = {}
        if retry_after is not None:
            parameters["retry_after"] = retry_after
        if migrate_to_chat_id is not None:
            parameters["migrate_to_chat_id"] = migrate_to_chat_id
        if description is None:
            if error_code == 429 and retry_after is not None:
                description = f"Too Many Requests: retry after {retry_after}"
            elif migrate_to_chat_id is not None:
                description = "Bad Request: group chat was upgraded to a supergroup chat"
            else:
                description = f"{_phrase(error_code)}: injected"
        error = ApiError(error_code, description, parameters or None)
        return self._add_fault("fail", method, times, chat_id, error=error)

    def http_error(
        self,
        method: str | None = None,
        *,
        status: int = 502,
        body: bytes = b"<html>502 Bad Gateway</html>",
        content_type: str = "text/html",
        times: int | None = 1,
        chat_id: int | str | None = None,
    ) -> Fault:
        """Answer with a non-JSON body, as a proxy in front of Telegram would."""
        return self._add_fault(
            "http_error",
            method,
            times,
            chat_id,
            status=status,
            body=body,
            content_type=content_type,
        )

    def drop(
        self, method: str | None = None, *, times: int | None = 1, chat_id: int | str | None = None
    ) -> Fault:
        """Close the connection without answering: the client sees a disconnect."""
        return self._add_fault("drop", method, times, chat_id)

    def delay(
        self,
        method: str | None = None,
        *,
        seconds: float,
        times: int | None = None,
        chat_id: int | str | None = None,
    ) -> Fault:
        """Answer normally after ``seconds``; until cleared unless ``times`` is given."""
        return self._add_fault("delay", method, times, chat_id, seconds=seconds)

    def clear_faults(self) -> None:
        self._faults.clear()

    def _add_fault(
        self,
        kind: Literal["fail", "http_error", "drop", "delay"],
        method: str | None,
        times: int | None,
        chat_id: int | str | None,
        **kw: Any,
    ) -> Fault:
        name = None if method is None else self._canonical(method)
        fault = Fault(kind, name, chat_id, times, **kw)
        self._faults.append(fault)
        return fault

    def _take_fault(self, method: str, params: dict[str, Any]) -> Fault | None:
        fault = next((f for f in self._faults if f._matches(method, params)), None)
        if fault is not None:
            fault.hits += 1
            if fault.remaining is not None:
                fault.remaining -= 1
        self._faults = [f for f in self._faults if f.active]
        return fault

    # -- webhook -------------------------------------------------------------------

    async def deliver(
        self, update: dict[str, Any], *, url: str | None = None, secret_token: str | None = None
    ) -> int:
        """POST an update to ``url`` or the webhook set by setWebhook; returns the status.

        Like Telegram, an answer naming a ``method`` (JSON, urlencoded or multipart, as
        aiogram's handlers answer) is executed as a call (recorded with
        ``http_method == "WEBHOOK"``).
        """
        hook = self.webhook or {}
        target = url or hook.get("url")
        if not target:
            raise RuntimeError("no webhook to deliver to: pass url= or call setWebhook first")
        update = self._stamp(update)
        secret = secret_token if secret_token is not None else hook.get("secret_token")
        headers = {"Content-Type": "application/json"}
        if secret:
            headers["X-Telegram-Bot-Api-Secret-Token"] = secret
        if self._session is None:
            self._session = aiohttp.ClientSession()
        async with self._session.post(target, data=orjson.dumps(update), headers=headers) as resp:
            if resp.status == 200:
                await self._webhook_reply(resp)
            return resp.status

    async def _webhook_reply(self, resp: aiohttp.ClientResponse) -> None:
        """Perform the method a webhook answer names, as Telegram does: a JSON object,
        a urlencoded form or a multipart form (files included) with a ``method`` field."""
        params: dict[str, Any] = {}
        files: dict[str, UploadedFile] = {}
        content_type = resp.content_type
        try:
            if content_type == "multipart/form-data":
                await read_multipart(MultipartReader(resp.headers, resp.content), params, files)
            elif content_type == "application/x-www-form-urlencoded":
                params.update(parse_qsl((await resp.read()).decode(), keep_blank_values=True))
            elif content_type == "application/json":
                reply = orjson.loads(await resp.read())
                params = reply if isinstance(reply, dict) else {}
            else:
                return
        except (ApiError, orjson.JSONDecodeError, UnicodeDecodeError, ValueError):
            return  # Telegram ignores an answer it cannot read
        method = params.pop("method", None)
        if type(method) is not str:
            return
        name = self._canonical(method)
        try:
            params = normalize(METHODS.get(name), params, files)
        except ApiError:
            pass
        call = Call(name, params, files, content_type, "WEBHOOK")
        self.calls.append(call)
        await self._answer(call)  # Telegram tells the bot nothing about how it went

    # -- HTTP ----------------------------------------------------------------------

    @web.middleware
    async def _guard(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        """A bug in the fake answers 500 and lands in ``errors`` instead of vanishing."""
        try:
            return await handler(request)
        except web.HTTPException:
            raise
        except Exception as e:  # noqa: BLE001 - kept in errors, answered 500
            self.errors.append(e)
            return _json(500, _bug(e))

    async def _on_method(self, request: web.Request) -> web.StreamResponse:
        name = self._canonical(request.match_info["method"])
        refusal: ApiError | None = None
        try:
            params, files = await read_params(request, METHODS.get(name))
        except ApiError as e:
            params, files, refusal = {}, {}, e
        fault = self._take_fault(name, params)
        kind = fault.kind if fault is not None else None
        call = Call(name, params, files, body_type(request), request.method, kind)
        self.calls.append(call)
        if fault is not None:
            if fault.kind == "fail":
                assert fault.error is not None
                return _json(fault.error.error_code, fault.error.payload())
            if fault.kind == "http_error":
                return web.Response(
                    status=fault.status,
                    body=fault.body,
                    headers={"Content-Type": fault.content_type},
                )
            if fault.kind == "drop":
                if request.transport is not None:
                    request.transport.close()
                return web.Response()  # never written: the connection is gone
            await self._sleep(fault.seconds)
        if request.match_info["token"] != self.token:
            refusal = ApiError(401, "Unauthorized")
        if refusal is not None:
            return _json(refusal.error_code, refusal.payload())
        return _json(*await self._answer(call))

    async def _on_file(self, request: web.Request) -> web.StreamResponse:
        if request.match_info["token"] != self.token:
            return _json(401, ApiError(401, "Unauthorized").payload())
        stored = self._store.paths.get(request.match_info["path"])
        if stored is None or stored.data is None:
            return _json(404, ApiError(404, "Not Found").payload())
        return web.Response(body=stored.data, content_type="application/octet-stream")

    async def _on_unknown(self, request: web.Request) -> web.StreamResponse:
        return _json(404, ApiError(404, "Not Found").payload())

    async def _answer(self, call: Call) -> tuple[int, dict[str, Any]]:
        try:
            result = await self._result(call)
            return 200, {"ok": True, "result": result}
        except ApiError as e:
            return e.error_code, e.payload()
        except Exception as e:  # noqa: BLE001 - kept in errors, answered 500
            self.errors.append(e)
            return 500, _bug(e)

    async def _result(self, call: Call) -> Any:
        name, params = call.method, call.params
        desc = METHODS.get(name)
        if desc is None and name not in self._canned:
            raise ApiError(404, "Not Found")
        for p in desc.params if desc else ():
            if p.required and p.name not in params:
                raise ApiError(400, f'Bad Request: parameter "{p.name}" is required')
        if name in self._canned:
            canned = self._canned[name]
            result = canned(call) if callable(canned) else canned
            return await result if inspect.isawaitable(result) else result
        if name == "getUpdates":
            return await self._get_updates(params)
        own = self._own.get(name)
        if own is not None:
            return own(params)
        handler = self._store.handlers.get(name) or self._state.handlers.get(name)
        if handler is not None:
            return handler(params, call.files)
        assert desc is not None  # an unknown method without respond() is a 404 above
        return fallback_result(desc)

    # -- updates -------------------------------------------------------------------

    def _stamp(self, update: dict[str, Any]) -> dict[str, Any]:
        update = dict(update)
        if type(update.get("update_id")) is not int:
            update["update_id"] = self._next_update_id
        self._next_update_id = max(self._next_update_id, update["update_id"] + 1)
        self._store.remember(update)
        return update

    async def _get_updates(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        if self.webhook is not None:
            raise ApiError(409, _WEBHOOK_CONFLICT)
        if self._poller is not None and not self._poller.done():
            self._poller.set_result("terminated")
        offset = params.get("offset")
        if type(offset) is int and offset > 0:
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
        elif type(offset) is int and offset < 0:
            self._updates = self._updates[offset:]
        if isinstance(params.get("allowed_updates"), list):
            self._allowed_updates = params["allowed_updates"]
        limit = params.get("limit", 100)
        limit = min(max(limit, 1), 100) if type(limit) is int else 100
        timeout = params.get("timeout", 0)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (timeout if isinstance(timeout, (int, float)) else 0)
        while True:
            if self.webhook is not None:
                raise ApiError(409, _WEBHOOK_CONFLICT)
            ready = self._deliverable()[:limit]
            remaining = deadline - loop.time()
            if ready or remaining <= 0 or self._stopping.is_set():
                return ready
            waiter = self._poller = loop.create_future()
            try:
                await asyncio.wait({waiter}, timeout=remaining)
            finally:
                if self._poller is waiter:
                    self._poller = None
            if waiter.done() and waiter.result() == "terminated":
                raise ApiError(409, _TERMINATED)

    def _deliverable(self) -> list[dict[str, Any]]:
        """The queue without the kinds the bot did not ask for: Telegram drops those."""
        allowed = self._allowed_updates

        def wanted(update: dict[str, Any]) -> bool:
            kind = next((k for k in update if k != "update_id"), None)
            return kind in allowed if allowed else kind not in _HIDDEN_BY_DEFAULT

        self._updates = [u for u in self._updates if wanted(u)]
        return self._updates

    def _wake(self) -> None:
        if self._poller is not None and not self._poller.done():
            self._poller.set_result("wake")

    async def _sleep(self, seconds: float) -> None:
        try:
            await asyncio.wait_for(self._stopping.wait(), seconds)
        except asyncio.TimeoutError:
            pass

    def _set_webhook(self, params: dict[str, Any]) -> bool:
        if params.get("drop_pending_updates"):
            self._updates.clear()
        if not params["url"]:
            self.webhook = None
            return True
        skip = ("drop_pending_updates", "certificate")
        self.webhook = {k: v for k, v in params.items() if k not in skip}
        self.webhook["has_custom_certificate"] = "certificate" in params
        self._wake()  # a pending long poll now ends in a conflict
        return True

    def _delete_webhook(self, params: dict[str, Any]) -> bool:
        if params.get("drop_pending_updates"):
            self._updates.clear()
        self.webhook = None
        return True

    def _webhook_info(self, params: dict[str, Any]) -> dict[str, Any]:
        hook = self.webhook or {}
        info: dict[str, Any] = {
            "url": hook.get("url", ""),
            "has_custom_certificate": bool(hook.get("has_custom_certificate")),
            "pending_update_count": len(self._deliverable()),
        }
        if hook:
            info["max_connections"] = hook.get("max_connections", 40)
        info.update((k, hook[k]) for k in ("ip_address", "allowed_updates") if k in hook)
        return info

    def _canonical(self, method: str) -> str:
        return self._names.get(method.lower(), method)


def _json(status: int, payload: dict[str, Any]) -> web.Response:
    return web.Response(status=status, body=orjson.dumps(payload), content_type="application/json")


def _bug(e: BaseException) -> dict[str, Any]:
    return ApiError(500, f"Internal Server Error: FakeTelegram failed: {e!r}").payload()


def _phrase(code: int) -> str:
    try:
        return HTTPStatus(code).phrase
    except ValueError:
        return "Error"
