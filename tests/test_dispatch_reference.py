"""Generated router trees: the dispatcher picks exactly the handler a naive matcher picks.

The naive matcher walks the tree as the rules say (a router's handlers in declared
order, then its children; router filters gate the subtree) and tries every filter of
every handler, with no command index. 1,000 random trees, each fed a set of updates
that hit commands, near misses, mentions and plain texts.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import orjson
import pytest

import tgfast
from tgfast import Bot
from tgfast.dispatcher import UNHANDLED, Dispatcher, Router
from tgfast.filters import Command, F
from tgfast.types import Update

COMMANDS = ["a", "b", "cmd1", "cmd2", "Start"]
TEXTS = [
    "/a",
    "/b x",
    "/cmd1",
    "/cmd2@other_bot",
    "/START",
    "/start",
    "!a",
    "hello",
    "/cmd1 y",
    "b",
]
CHATS = [1, 2, -5]


@dataclass
class Spec:
    """A filter as data: applied by the real filter objects and by the naive matcher."""

    kind: str
    value: Any

    def real(self) -> Any:
        if self.kind == "command":
            names, prefix, ignore_case = self.value
            return Command(*names, prefix=prefix, ignore_case=ignore_case, ignore_mention=True)
        if self.kind == "text":
            return F.text == self.value
        return F.chat.id == self.value

    def naive(self, text: str, chat_id: int) -> bool:
        if self.kind == "text":
            return text == self.value
        if self.kind == "chat":
            return chat_id == self.value
        names, prefix, ignore_case = self.value
        if not text or text[0] not in prefix:
            return False
        token = text[1:].split(None, 1)[0] if text[1:].strip() else ""
        name = token.split("@", 1)[0]
        if ignore_case:
            return name.lower() in {n.lower() for n in names}
        return name in names


@dataclass
class Node:
    router_filters: list[Spec]
    handlers: list[tuple[int, list[Spec]]] = field(default_factory=list)
    children: list[Node] = field(default_factory=list)


def random_spec(rng: random.Random) -> Spec:
    kind = rng.choice(["command", "command", "text", "chat"])
    if kind == "command":
        names = tuple(rng.sample(COMMANDS, rng.randint(1, 2)))
        return Spec(kind, (names, rng.choice(["/", "/!"]), rng.random() < 0.3))
    if kind == "text":
        return Spec(kind, rng.choice(TEXTS))
    return Spec(kind, rng.choice(CHATS))


def random_tree(rng: random.Random, depth: int, counter: list[int]) -> Node:
    node = Node([random_spec(rng)] if rng.random() < 0.2 else [])
    for _ in range(rng.randint(0, 4)):
        counter[0] += 1
        node.handlers.append((counter[0], [random_spec(rng) for _ in range(rng.randint(0, 2))]))
    if depth < 3:
        for _ in range(rng.randint(0, 2)):
            node.children.append(random_tree(rng, depth + 1, counter))
    return node


def build(node: Node, router: Router) -> None:
    if node.router_filters:
        router.message.filter(*(s.real() for s in node.router_filters))
    for number, specs in node.handlers:
        router.message.register(lambda message, n=number: n, *(s.real() for s in specs))
    for child in node.children:
        sub = Router()
        router.include_router(sub)
        build(child, sub)


def naive(node: Node, text: str, chat_id: int) -> Any:
    if not all(s.naive(text, chat_id) for s in node.router_filters):
        return UNHANDLED
    for number, specs in node.handlers:
        if all(s.naive(text, chat_id) for s in specs):
            return number
    for child in node.children:
        result = naive(child, text, chat_id)
        if result is not UNHANDLED:
            return result
    return UNHANDLED


def update(update_id: int, text: str, chat_id: int) -> Update:
    message = {"message_id": 1, "date": 1, "text": text,
               "chat": {"id": chat_id, "type": "private" if chat_id > 0 else "group"}}  # fmt: skip
    return tgfast.decode_update(orjson.dumps({"update_id": update_id, "message": message}))


@pytest.mark.parametrize("batch", range(10))
async def test_generated_trees_agree_with_the_naive_matcher(batch: int) -> None:
    rng = random.Random(batch)
    updates = [(text, chat) for text in TEXTS for chat in CHATS]
    async with Bot("1:reference", rate_limiter=None) as bot:
        for _ in range(100):
            tree = random_tree(rng, 0, [0])
            dp = Dispatcher()
            build(tree, dp)
            for i, (text, chat) in enumerate(updates):
                got = await dp.feed_update(bot, update(i, text, chat))
                assert got == naive(tree, text, chat), (text, chat, tree)
