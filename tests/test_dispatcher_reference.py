"""Generated router trees: the dispatcher picks exactly the handler a naive matcher picks.

The naive matcher walks the tree as the rules say (a router's handlers in declared
order, then its children; router filters gate the subtree; a handler that raises
``SkipHandler`` passes the update on) and decides every filter from the update with
plain string work, with no command index and no filter object. 1,000 random trees mix
commands (prefixes, case, mentions of this bot and of others), ``CommandStart`` with
and without deep links, regexp commands, text and chat tests, ``~`` inversions, async
and dict-returning filters, router-level filters and middlewares; each is fed texts
and captions that hit commands, near misses, mentions and plain words.

Every tree runs through each routing runtime (the ``routing`` fixture: compiled
``_routing`` and its twin ``_routing_py``) against the naive matcher, and, when the
compiled one is built, through both side by side in one process: the same handler,
the same data passed to it (handlers that ask for data or for the ``CommandObject``
return what they got), the same errors (handlers that raise, with or without an
``errors`` handler, and what is logged).
"""

from __future__ import annotations

import logging
import random
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import orjson
import pytest
from implementations import ROUTING_IMPLEMENTATIONS

import tgfast
from tgfast import Bot
from tgfast.dispatcher import FAILED, UNHANDLED, Dispatcher, ErrorEvent, Router, SkipHandler
from tgfast.filters import Command, CommandObject, CommandStart, F, MagicFilter
from tgfast.types import Message, Update, User

USERNAME = "MyBot"
COMMANDS = ["a", "B", "cmd1", "start", "Start"]
PATTERNS = [r"c\w+\d", r"[aA]$"]
TEXTS = [
    "/a", "/A x", "/b", "/B@MyBot", "/B@mybot y", "/a@other", "!a", "/start", "/start xyz",
    "/START@MyBot q", "/cmd1@", "/cmd1@MyBot@x", "/a\u00a0x", "hello", "/", "/@MyBot",
    "/cmd10", "!B@MYBOT", "/cmd1 y", "b", "ends in x",
]  # fmt: skip
CHATS = [1, 2]


def parse(text: str, prefix: str) -> tuple[str, str | None, str | None] | None:
    """(name, mention, args) of a command written with one of ``prefix``, by the rules."""
    if not text or text[0] not in prefix:
        return None
    parts = text.split(None, 1)
    name, _at, mention = parts[0][1:].partition("@")
    if not name:
        return None
    return name, (mention or None), (parts[1] if len(parts) == 2 else None)


@dataclass
class Spec:
    """A filter as data: applied by the real filter objects and by the naive matcher."""

    kind: str
    value: Any

    def real(self) -> Any:
        kind, value = self.kind, self.value
        if kind == "command":
            names, prefix, ignore_case, ignore_mention = value
            return Command(
                *names, prefix=prefix, ignore_case=ignore_case, ignore_mention=ignore_mention
            )
        if kind == "start":
            deep_link, ignore_case = value
            return CommandStart(
                deep_link=deep_link or None, ignore_case=ignore_case
            )  # None: either
        if kind == "regexp":
            pattern, name = value
            return Command(re.compile(pattern), name)
        if kind == "text":
            return F.text == value
        if kind == "not_caption":
            return ~(F.caption == value)
        if kind == "chat":
            return F.chat.id == value
        if kind == "dict":
            return ends_in_x
        inner = value.real()  # async: the same test behind an await

        async def later(message: Message, bot: Bot) -> Any:
            if isinstance(inner, Command):
                return await inner(message, bot)
            return inner.check(message) if isinstance(inner, MagicFilter) else inner(message)

        return later

    def naive(self, text: str | None, caption: str | None, chat_id: int) -> bool:
        kind, value = self.kind, self.value
        if kind == "text":
            return text == value
        if kind == "not_caption":
            return caption != value
        if kind == "chat":
            return chat_id == value
        if kind == "dict":
            return (text or caption or "").endswith("x")
        if kind == "async":
            return bool(value.naive(text, caption, chat_id))
        body = text or caption or ""
        if kind == "command":
            names, prefix, ignore_case, ignore_mention = value
        elif kind == "start":
            names, prefix, ignore_case, ignore_mention = ("start",), "/", value[1], False
        else:
            names, prefix, ignore_case, ignore_mention = (value[1],), "/", False, False
        parsed = parse(body, prefix)
        if parsed is None:
            return False
        name, mention, args = parsed
        if mention is not None and not ignore_mention and mention.lower() != USERNAME.lower():
            return False
        if kind == "regexp" and re.match(value[0], name):
            return True
        fold = str.lower if ignore_case else str
        if fold(name) not in {fold(n) for n in names}:
            return False
        return not (kind == "start" and value[0] and args is None)


def ends_in_x(message: Message) -> dict[str, int] | bool:
    return {"x": 1} if (message.text or message.caption or "").endswith("x") else False


@dataclass
class Node:
    router_filters: list[Spec]
    outer: bool = False
    inner: bool = False
    handlers: list[tuple[int, list[Spec], str]] = field(default_factory=list)
    children: list[Node] = field(default_factory=list)
    errors: bool = False  # the root only: whether an ``errors`` handler takes failures


MODES = ["plain"] * 6 + ["skip", "data", "command", "raise"]
"""How a handler answers: its number; SkipHandler; its number and every datum it was
passed; its number and the ``CommandObject``; an exception naming its number."""


def random_spec(rng: random.Random, nested: bool = False) -> Spec:
    kinds = ["command"] * 3 + ["start", "regexp", "text", "not_caption", "chat", "dict"]
    kind = rng.choice(kinds if nested else [*kinds, "async"])
    if kind == "command":
        names = tuple(rng.sample(COMMANDS, rng.randint(1, 2)))
        prefix = rng.choice(["/", "/!", "!"])
        return Spec(kind, (names, prefix, rng.random() < 0.4, rng.random() < 0.3))
    if kind == "start":
        return Spec(kind, (rng.random() < 0.5, rng.random() < 0.5))
    if kind == "regexp":
        return Spec(kind, (rng.choice(PATTERNS), rng.choice(COMMANDS)))
    if kind in ("text", "not_caption"):
        return Spec(kind, rng.choice(TEXTS))
    if kind == "chat":
        return Spec(kind, rng.choice(CHATS))
    if kind == "dict":
        return Spec(kind, None)
    return Spec(kind, random_spec(rng, nested=True))


def random_tree(rng: random.Random, depth: int, counter: list[int]) -> Node:
    node = Node([random_spec(rng)] if rng.random() < 0.2 else [])
    node.outer, node.inner = rng.random() < 0.15, rng.random() < 0.15
    for _ in range(rng.randint(0, 4)):
        counter[0] += 1
        specs = [random_spec(rng) for _ in range(rng.randint(0, 2))]
        node.handlers.append((counter[0], specs, rng.choice(MODES)))
    if depth < 3:
        for _ in range(rng.randint(0, 2)):
            node.children.append(random_tree(rng, depth + 1, counter))
    node.errors = depth == 0 and rng.random() < 0.5
    return node


async def passthrough(handler: Any, event: Any, data: dict[str, Any]) -> Any:
    return await handler(event, data)


def describe(value: Any) -> Any:
    """A datum as plain values two runs can compare (objects by what they hold)."""
    if value is None or isinstance(value, (int, str, bool)):
        return value
    if isinstance(value, CommandObject):
        match = value.regexp_match
        return ("command", value.prefix, value.command, value.mention, value.args,
                None if match is None else match.group(0), value.magic_result)  # fmt: skip
    if isinstance(value, Update):
        return ("update", value.update_id)
    if isinstance(value, Message):
        return ("message", value.message_id, value.text, value.caption)
    for attr in ("id", "update_id"):
        if isinstance(getattr(value, attr, None), int):
            return (type(value).__name__, getattr(value, attr))
    return type(value).__name__  # the bot, the dispatcher, the FSM context, the handler


def handler(number: int, mode: str) -> Any:
    if mode == "data":

        def handle_data(message: Message, **data: Any) -> Any:
            return number, sorted((key, describe(value)) for key, value in data.items())

        return handle_data
    if mode == "command":

        def handle_command(message: Message, command: CommandObject | None = None) -> Any:
            return number, describe(command)

        return handle_command

    def handle(message: Message) -> int:
        if mode == "skip":
            raise SkipHandler
        if mode == "raise":
            raise LookupError(f"handler {number}")
        return number

    return handle


def on_error(event: ErrorEvent) -> Any:
    return "error", type(event.exception).__name__, str(event.exception), describe(event.update)


def build(node: Node, router: Router) -> None:
    if node.router_filters:
        router.message.filter(*(s.real() for s in node.router_filters))
    if node.outer:
        router.message.outer_middleware(passthrough)
    if node.inner:
        router.message.middleware(passthrough)
    for number, specs, mode in node.handlers:
        router.message.register(handler(number, mode), *(s.real() for s in specs))
    for child in node.children:
        sub = Router()
        router.include_router(sub)
        build(child, sub)


def build_dispatcher(tree: Node, routing: ModuleType) -> Dispatcher:
    dp = Dispatcher(routing=routing)
    build(tree, dp)
    if tree.errors:
        dp.errors.register(on_error)
    return dp


def naive(node: Node, text: str | None, caption: str | None, chat_id: int) -> Any:
    """The number of the handler that takes the update (it may raise), or UNHANDLED."""
    if not all(s.naive(text, caption, chat_id) for s in node.router_filters):
        return UNHANDLED
    for number, specs, mode in node.handlers:
        if mode != "skip" and all(s.naive(text, caption, chat_id) for s in specs):
            return number
    for child in node.children:
        result = naive(child, text, caption, chat_id)
        if result is not UNHANDLED:
            return result
    return UNHANDLED


def update(update_id: int, text: str, as_caption: bool, chat_id: int) -> Update:
    message: dict[str, Any] = {"message_id": 1, "date": 1,
                               "chat": {"id": chat_id, "type": "private"}}  # fmt: skip
    if as_caption:
        photo = {"file_id": "f", "file_unique_id": "u", "width": 1, "height": 1}
        message.update(caption=text, photo=[photo])
    else:
        message["text"] = text
    return tgfast.decode_update(orjson.dumps({"update_id": update_id, "message": message}))


def test_the_naive_parser_follows_the_rules() -> None:
    assert parse("/a\u00a0x", "/") == ("a", None, "x")
    assert parse("/cmd1@", "/") == ("cmd1", None, None)
    assert parse("/cmd1@MyBot@x", "/") == ("cmd1", "MyBot@x", None)
    assert parse("/@MyBot", "/") is None and parse("/", "/") is None
    assert parse("!B@MYBOT", "/!") == ("B", "MYBOT", None)


def number_of(result: Any, tree: Node) -> Any:
    """Which handler ``result`` came from, in the naive matcher's terms."""
    if result is FAILED:
        assert not tree.errors, "an errors handler was there to take the failure"
        return FAILED
    if isinstance(result, tuple) and result[0] == "error":
        assert result[1:3] == ("LookupError", result[2]), result
        return int(result[2].removeprefix("handler "))
    return result[0] if isinstance(result, tuple) else result


def cases() -> Iterator[tuple[tuple[str, bool, int], Update]]:
    found = [(t, cap, chat) for t in TEXTS for cap in (False, True) for chat in CHATS]
    for i, case in enumerate(found):
        yield case, update(i, *case)


def modes(node: Node) -> dict[int, str]:
    found = {number: mode for number, _specs, mode in node.handlers}
    for child in node.children:
        found.update(modes(child))
    return found


@pytest.fixture
async def me_bot() -> AsyncIterator[Bot]:
    """A bot that knows its username (mentions are checked without a server)."""
    me = {"id": 1, "is_bot": True, "first_name": "Bot", "username": USERNAME}
    async with Bot("1:reference", rate_limiter=None) as bot:
        bot._me = tgfast.convert(User, me)
        yield bot


@pytest.mark.parametrize("batch", range(10))
async def test_generated_trees_agree_with_the_naive_matcher(
    batch: int, routing: ModuleType, me_bot: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    rng = random.Random(batch)
    caplog.set_level(logging.CRITICAL, "tgfast.dispatcher")
    for _ in range(100):
        tree = random_tree(rng, 0, [0])
        dp = build_dispatcher(tree, routing)
        assert type(dp.freeze()).__module__ == routing.__name__
        mode_of = modes(tree)
        for (text, as_caption, chat), sent in cases():
            try:
                got = await dp.feed_update(me_bot, sent)
            except LookupError:  # raised by a handler, no errors handler took it
                got = FAILED
            caption = text if as_caption else None
            want = naive(tree, None if as_caption else text, caption, chat)
            if want is not UNHANDLED and mode_of[want] == "raise" and not tree.errors:
                want = FAILED
            assert number_of(got, tree) == want, (text, as_caption, chat, tree)


TWINS = (
    [pytest.param(ROUTING_IMPLEMENTATIONS["c"], id="c-vs-py")]
    if "c" in ROUTING_IMPLEMENTATIONS
    else []
)


class Log(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[tuple[str, str, str | None]] = []

    def emit(self, record: logging.LogRecord) -> None:
        exc = record.exc_info[1] if record.exc_info else None
        self.lines.append((record.levelname, record.getMessage(), repr(exc)))


@pytest.mark.parametrize("compiled", TWINS)
class TestTwinRouting:
    """Collected only with the compiled build (as ``test_twins.TestTwins``)."""

    __test__ = bool(TWINS)

    @pytest.mark.parametrize("batch", range(10))
    async def test_twins_route_alike(self, batch: int, compiled: ModuleType, me_bot: Bot) -> None:
        """The same tree through the compiled runtime and its twin, in one process: the same
        result (handler, data passed, error handler's answer, exception raised) and the same
        log lines."""
        rng = random.Random(1000 + batch)
        logger = logging.getLogger("tgfast.dispatcher")
        log = Log()
        logger.addHandler(log)
        propagate, logger.propagate = logger.propagate, False
        try:
            for _ in range(100):
                tree = random_tree(rng, 0, [0])
                dps = [
                    build_dispatcher(tree, compiled),
                    build_dispatcher(tree, ROUTING_IMPLEMENTATIONS["py"]),
                ]
                for case, sent in cases():
                    answers = []
                    for dp in dps:
                        log.lines.clear()
                        try:
                            got: Any = await dp.feed_update(me_bot, sent)
                        except LookupError as exc:  # a handler's, untaken: raised by both
                            got = ("raised", repr(exc))
                        answers.append((got, list(log.lines)))
                    assert answers[0] == answers[1], (case, tree)
        finally:
            logger.removeHandler(log)
            logger.propagate = propagate
