"""Run a bot until SIGTERM/SIGINT, then drain: what ``tgfast webhook``/``polling`` do.

The first signal stops intake (the webhook answers 503 and ``/readyz`` fails, the
poller stops fetching), waits for every update already taken, runs the shutdown
callbacks, closes the bot's session and returns 0. A second signal during that wait
cancels the handlers still running and returns 1 at once.
"""

from __future__ import annotations

import asyncio
import inspect
import signal
import socket
from collections.abc import Awaitable, Callable, Coroutine
from ssl import SSLContext
from typing import TYPE_CHECKING, Any, TypeVar

from .._logging import get_logger
from ..tasks import cancel_and_wait, wait_unless
from .polling import Poller
from .webhook import WebhookServer

if TYPE_CHECKING:
    from ..client import Bot
    from ..dispatcher import Dispatcher
    from ..redis.leader import RedisLeaderLock

__all__ = ["Signals", "run", "serve_polling", "serve_webhook"]

log = get_logger("tgfast.server")
T = TypeVar("T")

_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Signals:
    """Turns SIGTERM/SIGINT into two events: ``stop`` (the first) and ``force`` (the next).

    ``request_stop()`` does the same from code (a test, an embedding application).
    """

    def __init__(self) -> None:
        self.stop = asyncio.Event()
        self.force = asyncio.Event()
        self._installed: list[signal.Signals] = []

    def request_stop(self, name: str = "stop requested") -> None:
        if not self.stop.is_set():
            log.warning("%s: draining, send it again to exit at once", name)
            self.stop.set()
        elif not self.force.is_set():
            log.warning("%s again: exiting now", name)
            self.force.set()

    def install(self) -> None:
        """Handle SIGTERM and SIGINT in the running loop (where the platform allows)."""
        loop = asyncio.get_running_loop()
        for sig in _SIGNALS:
            try:
                loop.add_signal_handler(sig, self.request_stop, sig.name)
            except (NotImplementedError, RuntimeError):  # not the main thread, Windows
                continue
            self._installed.append(sig)

    def remove(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in self._installed:
            loop.remove_signal_handler(sig)
        self._installed.clear()


async def serve_webhook(
    dispatcher: Dispatcher,
    bot: Bot,
    *,
    host: str = "127.0.0.1",
    port: int = 8080,
    sock: socket.socket | None = None,
    reuse_port: bool | None = None,
    webhook_url: str | None = None,
    drop_pending_updates: bool = False,
    signals: Signals | None = None,
    on_ready: Callable[[WebhookServer], Awaitable[object] | object] | None = None,
    close_bot: bool = True,
    server: WebhookServer | None = None,
    ssl: SSLContext | None = None,
    **options: Any,
) -> int:
    """Serve webhooks until a signal (or ``signals.request_stop()``); the exit status.

    ``options`` go to ``WebhookServer`` (path, secret_token, reply_mode, concurrency,
    max_in_flight, seen, ...), or ``server`` is one made beforehand (to add routes to
    its ``app``). ``reuse_port`` lets several processes listen on one port
    (``SO_REUSEPORT``: the kernel spreads the connections). With ``webhook_url`` the
    webhook is registered with Telegram (``setWebhook``: that URL, the secret, the
    kinds the dispatcher handles) once the server listens; ``on_ready(server)`` runs
    then too. Without ``signals`` the process's SIGTERM/SIGINT are handled. ``ssl``
    terminates TLS in the server itself.
    """
    if server is None:
        server = WebhookServer(dispatcher, bot, **options)
    elif options:
        raise TypeError(
            f"pass either server= or WebhookServer options, not both: {sorted(options)}"
        )
    own_signals = signals is None
    signals = signals or Signals()
    if own_signals:
        signals.install()
    try:
        await dispatcher.emit_startup(bot=bot)
        await server.start(host, port, sock=sock, reuse_port=reuse_port, ssl=ssl)
        try:
            if webhook_url is not None:
                await bot.set_webhook(
                    webhook_url,
                    secret_token=server.secret_token,
                    allowed_updates=dispatcher.resolve_used_update_types(),
                    drop_pending_updates=drop_pending_updates,
                )
            processor = server.processor
            log.info(
                "webhook: listening on %s (concurrency=%s, max_in_flight=%d, reply mode %s, "
                "loop=%s)", bot.redact(server.url or ""), processor.concurrency, processor.max_in_flight,
                "on" if server.reply_mode else "off", _loop_name(),
            )  # fmt: skip
            if on_ready is not None:
                await _maybe_await(on_ready(server))
            await signals.stop.wait()
            forced = await _wind_down(server.drain(), server.abort, signals)
        except Exception:
            await server.drain()  # e.g. setWebhook refused: still finish what was taken
            raise
        except BaseException:
            await server.abort()
            raise
        finally:
            await server.stop()
        return await _shutdown(dispatcher, bot, forced)
    finally:
        if own_signals:
            signals.remove()
        if close_bot:
            await bot._release_session()  # the HTTP session, unless other bots share it


async def serve_polling(
    dispatcher: Dispatcher,
    bot: Bot,
    *,
    signals: Signals | None = None,
    on_ready: Callable[[Poller], Awaitable[object] | object] | None = None,
    close_bot: bool = True,
    leader: RedisLeaderLock | None = None,
    **options: Any,
) -> int:
    """Poll until a signal (or ``signals.request_stop()``); the exit status.

    ``options`` go to ``Poller`` (timeout, allowed_updates, drop_pending_updates,
    concurrency, max_in_flight, ...). On the way out the offset is confirmed once
    everything fetched is handled.

    With ``leader`` (one ``RedisLeaderLock`` key per bot, shared by the workers) this
    worker polls only while it holds the lock, and releases it on the way out, after
    confirming. Unless ``seen`` (or ``processor``) is given, the seen-update ids go to
    a ``RedisSeenUpdates`` on the lock's client: a new holder may be handed updates the
    last one took, and they must be recognised. The lock is not closed here.
    """
    own_seen = None
    if leader is not None and "seen" not in options and "processor" not in options:
        from ..redis.seen import RedisSeenUpdates

        own_seen = options["seen"] = RedisSeenUpdates(leader.redis)
    poller = Poller(dispatcher, bot, leader=leader, **options)
    own_signals = signals is None
    signals = signals or Signals()
    if own_signals:
        signals.install()
    try:
        await dispatcher.emit_startup(bot=bot)
        processor = poller.processor
        log.info(
            "polling: started (timeout=%ss, concurrency=%s, max_in_flight=%d, "
            "allowed_updates=%s, loop=%s)", poller.timeout, processor.concurrency,
            processor.max_in_flight, poller.allowed_updates, _loop_name(),
        )  # fmt: skip
        polling = asyncio.ensure_future(poller.poll())
        if on_ready is not None:
            await _maybe_await(on_ready(poller))
        await wait_unless(signals.stop, polling)
        poller.stop()
        error = None
        try:
            await polling
        except Exception as exc:  # noqa: BLE001 - a fatal getUpdates error: drain, then raise
            error = exc
        forced = await _wind_down(processor.drain(), processor.abort, signals)
        if not forced:
            await poller.confirm()
        code = await _shutdown(dispatcher, bot, forced)
        if error is not None:
            raise error
        return code
    finally:
        if leader is not None:
            await leader.release()
        if own_seen is not None:
            await own_seen.close()
        if own_signals:
            signals.remove()
        if close_bot:
            await bot._release_session()  # the HTTP session, unless other bots share it


async def _wind_down(
    drain: Coroutine[Any, Any, None], abort: Callable[[], Awaitable[int]], signals: Signals
) -> bool:
    """Drain, unless ``force`` comes first: then abort. True when forced."""
    draining = asyncio.ensure_future(drain)
    await wait_unless(signals.force, draining)
    if draining.done():
        draining.result()
        log.info("drained: every update taken was handled")
        return False
    await cancel_and_wait(draining)
    dropped = await abort()
    log.warning("forced exit: %d updates in flight were dropped", dropped)
    return True


async def _shutdown(dispatcher: Dispatcher, bot: Bot, forced: bool) -> int:
    """The shutdown callbacks (not after a forced stop); the exit status."""
    if not forced:
        await dispatcher.emit_shutdown(bot=bot)
    return 1 if forced else 0


def _loop_name() -> str:
    return type(asyncio.get_running_loop()).__module__.partition(".")[0]


async def _maybe_await(value: Awaitable[object] | object) -> None:
    if inspect.isawaitable(value):
        await value


def run(main: Coroutine[Any, Any, T], *, use_uvloop: bool | None = None) -> T:
    """``asyncio.run(main)``, on uvloop when ``use_uvloop`` (None: when installed)."""
    if use_uvloop is not False:
        try:
            import uvloop
        except ImportError:
            if use_uvloop:
                main.close()
                raise
        else:
            return uvloop.run(main)
    return asyncio.run(main)
