"""Freezing a router tree into the routing table, once, when the dispatcher starts.

For each update kind that has handlers, the tree becomes a tree of ``Node``s holding
only what routing needs (see ``tgfast._speedups._routing_py``): the call plan of every
filter and handler, the inner middlewares each handler inherits, the handlers of
routers with no filters or outer middlewares of their own spliced into their parent,
and for message kinds an index of handlers by command, so that the command of an
update is looked up, not tried filter by filter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

from ..filters.command import Command
from ..types import _types
from ..types.binding import current_bot
from ..types.update_kinds import CHAT_READERS, EVENT_TYPES, UPDATE_KINDS, USER_READERS
from .injection import Injection
from .middleware import Middleware
from .routing import RoutingModule, impl

if TYPE_CHECKING:
    # the twin's classes stand for both runtimes: the compiled stub mirrors them
    from .._speedups._routing_py import Call, Entry, Node, Table
    from .observer import HandlerObject, Observer
    from .router import Router

__all__ = ["build_table"]

_MESSAGE_KINDS = frozenset(k for k, tp in EVENT_TYPES.items() if tp == "Message")

Item: TypeAlias = "Entry | Node"
Keys: TypeAlias = "frozenset[str] | None"  # the command keys an item can match; None: any text


def build_table(
    root: Router,
    workflow_data: dict[str, Any],
    fsm: Middleware | None = None,
    routing: RoutingModule = impl,
) -> Table:
    """The routing table of the tree under ``root`` (a Dispatcher), made of ``routing``'s
    classes (the runtime that will walk it); ``fsm``, the FSM middleware, runs first when
    anything could read what it provides."""
    update_outer: tuple[Middleware, ...] = (
        *root.update.outer_middlewares,
        *root.update.middlewares,
    )
    if fsm is not None and (_wants_fsm(root) or getattr(fsm, "isolation", None) is not None):
        update_outer = (fsm, *update_outer)
    kinds = []
    for kind in UPDATE_KINDS:
        node = _node(routing, root, kind, ())
        if node is not None:
            cls = getattr(_types, EVENT_TYPES[kind])
            kinds.append(
                routing.Kind(
                    kind,
                    node,
                    USER_READERS[kind],  # event_from_user
                    CHAT_READERS[kind],  # event_chat
                    cls,
                    bool(update_outer) or _needs_data(routing, node),
                )
            )
    errors = _node(routing, root, "errors", ())
    updates = _updates_node(routing, root)
    return routing.Table(
        tuple(kinds), errors, update_outer, workflow_data, current_bot, root, updates
    )


def _updates_node(routing: RoutingModule, root: Router) -> Node | None:
    """The ``@router.update()`` handlers of the tree, for updates of no kind the table
    routes; around them the dispatcher's update middlewares (the FSM's excepted: such an
    update has no chat or user to key a record on)."""
    observer = root.update
    items = [item for item, _keys in _items(routing, root, "update", tuple(observer.middlewares))]
    if not items:
        return None
    filters = tuple(_call(routing, f) for f in observer.filters)
    outer = tuple(observer.outer_middlewares)
    return routing.Node(
        filters, outer, tuple(items), None, "", None, root, _node_wants_router(observer)
    )


_FSM_NAMES = frozenset({"state", "raw_state", "fsm_storage"})


def _wants_fsm(root: Router) -> bool:
    """Whether anything in the tree could read the FSM's data: a filter or handler that
    asks for it (state filters ask for ``raw_state``), takes ``**kwargs``, or any
    middleware (which sees all data)."""
    for router in root.chain_tail:
        for observer in (*router.observers.values(), router.errors, router.update):
            if observer.outer_middlewares or observer.middlewares:
                return True
            calls = [*observer.filters]
            for spec in observer.handlers:
                calls += [spec.injection, *spec.filter_injections]
            if any(c.takes_all or _FSM_NAMES.intersection(c.names) for c in calls):
                return True
    return False


def _needs_data(routing: RoutingModule, node: Node) -> bool:
    """Whether anything under ``node`` reads the data dict: a middleware, or a filter or
    handler declaring a name (``command`` aside when the table injects it itself)."""
    if node.outer or any(_reads(call) for call in node.filters):
        return True
    for item in node.items + tuple(i for items in (node.index or {}).values() for i in items):
        if isinstance(item, routing.Node):
            if _needs_data(routing, item):
                return True
        elif item.inner or _reads(item) or any(_reads(f) for f in item.filters):
            return True
    return False


def _reads(call: Call) -> bool:
    return bool(call.takes_all or set(call.names) - {"command"})


def _asks_router(inj: Injection) -> bool:
    """Whether ``inj`` reads ``event_router`` (by name, or taking all the data)."""
    return inj.takes_all or "event_router" in inj.names


def _node_wants_router(observer: Observer[Any]) -> bool:
    """Whether a router's node puts ``event_router`` in the data on the way in: its
    outer middlewares see all data, its filters may ask."""
    return bool(observer.outer_middlewares) or any(_asks_router(f) for f in observer.filters)


def _observer(router: Router, kind: str) -> Observer[Any]:
    if kind == "errors":
        return router.errors
    return router.update if kind == "update" else router.observers[kind]


def _call(routing: RoutingModule, inj: Injection) -> Call:
    return routing.Call(inj.fn, inj.is_async, inj.names, inj.takes_all)


def _node(
    routing: RoutingModule, router: Router, kind: str, inherited: tuple[Middleware, ...]
) -> Node | None:
    observer = _observer(router, kind)
    items = _items(routing, router, kind, inherited + tuple(observer.middlewares))
    if not items:
        return None
    filters = tuple(_call(routing, f) for f in observer.filters)
    outer = tuple(observer.outer_middlewares)
    wants = _node_wants_router(observer)
    if kind not in _MESSAGE_KINDS or all(keys is None for _item, keys in items):
        plain_items = tuple(item for item, _keys in items)
        return routing.Node(filters, outer, plain_items, None, "", None, router, wants)
    message = getattr(_types, EVENT_TYPES[kind])
    all_keys: set[str] = set().union(*(keys for _item, keys in items if keys))
    index = {
        key: tuple(item for item, keys in items if keys is None or key in keys)
        for key in sorted(all_keys)
    }
    plain = tuple(item for item, keys in items if keys is None)
    prefixes = "".join(sorted({key[0] for key in index}))
    return routing.Node(filters, outer, plain, index, prefixes, message, router, wants)


def _items(
    routing: RoutingModule, router: Router, kind: str, inner: tuple[Middleware, ...]
) -> list[tuple[Item, Keys]]:
    """The router's handlers then its children's, in declared order."""
    items = [
        _entry(routing, router, spec, kind, inner) for spec in _observer(router, kind).handlers
    ]
    for sub in router.sub_routers:
        observer = _observer(sub, kind)
        if observer.filters or observer.outer_middlewares:
            node = _node(routing, sub, kind, inner)
            if node is not None:
                items.append((node, None))
        else:  # nothing of its own to run: its handlers are spliced in place
            items.extend(_items(routing, sub, kind, inner + tuple(observer.middlewares)))
    return items


def _entry(
    routing: RoutingModule,
    router: Router,
    spec: HandlerObject,
    kind: str,
    inner: tuple[Middleware, ...],
) -> tuple[Item, Keys]:
    cb = spec.injection
    filters = spec.filter_injections
    handler = spec if inner else None  # data["handler"], only inner middlewares see it
    wants = any(_asks_router(inj) for inj in (cb, *filters))
    if kind not in _MESSAGE_KINDS:
        entry = routing.Entry(
            cb.fn,
            cb.is_async,
            cb.names,
            cb.takes_all,
            _calls(routing, filters),
            inner,
            handler=handler,
            router=router,
            wants_router=wants,
        )
        return entry, None
    keys = _command_keys(filters)
    command = None
    if filters and type(filters[0].fn) is Command and _plain(filters[0].fn):
        command = filters[0].fn
        filters = filters[1:]
        inject = bool(inner) or any(
            inj.takes_all or "command" in inj.names for inj in (cb, *filters)
        )
    else:
        inject = False
    calls = _calls(routing, filters)
    entry = routing.Entry(
        cb.fn, cb.is_async, cb.names, cb.takes_all, calls, inner, command, inject, handler,
        router, wants,
    )  # fmt: skip
    return entry, keys


def _calls(routing: RoutingModule, filters: tuple[Injection, ...]) -> tuple[Call, ...]:
    return tuple(_call(routing, f) for f in filters)


def _command_keys(filters: tuple[Injection, ...]) -> Keys:
    """The command keys a handler can match (None: any text), from its Command filters."""
    keys: Keys = None
    for inj in filters:
        f = inj.fn
        if isinstance(f, Command) and not f.patterns:  # a magic only narrows these keys
            mine = frozenset((p + c).lower() for p in f.prefix for c in f.names)
            keys = mine if keys is None else keys & mine
    return keys


def _plain(command: Command) -> bool:
    """Whether the table can check ``command`` by its name alone."""
    return not command.patterns and command.magic is None
