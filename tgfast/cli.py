"""The ``tgfast`` command: serve a bot (webhook or long polling) and manage its webhook.

    tgfast webhook app:dp --secret S --webhook-url https://bot.example.com/webhook
    tgfast polling path/to/bot.py:dp
    tgfast webhook examples/echo_bot.py --fake      # no token: against a built-in fake
    tgfast webhook app:dp --workers 4 --redis redis://127.0.0.1:6379/0
    tgfast set-webhook URL | delete-webhook | webhook-info
    tgfast --version

The token comes from ``--token`` or ``TGFAST_TOKEN``/``BOT_TOKEN`` (the environment
keeps it out of the process list; with ``--workers`` it reaches the workers through
their environment, never their command line). When the app's module defines ``bot``
(``--bot NAME`` for another name), a ``Bot`` or a function returning one (given that
token when it takes an argument), that bot serves, with its own defaults and server;
otherwise the command makes one (``--api-url``, ``--local``, ``--parse-mode``). Exit status: 0 after a clean stop, 1
after a forced stop (second signal) or a failed call, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import os
import secrets
import sys
from collections.abc import Sequence
from typing import Any

from aiohttp import web

from . import __speedups__, __version__
from .client import Bot, TelegramAPIServer, TelegramServer
from .client.session import check_base_url
from .client.session.fast import TRANSPORTS
from .defaults import DefaultBotProperties
from .errors import TelegramAPIError, TelegramNetworkError, TgfastError
from .fsm.storage.base import StorageError
from .logs import LogConfigError, configure, default_handler_if_none
from .server.loader import App, AppImportError, AppLoadError, load_app, load_dispatcher
from .server.polling import DEFAULT_POLL_TIMEOUT
from .server.processing import CONCURRENCY_MODES, DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_LAG
from .server.runner import run, serve_polling, serve_webhook
from .server.serve import ServeConfig, does_once_only_work, serve
from .server.supervisor import (
    Supervisor,
    this_worker,
)
from .server.webhook import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_KEEPALIVE_TIMEOUT,
    DEFAULT_MAX_BODY_SIZE,
    DEFAULT_READ_BUDGET,
    DEFAULT_REPLY_TIMEOUT,
    WebhookServer,
    valid_secret_token,
)
from .types import API_VERSION

__all__ = ["build_parser", "main"]

log = logging.getLogger("tgfast")

_TOKEN_VARS = ("TGFAST_TOKEN", "BOT_TOKEN")
_LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
_PARSE_MODES = ("HTML", "Markdown", "MarkdownV2")


class UsageError(Exception):
    """A command line that cannot work; printed with the usage hint, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tgfast", description="Serve a tgfast bot and manage its webhook."
    )
    build = "compiled" if __speedups__ else "pure-Python"
    parser.add_argument(
        "--version", action="version",
        version=f"tgfast {__version__} ({build} build, Bot API {API_VERSION})",
    )  # fmt: skip
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    api = argparse.ArgumentParser(add_help=False)
    api.add_argument("--token", help="bot token (default: $TGFAST_TOKEN or $BOT_TOKEN)")
    api.add_argument("--api-url", help="Bot API server base URL (default: Telegram's)")
    api.add_argument("--local", action="store_true",
                     help="--api-url is a local Bot API server (telegram-bot-api --local): "
                     "downloads read its files from --local-dir")  # fmt: skip
    api.add_argument("--local-dir", metavar="DIR",
                     help="--local: the local server's --dir; files are read there and "
                     "nowhere else")  # fmt: skip
    api.add_argument("--log-level", choices=_LOG_LEVELS, default="info")
    api.add_argument("--log-config", metavar="FILE",
                     help="logging.config.dictConfig file, JSON or YAML (with PyYAML), applied "
                     "before the app is imported (default: the app's own configuration, "
                     "else one line per record on stderr)")  # fmt: skip
    api.add_argument("--log-format", choices=("text", "json"), default=None,
                     help="the default stderr handler's format: text, or one JSON object per "
                     "line with update_id, chat_id, handler, worker (default: text)")  # fmt: skip
    api.add_argument("--transport", choices=TRANSPORTS, default=None,
                     help="Bot API calls over aiohttp (the default) or tgfast's fast "
                     "keep-alive transport; sets $TGFAST_TRANSPORT for every bot that makes "
                     "its own session")  # fmt: skip

    serving = argparse.ArgumentParser(add_help=False)
    serving.add_argument("app", metavar="APP", help="module:attribute or path/to/file.py:attribute "
                         "naming a Dispatcher or a function returning one (attribute: dp)")  # fmt: skip
    serving.add_argument("--bot", metavar="NAME", default=None,
                         help="the module attribute holding the app's Bot, or a function "
                         "returning one (default: bot, when the module has it)")  # fmt: skip
    serving.add_argument("--parse-mode", choices=_PARSE_MODES, type=_parse_mode,
                         help="default parse_mode of the bot the command makes (not of the "
                         "app's own bot)")  # fmt: skip
    serving.add_argument("--workers", type=_positive, default=1,
                         help="worker processes; above 1 a supervisor starts them, restarts "
                         "one that dies and stops them all on SIGTERM (default: 1)")  # fmt: skip
    serving.add_argument("--redis", metavar="URL", default=os.environ.get("TGFAST_REDIS_URL"),
                         help="share FSM state, seen update ids and rate limits between workers "
                         "in this Redis (default: $TGFAST_REDIS_URL)")  # fmt: skip
    serving.add_argument("--uvloop", action=argparse.BooleanOptionalAction, default=None,
                         help="run on uvloop (default: when installed)")  # fmt: skip
    serving.add_argument("--concurrency", choices=CONCURRENCY_MODES, default="chat",
                         help="chat: one chat's updates in order, chats concurrently (default); "
                         "full: every update concurrently; sequential: one at a time")  # fmt: skip
    serving.add_argument("--max-in-flight", type=_positive, default=DEFAULT_MAX_IN_FLIGHT,
                         help="updates taken and not finished, at most; beyond, the webhook "
                         "answers 503 and polling pauses (default: %(default)s)")  # fmt: skip
    serving.add_argument("--rate-limit", action=argparse.BooleanOptionalAction, default=True,
                         help="hold sends to Telegram's published limits (default: on)")  # fmt: skip
    serving.add_argument("--drop-pending-updates", action="store_true",
                         help="forget the updates waiting at Telegram on start")  # fmt: skip
    serving.add_argument("--fake", action="store_true",
                         help="no token: serve against a built-in FakeTelegram, fed through "
                         "POST /fake/updates (see docs/serving.md)")  # fmt: skip

    webhook = commands.add_parser("webhook", parents=[serving, api], help="serve webhooks",
                                  description="Receive updates as webhook POSTs.")  # fmt: skip
    webhook.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: %(default)s)"
    )
    webhook.add_argument(
        "--port", type=int, default=8080, help="(default: %(default)s; 0: any free port)"
    )
    webhook.add_argument("--port-per-worker", action="store_true",
                         help="worker i listens on PORT+i, for a balancer that sees each worker "
                         "(default: all on PORT with SO_REUSEPORT)")  # fmt: skip
    webhook.add_argument("--path", default="/webhook", help="webhook path (default: %(default)s)")
    webhook.add_argument("--secret", default=os.environ.get("TGFAST_WEBHOOK_SECRET"),
                         help="secret_token Telegram sends in X-Telegram-Bot-Api-Secret-Token "
                         "(default: $TGFAST_WEBHOOK_SECRET)")  # fmt: skip
    webhook.add_argument("--webhook-url",
                         help="public URL to register with setWebhook on start (with the secret "
                         "and the update kinds the dispatcher handles)")  # fmt: skip
    webhook.add_argument("--reply-mode", action="store_true",
                         help="answer each webhook with the method the handler returned")  # fmt: skip
    webhook.add_argument(
        "--reply-timeout",
        type=float,
        default=DEFAULT_REPLY_TIMEOUT,
        help="reply mode: seconds to wait for the handler (default: %(default)s)",
    )
    webhook.add_argument("--max-body-size", type=_positive, default=DEFAULT_MAX_BODY_SIZE,
                         help="bytes (default: %(default)s)")  # fmt: skip
    webhook.add_argument("--max-lag", type=_lag, default=DEFAULT_MAX_LAG,
                         help="seconds the event loop may run late (two ticks in a row) "
                         "before new updates are refused with 503; 0: never, and no "
                         "holding of the in-flight count while the loop is saturated "
                         "(default: %(default)s)")  # fmt: skip
    webhook.add_argument("--header-timeout", type=_seconds, default=DEFAULT_HEADER_TIMEOUT,
                         help="seconds for a request head to arrive, else the connection is "
                         "closed (default: %(default)s)")  # fmt: skip
    webhook.add_argument("--body-timeout", type=_seconds, default=DEFAULT_BODY_TIMEOUT,
                         help="seconds for a body to arrive after its head, else 408 "
                         "(default: %(default)s)")  # fmt: skip
    webhook.add_argument("--keepalive-timeout", type=_seconds, default=DEFAULT_KEEPALIVE_TIMEOUT,
                         help="seconds an idle kept-alive connection stays open "
                         "(default: %(default)s)")  # fmt: skip
    webhook.add_argument("--max-connections", type=_positive, default=None,
                         help="open connections per worker; beyond, 503 at once (default: "
                         "1024, or half the descriptor limit if lower)")  # fmt: skip
    webhook.add_argument("--http", choices=("tgfast", "aiohttp"), default=None,
                         help="the HTTP layer: tgfast's own (llhttp) or aiohttp.web (default: "
                         "$TGFAST_HTTP, else tgfast)")  # fmt: skip
    webhook.add_argument("--read-budget", type=_positive, default=DEFAULT_READ_BUDGET,
                         help="bytes of bodies being read at once per worker; beyond, 503 "
                         "(default: %(default)s)")  # fmt: skip
    webhook.add_argument("--trusted-proxy", action="append", type=_networks,
                         metavar="ADDR_OR_CIDR", help="a balancer whose X-Forwarded-For is "
                         "believed (repeatable; default: $TGFAST_TRUSTED_PROXIES, "
                         "comma-separated; none)")  # fmt: skip
    webhook.add_argument("--allow-ip", action="append", type=_allowed_networks,
                         metavar="CIDR|telegram", help="take updates only from these clients "
                         "(their real address; repeatable; telegram: Telegram's webhook "
                         "networks); others get 403 (default: any)")  # fmt: skip
    webhook.set_defaults(handler=_cmd_webhook)

    polling = commands.add_parser("polling", parents=[serving, api], help="long polling",
                                  description="Fetch updates with getUpdates.")  # fmt: skip
    polling.add_argument("--timeout", type=int, default=DEFAULT_POLL_TIMEOUT,
                         help="long-poll timeout in seconds (default: %(default)s)")  # fmt: skip
    polling.add_argument("--host", default="127.0.0.1", help="--fake: address of /fake/...")
    polling.add_argument("--port", type=int, default=8080, help="--fake: port of /fake/...")
    polling.set_defaults(handler=_cmd_polling)

    set_webhook = commands.add_parser("set-webhook", parents=[api], help="setWebhook")
    set_webhook.add_argument("url", metavar="URL")
    set_webhook.add_argument("--secret", default=os.environ.get("TGFAST_WEBHOOK_SECRET"))
    set_webhook.add_argument("--drop-pending-updates", action="store_true")
    set_webhook.add_argument("--max-connections", type=int)
    set_webhook.add_argument("--ip-address")
    kinds = set_webhook.add_mutually_exclusive_group()
    kinds.add_argument("--allowed-updates", help="comma-separated update kinds")
    kinds.add_argument("--app", help="take allowed_updates from this dispatcher (module:attribute)")
    set_webhook.set_defaults(handler=_cmd_set_webhook)

    delete_webhook = commands.add_parser("delete-webhook", parents=[api], help="deleteWebhook")
    delete_webhook.add_argument("--drop-pending-updates", action="store_true")
    delete_webhook.set_defaults(handler=_cmd_delete_webhook)

    info = commands.add_parser("webhook-info", parents=[api], help="getWebhookInfo")
    info.set_defaults(handler=_cmd_webhook_info)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The ``tgfast`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    if args.transport:  # before any Bot is made (the app's too); workers inherit it
        os.environ["TGFAST_TRANSPORT"] = args.transport
    if args.log_config is not None and args.log_format is not None:
        parser.exit(2, f"{parser.prog} {args.command}: error: --log-format is for the default "
                    "handler: give the format in the --log-config file instead\n")  # fmt: skip
    try:
        configure(args.log_level, args.log_config, args.log_format or "text")
    except LogConfigError as exc:
        parser.exit(2, f"{parser.prog} {args.command}: error: --log-config: {exc}\n")
    if getattr(args, "workers", 0) != 1:  # nothing imports the app first: log from here
        default_handler_if_none()
    try:
        _check_addresses(args)
        return int(args.handler(args))
    except UsageError as exc:
        parser.exit(2, f"{parser.prog} {args.command}: error: {exc}\n")
    except AppImportError as exc:  # the user's traceback, then one line
        sys.stderr.write(exc.traceback)
        parser.exit(1, f"{parser.prog} {args.command}: error: {exc}\n")
    except AppLoadError as exc:
        parser.exit(2, f"{parser.prog} {args.command}: error: {exc}\n")
    except (TelegramAPIError, TelegramNetworkError, StorageError) as exc:
        print(f"{parser.prog} {args.command}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # cannot listen: the port is taken, the address is not ours
        print(f"{parser.prog} {args.command}: {exc}", file=sys.stderr)
        return 1
    return 0  # pragma: no cover - parser.exit raised


# -- serving ------------------------------------------------------------------------------


def _cmd_webhook(args: argparse.Namespace) -> int:
    _check_serving(args)
    if args.secret is not None and not valid_secret_token(args.secret):
        raise UsageError("--secret: Telegram's secret_token is 1-256 characters of A-Z, a-z, "
                         "0-9, _ and -")  # fmt: skip
    if not args.path.startswith("/"):
        raise UsageError(f"--path must start with '/', got {args.path!r}")
    if args.workers > 1:
        return _supervise(args)
    app = _app(args)
    dp = app.dispatcher
    config = ServeConfig(
        "webhook", host=args.host, port=args.port, port_per_worker=args.port_per_worker,
        webhook_url=args.webhook_url, drop_pending_updates=args.drop_pending_updates,
        path=args.path, secret_token=args.secret, reply_mode=args.reply_mode,
        reply_timeout=args.reply_timeout, max_body_size=args.max_body_size,
        header_timeout=args.header_timeout, body_timeout=args.body_timeout,
        keepalive_timeout=args.keepalive_timeout, max_connections=args.max_connections,
        read_budget=args.read_budget, http=args.http, concurrency=args.concurrency,
        max_in_flight=args.max_in_flight, max_lag=args.max_lag,
        access_log=logging.getLogger("aiohttp.access") if args.log_level == "debug" else None,
        trusted_proxies=_trusted_proxies(args),
        allowed_ips=None if args.allow_ip is None else [n for ns in args.allow_ip for n in ns],
        redis=args.redis, rate_limit=args.rate_limit, uvloop=args.uvloop,
    )  # fmt: skip
    if args.fake:
        return run(_webhook_fake(args, app, config.webhook_options()), use_uvloop=args.uvloop)
    if args.secret is None:
        log.warning("no --secret: anyone who learns the webhook URL can post updates to it")
    bot = _serving_bot(args, app)
    return run(serve(dp, bot, config), use_uvloop=config.uvloop)


async def _webhook_fake(args: argparse.Namespace, app: App, options: dict[str, Any]) -> int:
    from .testing import FakeTelegram
    from .testing.fake_mode import FakeControl

    dp = app.dispatcher
    if options["secret_token"] is None:
        options["secret_token"] = secrets.token_urlsafe(24)
    async with FakeTelegram() as fake:
        bot = _fake_bot(args, app, fake.token, fake.url)
        control = FakeControl(fake, webhook=True)
        server = WebhookServer(dp, bot, **options)
        control.add_routes(server.app)
        control.watch(server.processor)

        async def ready(server: WebhookServer) -> None:
            await bot.set_webhook(
                server.url or "", secret_token=server.secret_token,
                allowed_updates=dp.resolve_used_update_types(),
            )  # fmt: skip
            base = (server.url or "").removesuffix(server.path)
            log.info("fake Telegram at %s, webhook registered; feed it: "
                     "curl -d '{\"text\": \"hi\", \"chat_id\": 42}' %s/fake/updates",
                     fake.url, base)  # fmt: skip
            control.start_watching()

        try:
            return await serve_webhook(
                dp, bot, host=args.host, port=args.port, on_ready=ready, server=server
            )
        finally:
            await control.stop_watching()


def _cmd_polling(args: argparse.Namespace) -> int:
    _check_serving(args)
    if args.workers > 1:
        return _supervise(args)
    app = _app(args)
    dp = app.dispatcher
    config = ServeConfig(
        "polling", poll_timeout=args.timeout, drop_pending_updates=args.drop_pending_updates,
        concurrency=args.concurrency, max_in_flight=args.max_in_flight, redis=args.redis,
        rate_limit=args.rate_limit, uvloop=args.uvloop,
    )  # fmt: skip
    if args.fake:
        options = config.polling_options()
        options["drop_pending_updates"] = args.drop_pending_updates and does_once_only_work(
            this_worker()
        )
        return run(_polling_fake(args, app, options), use_uvloop=args.uvloop)
    bot = _serving_bot(args, app)
    return run(serve(dp, bot, config), use_uvloop=config.uvloop)


async def _polling_fake(args: argparse.Namespace, app: App, options: dict[str, Any]) -> int:
    from .testing import FakeTelegram
    from .testing.fake_mode import FakeControl

    dp = app.dispatcher
    async with FakeTelegram() as fake:
        bot = _fake_bot(args, app, fake.token, fake.url)
        control = FakeControl(fake, webhook=False)
        runner = web.AppRunner(control.app(), handle_signals=False, access_log=None)
        await runner.setup()
        try:
            await web.TCPSite(runner, args.host, args.port).start()
            host, port = runner.addresses[0][:2]
            log.info("fake Telegram at %s; feed it: curl -d '{\"text\": \"hi\", \"chat_id\": 42}' "
                     "http://%s:%s/fake/updates", fake.url, host, port)  # fmt: skip
            control.start_watching()
            return await serve_polling(
                dp, bot, on_ready=lambda poller: control.watch(poller.processor), **options
            )
        finally:
            await control.stop_watching()
            await runner.cleanup()


def _check_serving(args: argparse.Namespace) -> None:
    if args.workers > 1:
        if args.fake:
            raise UsageError(f"--fake runs one process (each of {args.workers} workers would "
                             "get a fake of its own): drop --workers")  # fmt: skip
        if args.command == "webhook" and args.port == 0:
            raise UsageError(f"--port 0 with --workers {args.workers}: the workers could not "
                             "agree on a port; give one")  # fmt: skip
        if (
            args.command == "webhook"
            and args.port_per_worker
            and (args.port + args.workers - 1 > 65535)
        ):
            raise UsageError(f"--port-per-worker: ports {args.port}-"
                             f"{args.port + args.workers - 1} go past 65535")  # fmt: skip
        if args.command == "polling" and not args.redis:
            raise UsageError(f"polling with --workers {args.workers} needs --redis: several "
                             "pollers would fetch the same updates (a Redis lock lets one "
                             "poll at a time)")  # fmt: skip
    if args.redis:  # a bad URL is one line here, not a failure in every worker
        from .redis import check_redis_url

        try:
            check_redis_url(args.redis)
        except ValueError as exc:
            raise UsageError(f"--redis: {exc}") from None
    if args.fake:
        if args.token or args.api_url or args.local:
            raise UsageError("--fake serves against a built-in fake: drop --token and --api-url "
                             "(and --local)")  # fmt: skip
        if args.redis:
            raise UsageError("--fake keeps its state in the process: drop --redis "
                             "(or unset TGFAST_REDIS_URL)")  # fmt: skip
    elif not _token(args) and _app(args).bot is None:
        raise UsageError(
            "no bot token: pass --token, set TGFAST_TOKEN or BOT_TOKEN, define the app's "
            "bot, or try it with --fake"
        )


# -- several workers ----------------------------------------------------------------------

# Options whose values are secrets: the workers get them in their environment (``ps``
# shows a command line to every user of the machine, not the environment).
_SECRET_OPTIONS = {
    "--token": "TGFAST_TOKEN",
    "--secret": "TGFAST_WEBHOOK_SECRET",
    "--redis": "TGFAST_REDIS_URL",
}


def _supervise(args: argparse.Namespace) -> int:
    """Run ``args.workers`` copies of this command under a ``Supervisor``."""
    if _token(args):
        _bot(args)  # a malformed token is a usage error here, not N workers failing
    argv, env = _worker_command(args)
    if args.command == "webhook":
        if args.port_per_worker:
            where = f"{args.host}, ports {args.port}-{args.port + args.workers - 1} (one each)"
        else:
            where = f"{args.host}:{args.port} (shared, SO_REUSEPORT)"
        log.info("supervisor: %d workers on %s", args.workers, where)
    else:
        log.info("supervisor: %d polling workers, one polls at a time (Redis lock)", args.workers)
    if not args.redis:
        log.warning("%d workers without --redis: FSM state, redelivered-update dedup and rate "
                    "limits are per worker (a conversation continued on another worker starts "
                    "over); see docs/serving.md", args.workers)  # fmt: skip
    return asyncio.run(Supervisor(argv, args.workers, env=env).run())


def _worker_command(args: argparse.Namespace) -> tuple[list[str], dict[str, str]]:
    """The command line and environment of one worker: this command, ``--workers 1``,
    the secret options moved to the environment."""
    argv = list(args.argv)
    env = dict(os.environ)
    for option, variable in _SECRET_OPTIONS.items():
        value = getattr(args, option[2:], None)
        if value:
            env[variable] = value
        argv = _without_option(argv, option)
    argv = _without_option(argv, "--workers")
    token = _token(args)
    if token and any(token in arg for arg in argv):  # pragma: no cover - a safety net
        raise UsageError("the token would be on the workers' command line: pass it in the "
                         "TGFAST_TOKEN environment variable")  # fmt: skip
    interpreter = [sys.executable, *(f"-W{option}" for option in sys.warnoptions)]
    return [*interpreter, "-m", "tgfast", *argv, "--workers", "1"], env


def _without_option(argv: list[str], option: str) -> list[str]:
    """``argv`` without ``option VALUE`` / ``option=VALUE`` (or an abbreviation of it,
    which argparse takes too)."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        name, eq, _ = arg.partition("=")
        if len(name) > 3 and name.startswith("--") and option.startswith(name):
            skip = not eq
            continue
        else:
            out.append(arg)
    return out


# -- webhook management -----------------------------------------------------------------


def _cmd_set_webhook(args: argparse.Namespace) -> int:
    allowed: list[str] | None = None
    if args.allowed_updates is not None:
        allowed = [kind.strip() for kind in args.allowed_updates.split(",") if kind.strip()]
    elif args.app is not None:
        allowed = load_dispatcher(args.app).resolve_used_update_types()
    bot = _bot(args)

    async def main() -> None:
        async with bot:
            await bot.set_webhook(
                args.url, secret_token=args.secret, max_connections=args.max_connections,
                ip_address=args.ip_address, allowed_updates=allowed,
                drop_pending_updates=args.drop_pending_updates or None,
            )  # fmt: skip

    asyncio.run(main())
    print(
        f"webhook set: {args.url}"
        + (f" (allowed_updates: {', '.join(allowed)})" if allowed else "")
    )
    return 0


def _cmd_delete_webhook(args: argparse.Namespace) -> int:
    bot = _bot(args)

    async def main() -> None:
        async with bot:
            await bot.delete_webhook(drop_pending_updates=args.drop_pending_updates or None)

    asyncio.run(main())
    print("webhook deleted" + (", pending updates dropped" if args.drop_pending_updates else ""))
    return 0


def _cmd_webhook_info(args: argparse.Namespace) -> int:
    bot = _bot(args)

    async def main() -> dict[str, Any]:
        async with bot:
            return (await bot.get_webhook_info()).to_dict()

    info = asyncio.run(main())
    width = max(map(len, info))
    for key, value in info.items():
        print(f"{key:<{width}}  {value}")
    return 0


# -- helpers ------------------------------------------------------------------------------


def _check_addresses(args: argparse.Namespace) -> None:
    """A bad ``--api-url`` or ``--port`` is a usage error before anything starts, not a
    traceback from the first call (or after the server is up)."""
    if getattr(args, "api_url", None):
        try:
            check_base_url(args.api_url)
        except ValueError as exc:
            raise UsageError(f"--api-url: {exc}") from None
    port = getattr(args, "port", None)
    if port is not None and not 0 <= port <= 65535:
        raise UsageError(f"--port: out of range 0-65535, got {port}")


def _token(args: argparse.Namespace) -> str | None:
    return args.token or next((os.environ[v] for v in _TOKEN_VARS if os.environ.get(v)), None)


def _bot(args: argparse.Namespace) -> Bot:
    """The bot the command makes: the token, ``--api-url``/``--local``, ``--parse-mode``."""
    token = _token(args)
    if not token:
        raise UsageError("no bot token: pass --token or set TGFAST_TOKEN or BOT_TOKEN")
    try:
        return Bot(token, server=_server(args), defaults=_defaults(args),
                   rate_limiter=_rate_limiter(args))  # fmt: skip
    except TgfastError as exc:
        raise UsageError(str(exc)) from None


def _server(args: argparse.Namespace) -> TelegramAPIServer:
    if not args.local:
        if args.local_dir:
            raise UsageError("--local-dir goes with --local")
        return TelegramServer(args.api_url) if args.api_url else TelegramServer()
    if not args.api_url:
        raise UsageError("--local needs --api-url, the local Bot API server's address")
    if not args.local_dir:
        raise UsageError("--local needs --local-dir, the local server's --dir: downloads "
                         "read files there and nowhere else")  # fmt: skip
    if not os.path.isdir(args.local_dir):
        raise UsageError(f"--local-dir: not a directory: {args.local_dir}")
    return TelegramServer(args.api_url, local=True, local_dir=args.local_dir)


def _defaults(args: argparse.Namespace) -> DefaultBotProperties | None:
    parse_mode = getattr(args, "parse_mode", None)
    return None if parse_mode is None else DefaultBotProperties(parse_mode=parse_mode)


def _app(args: argparse.Namespace) -> App:
    """The app ``args.app`` names, loaded once (a file is executed on each load)."""
    app: App | None = getattr(args, "loaded_app", None)
    if app is None:
        app = args.loaded_app = load_app(args.app, args.bot)
        # the app's own logging configuration, made at import, wins over the default
        if default_handler_if_none() is None and args.log_format is not None:
            log.warning("--log-format %s: ignored, logging is configured by the app or "
                        "--log-config", args.log_format)  # fmt: skip
    return app


def _serving_bot(args: argparse.Namespace, app: App) -> Bot:
    """The app's own bot when its module defines one, else the one the command makes."""
    if app.bot is None:
        return _bot(args)
    given = [opt for opt, on in (("--api-url", args.api_url), ("--local", args.local),
                                 ("--parse-mode", args.parse_mode)) if on]  # fmt: skip
    if isinstance(app.bot, Bot) and args.token:
        given.insert(0, "--token")
    if given:
        raise UsageError(f"{' '.join(given)}: the app's {app.bot_name!r} is its own Bot, "
                         "with its own token, server and defaults; drop the option or the "
                         "module's bot")  # fmt: skip
    try:
        bot = app.make_bot(_token(args))
    except TgfastError as exc:
        raise UsageError(str(exc)) from None
    assert bot is not None
    if not args.rate_limit:
        bot.rate_limiter = None
    log.info("serving with the app's bot %r (%s)", app.bot_name, _describe(bot))
    return bot


def _fake_bot(args: argparse.Namespace, app: App, token: str, url: str) -> Bot:
    """``--fake``: a bot on the fake, with the app's bot's defaults when it has one."""
    defaults = _defaults(args)
    if app.bot is not None:
        if args.parse_mode:
            raise UsageError(f"--parse-mode: the app's {app.bot_name!r} has its own defaults")
        made = app.make_bot(token)
        assert made is not None
        defaults = made.defaults
    return Bot(token, server=url, defaults=defaults, rate_limiter=_rate_limiter(args))


def _describe(bot: Bot) -> str:
    """What a bot is, for the log: its id and its defaults, never its token."""
    defaults = ", ".join(f"{k}={v!r}" for k, v in _fields(bot.defaults).items() if v is not None)
    return f"id {bot.id}, {bot.server.base_url}" + (f", defaults: {defaults}" if defaults else "")


def _fields(obj: Any) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}


def _rate_limiter(args: argparse.Namespace) -> Any:
    from .defaults import DEFAULT

    return DEFAULT if getattr(args, "rate_limit", True) else None


def _parse_mode(text: str) -> str:
    """``html`` -> ``HTML``: the parse modes as Telegram spells them, in any case."""
    return next((mode for mode in _PARSE_MODES if mode.lower() == text.lower()), text)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _seconds(text: str) -> float:
    value = float(text)
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return value


def _lag(text: str) -> float | None:
    """``--max-lag``: seconds, or 0 for no watch on the loop (lateness, saturation)."""
    if float(text) == 0:
        return None
    return _seconds(text)


def _networks(text: str, presets: bool = False) -> tuple[Any, ...]:
    from .server.addresses import parse_networks

    try:
        return parse_networks(text, presets=presets)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _allowed_networks(text: str) -> tuple[Any, ...]:
    return _networks(text, presets=True)


def _trusted_proxies(args: argparse.Namespace) -> list[Any]:
    if args.trusted_proxy is not None:
        return [network for networks in args.trusted_proxy for network in networks]
    text = os.environ.get("TGFAST_TRUSTED_PROXIES", "").strip()
    try:
        return list(_networks(text)) if text else []
    except argparse.ArgumentTypeError as exc:
        raise UsageError(f"$TGFAST_TRUSTED_PROXIES: {exc}") from None
