"""Freezing a router tree into the routing table, once, when the dispatcher starts.

For each update kind that has handlers, the tree becomes a tree of ``Node``s holding
only what routing needs: the call plan of every filter and handler, the inner
middlewares each handler inherits, and for message kinds an index of handlers by
command, so that the command of an update is looked up, not tried filter by filter.
"""

from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING, Any

from ..filters.command import Command
from ..types import _types
from ..types.binding import _has_bot_slot
from ._kinds import EVENT_TYPES, UPDATE_KINDS
from .injection import Injection
from .routing import impl

if TYPE_CHECKING:
    from .observer import HandlerSpec
    from .router import Router

__all__ = ["Kind", "Table", "build_table"]

_MESSAGE_KINDS = frozenset(k for k, tp in EVENT_TYPES.items() if tp == "Message")


class Kind:
    """One update kind in the table: its node tree and how to read its event."""

    __slots__ = ("bindable", "chat", "name", "node", "user")

    def __init__(self, name: str, node: Any) -> None:
        self.name = name
        self.node = node
        cls = getattr(_types, EVENT_TYPES[name])
        attrs = {attr for _key, attr, _tp, _req in cls.__tg_fields__}
        self.user = attrgetter("from_user") if "from_user" in attrs else None
        self.chat = attrgetter("chat") if "chat" in attrs else None
        self.bindable = _has_bot_slot(cls)


class Table:
    """The frozen routing table of a dispatcher."""

    __slots__ = ("errors", "kinds", "update_outer")

    def __init__(self, kinds: tuple[Kind, ...], errors: Any, update_outer: tuple[Any, ...]):
        self.kinds = kinds
        self.errors = errors
        self.update_outer = update_outer


def build_table(root: Router) -> Table:
    kinds = tuple(
        Kind(kind, node) for kind in UPDATE_KINDS if (node := _node(root, kind, ())) is not None
    )
    return Table(kinds, _node(root, "errors", ()), tuple(root.update.outer_middlewares))


def _observer(router: Router, kind: str) -> Any:
    return router.errors if kind == "errors" else router.observers[kind]


def _call(inj: Injection) -> Any:
    return impl.Call(inj.fn, inj.is_async, inj.names, inj.takes_all)


def _node(router: Router, kind: str, inherited: tuple[Any, ...]) -> Any:
    observer = _observer(router, kind)
    inner = inherited + tuple(observer.middlewares)
    entries = [
        impl.Entry(
            h.callback.fn, h.callback.is_async, h.callback.names, h.callback.takes_all,
            tuple(_call(f) for f in h.filters), inner,
        )  # fmt: skip
        for h in observer.handlers
    ]
    children = tuple(
        node for sub in router.sub_routers if (node := _node(sub, kind, inner)) is not None
    )
    if not entries and not children:
        return None
    filters = tuple(_call(f) for f in observer.filters)
    outer = tuple(observer.outer_middlewares)
    if kind in _MESSAGE_KINDS:
        plain, index, prefixes = _index(observer.handlers, entries)
    else:
        plain, index, prefixes = tuple(entries), None, ""
    return impl.Node(filters, outer, plain, index, prefixes, children)


def _command_keys(spec: HandlerSpec) -> frozenset[str] | None:
    """The command keys a handler can match (None: any text), from its Command filters."""
    keys: frozenset[str] | None = None
    for inj in spec.filters:
        f = inj.fn
        if isinstance(f, Command) and not f.patterns:
            mine = frozenset((p + c).lower() for p in f.prefix for c in f.commands)
            keys = mine if keys is None else keys & mine
    return keys


def _index(
    specs: list[HandlerSpec], entries: list[Any]
) -> tuple[tuple[Any, ...], dict[str, tuple[Any, ...]] | None, str]:
    keyed = [_command_keys(spec) for spec in specs]
    if all(keys is None for keys in keyed):
        return tuple(entries), None, ""
    plain = tuple(e for e, keys in zip(entries, keyed) if keys is None)
    every = sorted(set().union(*(keys for keys in keyed if keys)))
    index = {
        key: tuple(e for e, keys in zip(entries, keyed) if keys is None or key in keys)
        for key in every
    }
    return plain, index, "".join(sorted({key[0] for key in every}))
