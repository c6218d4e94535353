"""The routing table at run time, pure Python (the twin of ``_routing.pyx``).

``tgfast.dispatcher.table`` freezes the router tree into one ``Node`` tree per update
kind. A node holds its router's own filters and outer middlewares and its ``items``,
in declared order: handlers (``Entry``) and the nodes of included routers that have
filters or outer middlewares of their own; the handlers of routers without either
are spliced in place, so an empty router costs nothing. Handlers with a plain
``Command`` filter are also filed by command in ``index``: a ``/cmd19`` is tried only
against the items that could match it, still in declared order, and that ``Command``
is checked here against the already-cut command instead of being called.

``DispatchCore.feed_update`` is the hot path from an update to its handler: it builds
the data dict only when something in the kind's tree asks for data by name.

``event_router`` (aiogram's: the router whose observer is running) is put in the data
only where something asks for it: a node whose outer middlewares or filters may read
it, an entry whose handler or filters do (``wants_router``), and the inner
middlewares around a handler (``_handle``, which writes ``handler`` there too).
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from functools import partial
from types import CoroutineType
from typing import TYPE_CHECKING, Any, final

from ..decoding import convert, decode_update
from ..dispatcher.event import UNHANDLED, ErrorEvent, SkipHandler
from ..filters.command import parse_command
from ..types import Update
from ..types.binding import _has_bot_slot

__all__ = ["Call", "DispatchCore", "Entry", "Kind", "Node", "Table", "command_head"]


_EMPTY: dict[str, Any] = {}  # the data of a kind whose tree asks for none; never mutated


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
    """A handler: how to call it, its filters, and the inner middlewares around it.

    ``command`` is its leading plain ``Command`` filter (not in ``filters``), checked
    by the table; ``cmd_keys`` are that filter's prefix+name spellings (lower-cased
    with ``ignore_case``); ``inject_command`` says whether anything downstream asks
    for the ``CommandObject``; ``handler`` is what inner middlewares get as
    ``data["handler"]`` (the registered ``HandlerObject``, with its flags); ``router``
    the router it was registered on, put in the data as ``event_router`` before its
    filters run when ``wants_router`` (they or the handler ask for it).
    """

    __slots__ = (
        "cmd_keys", "command", "filters", "handler", "inject_command", "inner", "router",
        "sync_filters", "wants_router",
    )  # fmt: skip

    def __init__(
        self,
        fn: Callable[..., Any],
        is_async: bool,
        names: tuple[str, ...],
        takes_all: bool,
        filters: tuple[Call, ...],
        inner: tuple[Any, ...],
        command: Any = None,
        inject_command: bool = False,
        handler: Any = None,
        router: Any = None,
        wants_router: bool = False,
    ) -> None:
        super().__init__(fn, is_async, names, takes_all)
        self.filters = filters
        self.inner = inner
        self.handler = handler
        self.router = router
        self.wants_router = wants_router
        self.command = command
        self.inject_command = inject_command
        self.sync_filters = not any(f.is_async for f in filters)  # the compiled fast path's
        self.cmd_keys: frozenset[str] = frozenset()
        if command is not None:
            self.cmd_keys = frozenset(
                (p + c).lower() if command.ignore_case else p + c
                for p in command.prefix
                for c in command.names
            )


@final  # so that ``type(item) is Node`` leaves an ``Entry`` to type checkers
class Node:
    """One router's part of the table for one update kind; ``router`` is put in the
    data as ``event_router`` on the way in when ``wants_router`` (its outer middlewares
    or filters may read it)."""

    __slots__ = (
        "event_type", "filters", "index", "items", "outer", "prefixes", "router", "wants_router"
    )  # fmt: skip

    def __init__(
        self,
        filters: tuple[Call, ...],
        outer: tuple[Any, ...],
        items: tuple[Entry | Node, ...],
        index: dict[str, tuple[Entry | Node, ...]] | None,
        prefixes: str,
        event_type: type | None = None,
        router: Any = None,
        wants_router: bool = False,
    ) -> None:
        self.router = router
        self.wants_router = wants_router
        self.filters = filters
        self.outer = outer
        self.items = items  # every item, or with an index those without a command
        self.index = index
        self.prefixes = prefixes
        self.event_type = event_type  # the class the compiled twin reads text slots of


class Kind:
    """One update kind in the table: its node tree and how to read its event."""

    __slots__ = ("bindable", "chat", "event_type", "name", "needs_data", "node", "user")

    def __init__(
        self,
        name: str,
        node: Node,
        user: Callable[[Any], Any] | None,
        chat: Callable[[Any], Any] | None,
        event_type: type,
        needs_data: bool,
    ) -> None:
        self.name = name
        self.node = node
        self.user = user  # reads the event's sender, if it has one
        self.chat = chat  # reads the event's chat, if it has one
        self.event_type = event_type
        self.bindable = _has_bot_slot(event_type)  # it has a _bot slot for its shortcuts
        self.needs_data = needs_data


class Table:
    """The frozen routing table of a dispatcher."""

    __slots__ = (
        "current_bot", "dispatcher", "errors", "kinds", "update_outer", "updates", "workflow_data"
    )  # fmt: skip

    def __init__(
        self,
        kinds: tuple[Kind, ...],
        errors: Node | None,
        update_outer: tuple[Any, ...],
        workflow_data: dict[str, Any],
        current_bot: ContextVar[Any],
        dispatcher: Any = None,
        updates: Node | None = None,
    ) -> None:
        self.updates = updates  # the @router.update() handlers, for updates of no kind here
        self.kinds = kinds
        self.errors = errors
        self.update_outer = update_outer
        self.workflow_data = workflow_data  # the dispatcher's own dict: later changes show
        self.current_bot = current_bot
        self.dispatcher = dispatcher  # data["dispatcher"], unless workflow data has one

    def data(
        self, kind: Kind, bot: Any, update: Any, event: Any, kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        """What handlers, filters and middlewares can ask for by name."""
        data = self.workflow_data.copy()
        data.setdefault("dispatcher", self.dispatcher)  # as aiogram: data may override
        data["bot"] = bot
        data["update"] = data["event_update"] = update  # aiogram's name, too
        data["event_from_user"] = None if kind.user is None else kind.user(event)
        data["event_chat"] = None if kind.chat is None else kind.chat(event)
        if kwargs:
            data.update(kwargs)
        return data


def command_head(text: str) -> tuple[str, bool]:
    """``"/Start@bot args"`` -> ``("/Start", True)``: the command as written, and
    whether a ``@`` follows it."""
    head = text.split(None, 1)[0]
    at = head.find("@")
    return (head, False) if at < 0 else (head[:at], True)


def _invoke(call: Call, event: Any, data: dict[str, Any]) -> Any:
    if call.takes_all:
        return call.fn(event, **data)
    if call.names:
        return call.fn(event, **{n: data[n] for n in call.names if n in data})
    return call.fn(event)


async def _passes(filters: tuple[Call, ...], event: Any, data: dict[str, Any]) -> Any:
    """``data`` (with what the filters injected) when all pass, else None."""
    for f in filters:
        result = _invoke(f, event, data)
        if f.is_async:
            result = await result
        if type(result) is dict:  # passes, even when empty, and injects its values
            if result:
                data = {**data, **result}
        elif not result:
            return None
    return data


async def _handle(entry: Entry, index: int, event: Any, data: dict[str, Any]) -> Any:
    if index == len(entry.inner):
        result = _invoke(entry, event, data)
        if entry.is_async:
            result = await result
        while type(result) is CoroutineType:  # returned, not awaited: never dropped
            result = await result
        return result
    if index == 0:  # the middlewares see which handler matched (and its flags)
        if data is _EMPTY:
            data = {}
        data["handler"] = entry.handler
        data["event_router"] = entry.router
    return await entry.inner[index](partial(_handle, entry, index + 1), event, data)


async def _command(entry: Entry, text: str, bot: Any) -> Any:
    """The ``CommandObject`` when ``entry.command`` passes a text with ``@``, else None."""
    command = entry.command
    parsed = parse_command(text, command.prefix)
    if parsed is None:
        return None
    username = None
    if parsed.mention is not None and not command.ignore_mention:
        username = (await bot.me()).username
    return command.check(parsed, username)


async def _route(node: Node, event: Any, data: dict[str, Any], bot: Any) -> Any:
    if node.filters:
        passed = await _passes(node.filters, event, data)
        if passed is None:
            return UNHANDLED  # the router's own filters reject: its children too
        data = passed
    items = node.items
    text = head = key = None
    mention = False
    if node.index is not None:
        text = event.text or event.caption
        if text and text[0] in node.prefixes:
            head, mention = command_head(text)
            key = head.lower()
            items = node.index.get(key, items)
    for item in items:
        if type(item) is Node:
            result = await _propagate(item, event, data, bot)
            if result is not UNHANDLED:
                return result
            continue
        passed = {**data, "event_router": item.router} if item.wants_router else data
        command = item.command
        if command is not None:  # reached through the index: text, head and key are set
            if mention:
                parsed = await _command(item, text, bot)  # type: ignore[arg-type]
                if parsed is None:
                    continue
            elif (
                text[0] not in command.prefix  # type: ignore[index]
                or (key if command.ignore_case else head) not in item.cmd_keys
            ):
                continue
            else:
                parsed = parse_command(text, command.prefix) if item.inject_command else None  # type: ignore[arg-type]
            if item.inject_command:
                passed = {**passed, "command": parsed}
        if item.filters:
            passed = await _passes(item.filters, event, passed)
            if passed is None:
                continue
        try:
            if item.inner:
                return await _handle(item, 0, event, passed)
            result = _invoke(item, event, passed)
            if item.is_async:
                result = await result
            while type(result) is CoroutineType:  # as in _handle
                result = await result
            return result
        except SkipHandler:
            continue
    return UNHANDLED


async def _outer(node: Node, index: int, bot: Any, event: Any, data: dict[str, Any]) -> Any:
    if index == len(node.outer):
        return await _route(node, event, data, bot)
    return await node.outer[index](partial(_outer, node, index + 1, bot), event, data)


async def _propagate(node: Node, event: Any, data: dict[str, Any], bot: Any) -> Any:
    """Route ``event`` through ``node``: the first handler that matches (in declared
    order, a router's handlers before its children's) handles it. Returns the
    handler's result, or ``UNHANDLED``."""
    if node.wants_router:
        data = {**data, "event_router": node.router}
    if node.outer:
        return await _outer(node, 0, bot, event, data)
    return await _route(node, event, data, bot)


async def _update_outer(
    table: Table, kind: Kind, index: int, bot: Any, update: Any, data: dict[str, Any]
) -> Any:
    if index == len(table.update_outer):
        return await _propagate(kind.node, getattr(update, kind.name), data, bot)
    middleware = table.update_outer[index]
    return await middleware(partial(_update_outer, table, kind, index + 1, bot), update, data)


async def _unrouted(table: Table, update: Any, bot: Any, kwargs: dict[str, Any]) -> Any:
    """An update of no kind the table routes (newer than tgfast's Bot API, say), offered to
    the ``@router.update()`` handlers with the ``Update`` as their event."""
    assert table.updates is not None
    data = table.workflow_data.copy()
    data.setdefault("dispatcher", table.dispatcher)
    data["bot"] = bot
    data["update"] = data["event_update"] = update
    data["event_from_user"] = data["event_chat"] = None
    if kwargs:
        data.update(kwargs)
    try:
        return await _propagate(table.updates, update, data, bot)
    except Exception as exc:  # noqa: BLE001 - offered to error handlers, else raised
        return await _on_error(table, update, exc, data, bot)


async def _on_error(
    table: Table, update: Any, exc: Exception, data: dict[str, Any], bot: Any
) -> Any:
    """Offer ``exc`` to the ``errors`` handlers; what one returns is the update's result.
    Unhandled, ``exc`` propagates (as in aiogram), as does an errors handler's own."""
    if table.errors is not None:
        result = await _propagate(
            table.errors, ErrorEvent(update, exc), {**data, "exception": exc}, bot
        )
        if result is not UNHANDLED:
            return result
    raise exc


class DispatchCore:
    """The dispatcher's hot path, a base class of ``Dispatcher`` (which builds the table
    in ``freeze()``), so that ``await dp.feed_update(...)`` enters it directly."""

    __slots__ = ()
    _table: Table | None

    if TYPE_CHECKING:  # Dispatcher's; a stub here would shadow it where this core is
        # put in front of a Dispatcher class (``Dispatcher(routing=...)``)

        def freeze(self) -> Table: ...

    async def feed_update(self, bot: Any, update: Any, **kwargs: Any) -> Any:
        """Handle one update: the first matching handler's result, ``UNHANDLED`` when no
        handler matched. What a handler raises goes to the ``errors`` handlers; when none
        takes it, it propagates, as in aiogram (the webhook server and the poller catch
        and log it, and go on)."""
        table = self._table or self.freeze()
        for kind in table.kinds:
            event = getattr(update, kind.name)
            if event is not None:
                break
        else:
            return (
                UNHANDLED if table.updates is None else await _unrouted(table, update, bot, kwargs)
            )
        if kind.bindable:
            event._bot = bot
        data = table.data(kind, bot, update, event, kwargs) if kind.needs_data else _EMPTY
        # a serving task sets current_bot once: then there is nothing to set nor restore
        token = None if table.current_bot.get() is bot else table.current_bot.set(bot)
        try:
            if table.update_outer:
                return await _update_outer(table, kind, 0, bot, update, data)
            return await _propagate(kind.node, event, data, bot)
        except Exception as exc:  # noqa: BLE001 - offered to error handlers, else logged
            if data is _EMPTY:
                data = table.data(kind, bot, update, event, kwargs)
            return await _on_error(table, update, exc, data, bot)
        finally:
            if token is not None:
                table.current_bot.reset(token)

    async def feed_raw_update(
        self, bot: Any, update: bytes | str | dict[str, Any], **kwargs: Any
    ) -> Any:
        """Decode a webhook body or one ``getUpdates`` item (bytes, str, or the parsed
        dict, as aiogram takes it, ``update=`` by keyword too) and handle it.

        A body that does not decode raises ``tgfast.DecodeError`` (nothing was handled).
        """
        event = convert(Update, update) if isinstance(update, dict) else decode_update(update)
        return await self.feed_update(bot, event, **kwargs)
