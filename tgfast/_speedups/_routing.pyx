# cython: language_level=3, boundscheck=False, wraparound=False, auto_pickle=False
"""Compiled routing table: the same rules as ``_routing_py``, over typed nodes.

Nodes, entries and calls are extension types, so walking the tree and reading a
handler's plan are pointer reads; the command is cut from the text in C without
allocating when it is already lower case; sync filters are called inline, so routing
an update to its handler is two coroutines (``feed_update`` and the node's) besides the
handler's own. ``_routing_py`` is the reference for every behaviour.
"""

from cpython.contextvars cimport PyContextVar_Reset, PyContextVar_Set, get_value
from cpython.dict cimport PyDict_Copy, PyDict_GetItem
from cpython.object cimport PyObject

cimport cython

from functools import partial
from types import CoroutineType

from ..decoding import convert, decode_update
from ..types import Update
from ..types.binding import _has_bot_slot
from ._decode import _slot_offset
from ..dispatcher.event import UNHANDLED, ErrorEvent, SkipHandler
from ..filters.command import parse_command

__all__ = ["Call", "DispatchCore", "Entry", "Kind", "Node", "Table", "command_head"]


cdef object _CoroutineType = CoroutineType  # a C global: the check is a pointer compare
cdef dict _EMPTY = {}  # the data of a kind whose tree asks for none; never mutated


cdef extern from "Python.h":
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch)
    int PyUnicode_KIND(object text)
    void* PyUnicode_DATA(object text)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index)
    void Py_XDECREF(PyObject*)
    void Py_INCREF(object)


# Generated classes keep their fields in slots; for an object of exactly the class the
# table was built for, a field is read at its offset, skipping the attribute protocol.

cdef Py_ssize_t _offset(cls, str name):
    """The slot offset of ``cls.name``, or -1 (then the attribute is read the slow way)."""
    try:
        return _slot_offset(cls, name)
    except TypeError:
        return -1


cdef inline object _read(obj, Py_ssize_t offset):
    cdef PyObject* value = (<PyObject**>((<char*><PyObject*>obj) + offset))[0]
    return None if value is NULL else <object>value


cdef inline void _write(obj, Py_ssize_t offset, value):
    cdef PyObject** slot = <PyObject**>((<char*><PyObject*>obj) + offset)
    Py_INCREF(value)
    Py_XDECREF(slot[0])
    slot[0] = <PyObject*>value


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
    cdef readonly bint sync_filters
    cdef readonly object handler
    cdef readonly object router
    cdef readonly bint wants_router
    cdef str cmd_prefix
    cdef bint cmd_ignore_case
    cdef bint cmd_ignore_mention

    def __init__(
        self, fn, bint is_async, tuple names, bint takes_all, tuple filters, tuple inner,
        command=None, bint inject_command=False, handler=None, router=None,
        bint wants_router=False,
    ):
        Call.__init__(self, fn, is_async, names, takes_all)
        self.filters = filters
        self.inner = inner
        self.handler = handler
        self.router = router
        self.wants_router = wants_router
        self.command = command
        self.inject_command = inject_command
        self.sync_filters = not any((<Call>f).is_async for f in filters)
        self.cmd_keys = frozenset()
        if command is not None:
            self.cmd_prefix = command.prefix
            self.cmd_ignore_case = command.ignore_case
            self.cmd_ignore_mention = command.ignore_mention
            self.cmd_keys = frozenset(
                (p + c).lower() if command.ignore_case else p + c
                for p in command.prefix
                for c in command.names
            )


cdef class Node:
    cdef readonly tuple filters
    cdef readonly tuple outer
    cdef readonly tuple items
    cdef readonly dict index
    cdef readonly str prefixes
    cdef readonly object event_type
    cdef readonly object router
    cdef readonly bint wants_router
    cdef Py_ssize_t text_at, caption_at

    def __init__(
        self, tuple filters, tuple outer, tuple items, dict index, str prefixes, event_type=None,
        router=None, bint wants_router=False,
    ):
        self.router = router
        self.wants_router = wants_router
        self.filters = filters
        self.outer = outer
        self.items = items
        self.index = index
        self.prefixes = prefixes
        self.event_type = event_type
        self.text_at = self.caption_at = -1
        if event_type is not None:
            self.text_at = _offset(event_type, "text")
            self.caption_at = _offset(event_type, "caption")
            if self.text_at < 0 or self.caption_at < 0:
                self.event_type = None


cdef class Kind:
    cdef readonly str name
    cdef readonly Node node
    cdef readonly object user
    cdef readonly object chat
    cdef readonly object event_type
    cdef readonly bint bindable
    cdef readonly bint needs_data
    cdef Py_ssize_t update_at, bot_at

    def __init__(self, str name, Node node, user, chat, event_type, bint needs_data):
        self.name = name
        self.node = node
        self.user = user
        self.chat = chat
        self.event_type = event_type
        self.bindable = _has_bot_slot(event_type)
        self.needs_data = needs_data
        self.update_at = _offset(Update, name)
        self.bot_at = _offset(event_type, "_bot") if self.bindable else -1


cdef class Table:
    cdef readonly tuple kinds
    cdef readonly Node errors
    cdef readonly tuple update_outer
    cdef readonly dict workflow_data
    cdef readonly object current_bot
    cdef readonly object dispatcher
    cdef readonly Node updates

    def __init__(
        self, tuple kinds, Node errors, tuple update_outer, dict workflow_data, current_bot,
        dispatcher=None, Node updates=None,
    ):
        self.updates = updates
        self.kinds = kinds
        self.errors = errors
        self.update_outer = update_outer
        self.workflow_data = workflow_data
        self.current_bot = current_bot
        self.dispatcher = dispatcher

    cpdef dict data(self, Kind kind, bot, update, event, dict kwargs):
        """What handlers, filters and middlewares can ask for by name."""
        cdef dict data = PyDict_Copy(self.workflow_data)
        data.setdefault("dispatcher", self.dispatcher)  # as aiogram: data may override
        data["bot"] = bot
        data["update"] = update
        data["event_update"] = update  # aiogram's name, too
        data["event_from_user"] = None if kind.user is None else kind.user(event)
        data["event_chat"] = None if kind.chat is None else kind.chat(event)
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
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_UCS4 ch
    for i in range(n):
        ch = PyUnicode_READ(kind, data, i)
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


cdef inline dict _routed(dict data, router):
    """``data`` with ``event_router``, for what asks for it (a copy: the router differs
    from one level of the tree to the next)."""
    cdef dict routed = PyDict_Copy(data)
    routed["event_router"] = router
    return routed


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


cdef object _sync_passes(tuple filters, event, dict data):
    """``_passes`` for filters known to be sync: called inline, no coroutine."""
    cdef Call f
    for f in filters:
        result = _invoke(f, event, data)
        if type(result) is dict:
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
        while type(result) is _CoroutineType:  # returned, not awaited: never dropped
            result = await result
        return result
    if index == 0:  # the middlewares see which handler matched (and its flags)
        if data is _EMPTY:
            data = {}
        data["handler"] = entry.handler
        data["event_router"] = entry.router
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


@cython.freelist(8)
cdef class _Cut:
    """The command an update's text starts with, cut once per node."""
    cdef str text  # the whole text (or caption)
    cdef str head  # the command as written: prefix and name, without @mention
    cdef str key  # head lower-cased: what the index is keyed by
    cdef bint mention  # a @ follows the name


cdef _Cut _cut(Node node, event):
    """None unless ``node`` has a command index and the text starts with a prefix."""
    cdef _Cut cut = _Cut.__new__(_Cut)
    return cut if _fill(cut, node, event) else None


cdef bint _fill(_Cut cut, Node node, event) except -1:
    """Cut the command of ``event`` into ``cut``; False when there is none to look up."""
    cdef Py_ssize_t end, i
    cdef Py_UCS4 ch
    cdef int kind
    cdef void* data
    if node.index is None:
        return False
    if type(event) is node.event_type:
        text = _read(event, node.text_at) or _read(event, node.caption_at)
    else:
        text = event.text or event.caption
    if not text or (<str>text)[0] not in node.prefixes:
        return False
    cut.text = text
    end = _head_end(text)
    kind = PyUnicode_KIND(text)
    data = PyUnicode_DATA(text)
    cut.mention = end < len(text) and PyUnicode_READ(kind, data, end) == u"@"
    cut.head = cut.text if end == len(text) else cut.text[:end]
    cut.key = cut.head
    for i in range(end):
        ch = PyUnicode_READ(kind, data, i)
        if ch > 127 or (u"A" <= ch <= u"Z"):  # lower() only when it changes something
            cut.key = cut.head.lower()
            break
    return True


cdef inline tuple _items(Node node, _Cut cut):
    cdef PyObject* found
    if cut is None:
        return node.items
    found = PyDict_GetItem(node.index, cut.key)
    return node.items if found is NULL else <tuple>found


cdef inline bint _plain_command(Entry entry, _Cut cut):
    """Whether the table can check ``entry.command`` itself (no bot username needed)."""
    return not cut.mention or entry.cmd_ignore_mention


cdef object _command_passes(Entry entry, _Cut cut, dict data):
    """``data`` (with ``command`` when asked for) when the plain check passes, else None."""
    cdef dict passed
    if cut.text[0] not in entry.cmd_prefix or (
        cut.key if entry.cmd_ignore_case else cut.head
    ) not in entry.cmd_keys:
        return None
    if not entry.inject_command:
        return data
    passed = PyDict_Copy(data)
    passed["command"] = parse_command(cut.text, entry.cmd_prefix)
    return passed


async def _route(Node node, event, dict data, bot, bint outer_done=False, Py_ssize_t start=-1):
    """Route ``event`` through ``node``; ``start`` >= 0 resumes at that item, the node's
    outer middlewares and filters already passed."""
    cdef Call f
    cdef Entry entry
    cdef _Cut cut
    cdef tuple items
    cdef Py_ssize_t pos
    if not outer_done:
        if node.wants_router:
            data = _routed(data, node.router)
        if node.outer:
            return await _outer(node, 0, bot, event, data)
    if start < 0:
        start = 0
        if node.filters:
            passed = await _passes(node.filters, event, data)
            if passed is None:
                return UNHANDLED  # the router's own filters reject: its children too
            data = passed
    cut = _cut(node, event)
    items = _items(node, cut)
    for pos in range(start, len(items)):
        item = items[pos]
        if type(item) is Node:
            result = await _route(<Node>item, event, data, bot)
            if result is not UNHANDLED:
                return result
            continue
        entry = <Entry>item
        passed = _routed(data, entry.router) if entry.wants_router else data
        if entry.command is not None:  # reached through the index: cut is set
            if _plain_command(entry, cut):
                passed = _command_passes(entry, cut, passed)
                if passed is None:
                    continue
            else:
                parsed = await _command(entry, cut.text, bot)
                if parsed is None:
                    continue
                if entry.inject_command:
                    passed = _merged(passed, {"command": parsed})
        if entry.filters:
            passed = await _passes(entry.filters, event, passed)
            if passed is None:
                continue
        try:
            return await _handle(entry, 0, event, passed)
        except SkipHandler:
            continue
    return UNHANDLED


async def _outer(Node node, Py_ssize_t index, bot, event, dict data):
    if index == len(node.outer):
        return await _route(node, event, data, bot, True)
    return await node.outer[index](partial(_outer, node, index + 1, bot), event, data)


async def _update_outer(Table table, Kind kind, Py_ssize_t index, bot, update, dict data):
    if index == len(table.update_outer):
        return await _route(kind.node, getattr(update, kind.name), data, bot)
    middleware = table.update_outer[index]
    return await middleware(partial(_update_outer, table, kind, index + 1, bot), update, data)


async def _unrouted(Table table, update, bot, dict kwargs):
    """An update of no kind the table routes (newer than tgfast's Bot API, say), offered to
    the ``@router.update()`` handlers with the ``Update`` as their event."""
    cdef dict data = PyDict_Copy(table.workflow_data)
    data.setdefault("dispatcher", table.dispatcher)
    data["bot"] = bot
    data["update"] = data["event_update"] = update
    data["event_from_user"] = data["event_chat"] = None
    if kwargs:
        data.update(kwargs)
    try:
        return await _route(table.updates, update, data, bot)
    except Exception as exc:
        return await _on_error(table, update, exc, data, bot)


async def _on_error(Table table, update, exc, dict data, bot):
    """Offer ``exc`` to the ``errors`` handlers; what one returns is the update's result.
    Unhandled, ``exc`` propagates (as in aiogram), as does an errors handler's own."""
    if table.errors is not None:
        result = await _route(
            table.errors, ErrorEvent(update, exc), {**data, "exception": exc}, bot
        )
        if result is not UNHANDLED:
            return result
    raise exc


cdef extern from *:
    """
    /* _Feed returns its value through the am_send slot (PEP 590's PySendResult), so
       finishing an update raises no StopIteration; the slot calls the Cython function
       installed below. Without it an await goes through tp_iternext and send(), and
       dispatch_20 costs 31% more instructions and ~2x the time (benchmarks/README.md,
       "What the CPython-internals tricks buy"). */
    typedef PyObject* (*tgfast_send_t)(PyObject*, PyObject*, int*);
    static tgfast_send_t tgfast_feed_send = NULL;

    static PySendResult tgfast_feed_am_send(PyObject* self, PyObject* arg, PyObject** result) {
        int finished = 0;
        PyObject* value = tgfast_feed_send(self, arg, &finished);
        *result = value;
        if (value == NULL) return PYGEN_ERROR;
        return finished ? PYGEN_RETURN : PYGEN_NEXT;
    }

    static int tgfast_install_am_send(PyObject* type, void* send) {
        PyTypeObject* tp = (PyTypeObject*)type;
        if (tp->tp_as_async == NULL) {
            PyErr_SetString(PyExc_SystemError, "tgfast: _Feed has no tp_as_async");
            return -1;
        }
        tgfast_feed_send = (tgfast_send_t)send;
        tp->tp_as_async->am_send = tgfast_feed_am_send;
    #ifdef Py_TPFLAGS_HAVE_AM_SEND
        tp->tp_flags |= Py_TPFLAGS_HAVE_AM_SEND;
    #endif
        PyType_Modified(tp);
        return 0;
    }
    """
    int _install_am_send "tgfast_install_am_send"(object type, void* send) except -1
    int PyIter_Send(object iterator, object value, PyObject** result) except -1


cdef inline object _steal(PyObject* ref):
    value = <object>ref
    Py_XDECREF(ref)
    return value


cdef enum _State:
    _NEW, _HANDLER, _ROUTE, _ERROR, _DONE


cdef class _Feed(_Cut):
    """``feed_update``'s coroutine, written by hand: when the update's handler is found
    without awaiting anything (the usual case), this object drives the handler's own
    coroutine directly, so no coroutine of ours runs in between. Anything else
    (middlewares, async filters, a mention to check, ``SkipHandler``, an error) goes on
    in the ``async def`` functions above. Behaves as an ``async def`` would: nothing
    happens until it is first awaited, and ``current_bot`` is this bot while it runs. It is
    a ``_Cut`` so that cutting the command costs no object of its own.
    """

    cdef DispatchCore core
    cdef object bot, update, raw, event, coro, token
    cdef dict kwargs, data, base, passed
    cdef Table table
    cdef Kind kind
    cdef Py_ssize_t pos
    cdef _State state

    def __await__(self):
        return self

    def __iter__(self):
        return self

    def __next__(self):
        return self.send(None)

    def send(self, value):
        """For callers that drive coroutines by hand (asyncio's Task does)."""
        result = self._send(value)
        if self.state == _DONE:
            raise StopIteration(result)
        return result

    def throw(self, typ, val=None, tb=None):
        if self.state == _NEW or self.state == _DONE:
            self.state = _DONE
            raise typ if val is None else val
        try:
            return self.coro.throw(typ, val, tb) if tb is not None else self.coro.throw(
                typ if val is None else val
            )
        except StopIteration as stop:
            result = self._returned(stop.value)
            if self.state == _DONE:
                raise StopIteration(result)
            return result
        except BaseException as exc:
            if not self._recover(exc):
                self._done()
                raise
        result = self._step(None)
        if self.state == _DONE:
            raise StopIteration(result)
        return result

    def close(self):
        if self.state != _NEW and self.state != _DONE:
            try:
                self.coro.close()
            finally:
                try:
                    self._done()
                except (ValueError, RuntimeError):  # closed from another context (GC)
                    pass
        self.state = _DONE

    cdef object _send(self, value):
        if self.state == _NEW:
            if value is not None:
                raise TypeError("can't send non-None value to a just-started coroutine")
            return self._start()
        if self.state == _DONE:
            raise RuntimeError("cannot reuse already awaited coroutine")
        return self._step(value)

    cdef object _start(self):
        cdef Table table = self.core._table
        cdef Kind kind = None
        cdef Entry entry
        if table is None:
            table = self.core.freeze()
        self.table = table
        update = self.update
        if self.raw is not None:
            raw = self.raw
            self.update = update = (
                convert(Update, raw) if isinstance(raw, dict) else decode_update(raw)
            )
        exact = type(update) is Update
        for k in table.kinds:
            if exact and (<Kind>k).update_at >= 0:
                event = _read(update, (<Kind>k).update_at)
            else:
                event = getattr(update, (<Kind>k).name)
            if event is not None:
                kind = <Kind>k
                break
        if kind is None:
            if table.updates is None:
                self.state = _DONE
                return UNHANDLED
            self.state = _ERROR  # driven to its end; what it raises propagates
            self.coro = _unrouted(table, update, self.bot, self.kwargs)
            return self._step(None)
        self.kind = kind
        self.event = event
        if kind.bindable:
            if kind.bot_at >= 0 and type(event) is kind.event_type:
                _write(event, kind.bot_at, self.bot)
            else:
                event._bot = self.bot
        self.data = table.data(kind, self.bot, update, event, self.kwargs) if kind.needs_data else _EMPTY
        if get_value(table.current_bot) is not self.bot:  # a serving task sets it once
            self.token = PyContextVar_Set(table.current_bot, self.bot)
        self.state = _ROUTE
        try:
            if table.update_outer:
                self.coro = _update_outer(table, kind, 0, self.bot, update, self.data)
            elif kind.node.outer or kind.node.wants_router:
                self.coro = _route(kind.node, event, self.data, self.bot)
            else:
                entry = self._match(kind.node)
                if entry is None:
                    if self.pos == -1:
                        return self._finish(UNHANDLED)
                    self.coro = _route(kind.node, event, self.base, self.bot, True, self.pos)
                else:
                    self.state = _HANDLER
                    if entry.inner:
                        self.coro = _handle(entry, 0, event, self.passed)
                    else:
                        result = _invoke(entry, event, self.passed)
                        if not entry.is_async:
                            return self._returned(result)
                        self.coro = result
        except BaseException as exc:
            if not self._recover(exc):
                self._done()
                raise
        return self._step(None)

    cdef Entry _match(self, Node node):
        """The synchronous part of ``_route``: the handler found without awaiting, its
        data in ``self.passed``; or None, with ``self.pos`` where ``_route`` must go on
        (from ``self.base``, the data after the node's filters; -2: from the start),
        or -1 when nothing matched.
        """
        cdef Call f
        cdef Entry entry
        cdef _Cut cut = None
        cdef tuple items
        cdef Py_ssize_t pos
        event = self.event
        data = self.data
        self.pos = 0
        for f in node.filters:
            if f.is_async:
                self.base = data
                self.pos = -2  # _route runs the node's filters itself
                return None
        data = _sync_passes(node.filters, event, data)
        if data is None:
            self.pos = -1
            return None
        self.base = data
        if _fill(self, node, event):  # the cut is kept in this object's own fields
            cut = self
        items = _items(node, cut)
        for pos in range(len(items)):
            item = items[pos]
            self.pos = pos
            if type(item) is Node:
                return None
            entry = <Entry>item
            if not entry.sync_filters or (
                entry.command is not None and not _plain_command(entry, cut)
            ):
                return None
            passed = _routed(data, entry.router) if entry.wants_router else data
            if entry.command is not None:
                passed = _command_passes(entry, cut, passed)
                if passed is None:
                    continue
            if entry.filters:
                passed = _sync_passes(entry.filters, event, passed)
                if passed is None:
                    continue
            self.passed = passed
            return entry
        self.pos = -1
        return None

    cdef object _step(self, value):
        cdef PyObject* result = NULL
        cdef int status
        while True:
            try:
                status = PyIter_Send(self.coro, value, &result)
            except BaseException as exc:
                if not self._recover(exc):
                    self._done()
                    raise
                value = None
                continue
            if status == 1:  # PYGEN_NEXT: the awaited coroutine suspended
                return _steal(result)
            return self._returned(_steal(result))

    cdef object _returned(self, value):
        """The running coroutine returned ``value``. A handler that returned a coroutine
        without awaiting it has that coroutine run in its place (never dropped): its
        errors and ``SkipHandler`` count as the handler's."""
        if self.state == _HANDLER and type(value) is _CoroutineType:
            self.coro = value
            return self._step(None)
        return self._finish(value)

    cdef bint _recover(self, exc) except -1:
        """Go on after ``exc``: with the next handler after ``SkipHandler``, with the
        ``errors`` handlers after an exception. False: ``exc`` propagates."""
        cdef Kind kind = self.kind
        if self.state == _HANDLER and isinstance(exc, SkipHandler):
            self.state = _ROUTE
            self.coro = _route(kind.node, self.event, self.base, self.bot, True, self.pos + 1)
            return True
        if (self.state == _HANDLER or self.state == _ROUTE) and isinstance(exc, Exception):
            self.state = _ERROR
            data = self.data if kind.needs_data else self.table.data(
                kind, self.bot, self.update, self.event, self.kwargs
            )
            self.coro = _on_error(self.table, self.update, exc, data, self.bot)
            return True
        return False

    cdef object _finish(self, result):
        """``result`` is what the await gives: ``state`` is now ``_DONE``."""
        self._done()
        return result

    cdef void _done(self) except *:
        self.state = _DONE
        self.coro = self.event = self.data = self.base = self.passed = None
        self.text = self.head = self.key = None
        if self.token is not None:
            token, self.token = self.token, None
            PyContextVar_Reset(self.table.current_bot, token)


cdef object _feed_send(_Feed feed, value, int* finished):
    result = feed._send(value)
    finished[0] = feed.state == _DONE
    return result


_install_am_send(_Feed, <void*>_feed_send)


cdef class DispatchCore:
    """The dispatcher's hot path, a base class of ``Dispatcher`` (which builds the table
    in ``freeze()``), so that ``await dp.feed_update(...)`` enters it directly."""

    cdef public object _table

    def feed_update(self, bot, update, **kwargs):
        """Handle one update: the first matching handler's result, ``UNHANDLED`` when no
        handler matched. What a handler raises goes to the ``errors`` handlers; when none
        takes it, it propagates, as in aiogram (the webhook server and the poller catch
        and log it, and go on)."""
        cdef _Feed feed = _Feed.__new__(_Feed)
        feed.core = self
        feed.bot = bot
        feed.update = update
        feed.kwargs = kwargs
        return feed

    def feed_raw_update(self, bot, update, **kwargs):
        """Decode a webhook body or one ``getUpdates`` item (bytes, str, or the parsed
        dict, as aiogram takes it, ``update=`` by keyword too) and handle it.

        A body that does not decode raises ``tgfast.DecodeError`` (nothing was handled).
        """
        cdef _Feed feed = _Feed.__new__(_Feed)
        feed.core = self
        feed.bot = bot
        feed.raw = update
        feed.kwargs = kwargs
        return feed
