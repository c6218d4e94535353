"""The routing table at run time, pure Python (the twin of ``_routing.pyx``).

``tgfast.dispatcher.table`` freezes the router tree into ``Node``s, one tree per update
kind: each node holds its router's observer filters, outer middlewares, handlers in
declared order and its child nodes. Handlers with a ``Command`` filter are also filed
by command in ``index``, so a ``/cmd19`` is tried only against the handlers that could
match it (and the handlers without a command filter), still in declared order.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from ..dispatcher.event import UNHANDLED, SkipHandler

__all__ = ["Call", "Entry", "Node", "command_key", "propagate"]


class Call:
    """A filter (or handler) with its injection plan, read once at registration."""

    __slots__ = ("fn", "is_async", "names", "takes_all")

    def __init__(
        self, fn: Callable[..., Any], is_async: bool, names: tuple[str, ...], takes_all: bool
    ) -> None:
        self.fn = fn
        self.is_async = is_async
        self.names = names
        self.takes_all = takes_all


class Entry(Call):
    """A handler: how to call it, its filters, and the inner middlewares around it."""

    __slots__ = ("filters", "inner")

    def __init__(
        self,
        fn: Callable[..., Any],
        is_async: bool,
        names: tuple[str, ...],
        takes_all: bool,
        filters: tuple[Call, ...],
        inner: tuple[Any, ...],
    ) -> None:
        super().__init__(fn, is_async, names, takes_all)
        self.filters = filters
        self.inner = inner


class Node:
    """One router's part of the table for one update kind."""

    __slots__ = ("children", "filters", "index", "outer", "plain", "prefixes")

    def __init__(
        self,
        filters: tuple[Call, ...],
        outer: tuple[Any, ...],
        plain: tuple[Entry, ...],
        index: dict[str, tuple[Entry, ...]] | None,
        prefixes: str,
        children: tuple[Node, ...],
    ) -> None:
        self.filters = filters
        self.outer = outer
        self.plain = plain  # every handler, or with an index those without a command
        self.index = index
        self.prefixes = prefixes
        self.children = children


def command_key(text: str) -> str:
    """``"/Start@bot args"`` -> ``"/start"``: what the command index is keyed by."""
    end = len(text)
    for i, ch in enumerate(text):
        if ch == "@" or ch.isspace():
            end = i
            break
    return text[:end].lower()


async def _call(call: Call, event: Any, data: dict[str, Any]) -> Any:
    if call.takes_all:
        result = call.fn(event, **data)
    elif call.names:
        result = call.fn(event, **{n: data[n] for n in call.names if n in data})
    else:
        result = call.fn(event)
    if call.is_async:
        result = await result
    return result


async def _passes(filters: tuple[Call, ...], event: Any, data: dict[str, Any]) -> Any:
    """``data`` (with what the filters injected) when all pass, else None."""
    for f in filters:
        result = await _call(f, event, data)
        if type(result) is dict:  # passes, even when empty, and injects its values
            if result:
                data = {**data, **result}
        elif not result:
            return None
    return data


async def _handle(entry: Entry, index: int, event: Any, data: dict[str, Any]) -> Any:
    if index == len(entry.inner):
        return await _call(entry, event, data)
    return await entry.inner[index](partial(_handle, entry, index + 1), event, data)


async def _route(node: Node, event: Any, data: dict[str, Any]) -> Any:
    if node.filters:
        passed = await _passes(node.filters, event, data)
        if passed is None:
            return UNHANDLED  # the router's own filters reject: its children too
        data = passed
    entries = node.plain
    if node.index is not None:
        text = event.text or event.caption
        if text and text[0] in node.prefixes:
            entries = node.index.get(command_key(text), entries)
    for entry in entries:
        passed = await _passes(entry.filters, event, data) if entry.filters else data
        if passed is None:
            continue
        try:
            return await _handle(entry, 0, event, passed)
        except SkipHandler:
            continue
    for child in node.children:
        result = await propagate(child, event, data)
        if result is not UNHANDLED:
            return result
    return UNHANDLED


async def _outer(node: Node, index: int, event: Any, data: dict[str, Any]) -> Any:
    if index == len(node.outer):
        return await _route(node, event, data)
    return await node.outer[index](partial(_outer, node, index + 1), event, data)


async def propagate(node: Node, event: Any, data: dict[str, Any]) -> Any:
    """Route ``event`` through ``node`` and its children: the first handler that matches
    (in declared order, a router's handlers before its children's) handles it. Returns
    the handler's result, or ``UNHANDLED``."""
    if node.outer:
        return await _outer(node, 0, event, data)
    return await _route(node, event, data)
