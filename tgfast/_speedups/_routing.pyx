# cython: language_level=3, boundscheck=False, wraparound=False
"""Compiled routing table: the same rules as ``_routing_py``, over typed nodes.

Nodes, entries and calls are extension types, so walking the tree and reading a
handler's plan are pointer reads; the command is cut from the text in C without
allocating when it is already lower case; sync filters are called inline, so routing
an update to its handler is two coroutines (``feed_update`` and the node's) besides the
handler's own. ``_routing_py`` is the reference for every behaviour.
"""

from cpython.contextvars cimport PyContextVar_Reset, PyContextVar_Set
from cpython.dict cimport PyDict_Copy, PyDict_GetItem
from cpython.object cimport PyObject

import logging
from functools import partial

from ..decoding import decode_update
from ..dispatcher.event import FAILED, UNHANDLED, ErrorEvent, SkipHandler
from ..filters.command import parse_command

__all__ = ["Call", "DispatchCore", "Entry", "Kind", "Node", "Table", "command_head"]

log = logging.getLogger("tgfast.dispatcher")

cdef dict _EMPTY = {}  # the data of a kind whose tree asks for none; never mutated


cdef extern from "Python.h":
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch)


cdef class Call:
    cdef readonly object fn
    cdef readonly bint is_async
    cdef readonly tuple names
    cdef readonly bint takes_all

    def __init__(self, fn, bint is_async, tuple names, bint takes_all):
        self.fn = fn
        self.is_async = is_async
        self.names = names
        self.takes_all = takes_all


cdef class Entry(Call):
    cdef readonly tuple filters
    cdef readonly tuple inner
    cdef readonly object command
    cdef readonly bint inject_command
    cdef readonly frozenset cmd_keys
    cdef str cmd_prefix
    cdef bint cmd_ignore_case
    cdef bint cmd_ignore_mention

    def __init__(
        self, fn, bint is_async, tuple names, bint takes_all, tuple filters, tuple inner,
        command=None, bint inject_command=False,
    ):
        Call.__init__(self, fn, is_async, names, takes_all)
        self.filters = filters
        self.inner = inner
        self.command = command
        self.inject_command = inject_command
        self.cmd_keys = frozenset()
        if command is not None:
            self.cmd_prefix = command.prefix
            self.cmd_ignore_case = command.ignore_case
            self.cmd_ignore_mention = command.ignore_mention
            self.cmd_keys = frozenset(
                (p + c).lower() if command.ignore_case else p + c
                for p in command.prefix
                for c in command.commands
            )


cdef class Node:
    cdef readonly tuple filters
    cdef readonly tuple outer
    cdef readonly tuple items
    cdef readonly dict index
    cdef readonly str prefixes

    def __init__(self, tuple filters, tuple outer, tuple items, dict index, str prefixes):
        self.filters = filters
        self.outer = outer
        self.items = items
        self.index = index
        self.prefixes = prefixes


cdef class Kind:
    cdef readonly str name
    cdef readonly Node node
    cdef readonly object user
    cdef readonly object chat
    cdef readonly bint bindable
    cdef readonly bint needs_data

    def __init__(self, str name, Node node, user, chat, bint bindable, bint needs_data):
        self.name = name
        self.node = node
        self.user = user
        self.chat = chat
        self.bindable = bindable
        self.needs_data = needs_data


cdef class Table:
    cdef readonly tuple kinds
    cdef readonly Node errors
    cdef readonly tuple update_outer
    cdef readonly dict workflow_data
    cdef readonly object current_bot

    def __init__(self, tuple kinds, Node errors, tuple update_outer, dict workflow_data, current_bot):
        self.kinds = kinds
        self.errors = errors
        self.update_outer = update_outer
        self.workflow_data = workflow_data
        self.current_bot = current_bot

    cpdef dict data(self, Kind kind, bot, update, event, dict kwargs):
        """What handlers, filters and middlewares can ask for by name."""
        cdef dict data = PyDict_Copy(self.workflow_data)
        data["bot"] = bot
        data["update"] = update
        data["event_from_user"] = None if kind.user is None else getattr(event, kind.user)
        data["event_chat"] = None if kind.chat is None else getattr(event, kind.chat)
        if kwargs:
            data.update(kwargs)
        return data


def command_head(str text):
    """``"/Start@bot args"`` -> ``("/Start", True)``: the command as written, and
    whether a ``@`` follows it."""
    cdef Py_ssize_t end = _head_end(text)
    return text[:end], end < len(text) and text[end] == u"@"


cdef inline Py_ssize_t _head_end(str text):
    cdef Py_ssize_t i, n = len(text)
    cdef Py_UCS4 ch
    for i in range(n):
        ch = text[i]
        if ch == u"@" or Py_UNICODE_ISSPACE(ch):
            return i
    return n


cdef inline object _invoke(Call call, event, dict data):
    cdef dict kwargs
    cdef PyObject* value
    if call.takes_all:
        return call.fn(event, **data)
    if call.names:
        kwargs = {}
        for name in call.names:
            value = PyDict_GetItem(data, name)
            if value is not NULL:
                kwargs[name] = <object>value
        return call.fn(event, **kwargs)
    return call.fn(event)


cdef inline dict _merged(dict data, dict extra):
    cdef dict merged = PyDict_Copy(data)
    merged.update(extra)
    return merged


async def _passes(tuple filters, event, dict data):
    """``data`` (with what the filters injected) when all pass, else None."""
    cdef Call f
    for f in filters:
        result = _invoke(f, event, data)
        if f.is_async:
            result = await result
        if type(result) is dict:  # passes, even when empty, and injects its values
            if result:
                data = _merged(data, <dict>result)
        elif not result:
            return None
    return data


async def _handle(Entry entry, Py_ssize_t index, event, dict data):
    if index == len(entry.inner):
        result = _invoke(entry, event, data)
        if entry.is_async:
            result = await result
        return result
    return await entry.inner[index](partial(_handle, entry, index + 1), event, data)


async def _command(Entry entry, str text, bot):
    """The ``CommandObject`` when ``entry.command`` passes a text with ``@``, else None."""
    parsed = parse_command(text, entry.cmd_prefix)
    if parsed is None:
        return None
    username = None
    if parsed.mention is not None and not entry.cmd_ignore_mention:
        username = (await bot.me()).username
    return entry.command.check(parsed, username)


async def _route(Node node, event, dict data, bot):
    cdef Call f
    cdef Entry entry
    cdef tuple items = node.items
    cdef str text = None
    cdef str head = None
    cdef str key = None
    cdef bint mention = False, failed
    cdef Py_ssize_t end, i
    cdef Py_UCS4 ch
    cdef dict passed
    if node.filters:
        passed = await _passes(node.filters, event, data)
        if passed is None:
            return UNHANDLED  # the router's own filters reject: its children too
        data = passed
    if node.index is not None:
        text = event.text or event.caption
        if text and text[0] in node.prefixes:
            end = _head_end(text)
            mention = end < len(text) and text[end] == u"@"
            head = text if end == len(text) else text[:end]
            key = head
            for i in range(end):
                ch = head[i]
                if ch > 127 or (u"A" <= ch <= u"Z"):
                    key = head.lower()
                    break
            found = PyDict_GetItem(node.index, key)
            if found is not NULL:
                items = <tuple>found
    for item in items:
        if type(item) is Node:
            result = await _propagate(<Node>item, event, data, bot)
            if result is not UNHANDLED:
                return result
            continue
        entry = <Entry>item
        passed = data
        if entry.command is not None:  # reached through the index: text, head and key are set
            if mention:
                parsed = await _command(entry, text, bot)
                if parsed is None:
                    continue
            elif text[0] not in entry.cmd_prefix or (
                key if entry.cmd_ignore_case else head
            ) not in entry.cmd_keys:
                continue
            elif entry.inject_command:
                parsed = parse_command(text, entry.cmd_prefix)
            if entry.inject_command:
                passed = PyDict_Copy(data)
                passed["command"] = parsed
        if entry.filters:
            failed = False
            for f in entry.filters:
                result = _invoke(f, event, passed)
                if f.is_async:
                    result = await result
                if type(result) is dict:
                    if result:
                        passed = _merged(passed, <dict>result)
                elif not result:
                    failed = True
                    break
            if failed:
                continue
        try:
            if entry.inner:
                return await _handle(entry, 0, event, passed)
            result = _invoke(entry, event, passed)
            if entry.is_async:
                result = await result
            return result
        except SkipHandler:
            continue
    return UNHANDLED


async def _outer(Node node, Py_ssize_t index, bot, event, dict data):
    if index == len(node.outer):
        return await _route(node, event, data, bot)
    return await node.outer[index](partial(_outer, node, index + 1, bot), event, data)


async def _propagate(Node node, event, dict data, bot):
    if node.outer:
        return await _outer(node, 0, bot, event, data)
    return await _route(node, event, data, bot)


async def _update_outer(Table table, Kind kind, Py_ssize_t index, bot, update, dict data):
    if index == len(table.update_outer):
        return await _propagate(kind.node, getattr(update, kind.name), data, bot)
    middleware = table.update_outer[index]
    return await middleware(partial(_update_outer, table, kind, index + 1, bot), update, data)


async def _on_error(Table table, update, exc, dict data, bot):
    if table.errors is not None:
        try:
            result = await _propagate(
                table.errors, ErrorEvent(update, exc), {**data, "exception": exc}, bot
            )
        except Exception as again:
            log.error(
                "update %s: an errors handler raised %r while handling %r",
                update.update_id, again, exc, exc_info=again,
            )
            return FAILED
        if result is not UNHANDLED:
            return result
    log.error(
        "update %s: unhandled %s: %s", update.update_id, type(exc).__name__, exc, exc_info=exc
    )
    return FAILED


cdef class DispatchCore:
    """The dispatcher's hot path, a base class of ``Dispatcher`` (which builds the table
    in ``freeze()``), so that ``await dp.feed_update(...)`` enters it directly."""

    cdef public object _table

    async def feed_update(self, bot, update, **kwargs):
        """Handle one update: the first matching handler's result, ``UNHANDLED`` when no
        handler matched, ``FAILED`` when one raised and no ``errors`` handler took it."""
        cdef Table table = self._table
        cdef Kind kind = None
        cdef dict data
        if table is None:
            table = self.freeze()
        for k in table.kinds:
            event = getattr(update, (<Kind>k).name)
            if event is not None:
                kind = <Kind>k
                break
        if kind is None:
            return UNHANDLED
        if kind.bindable:
            event._bot = bot
        data = table.data(kind, bot, update, event, kwargs) if kind.needs_data else _EMPTY
        token = PyContextVar_Set(table.current_bot, bot)
        try:
            if table.update_outer:
                return await _update_outer(table, kind, 0, bot, update, data)
            return await _propagate(kind.node, event, data, bot)
        except Exception as exc:
            if data is _EMPTY:
                data = table.data(kind, bot, update, event, kwargs)
            return await _on_error(table, update, exc, data, bot)
        finally:
            PyContextVar_Reset(table.current_bot, token)

    async def feed_raw_update(self, bot, data, **kwargs):
        """Decode a webhook body or one ``getUpdates`` item and handle it.

        A body that does not decode raises ``tgfast.DecodeError`` (nothing was handled).
        """
        return await self.feed_update(bot, decode_update(data), **kwargs)
