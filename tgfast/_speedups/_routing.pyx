# cython: language_level=3, boundscheck=False, wraparound=False
"""Compiled routing table: the same rules as ``_routing_py``, over typed nodes.

Nodes, entries and calls are C structs (extension types), so walking the tree and
reading a handler's plan are pointer reads instead of attribute lookups; the command
key is cut from the text in C. ``_routing_py`` is the reference for every behaviour.
"""

from functools import partial

from ..dispatcher.event import UNHANDLED, SkipHandler

__all__ = ["Call", "Entry", "Node", "command_key", "propagate"]


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

    def __init__(self, fn, bint is_async, tuple names, bint takes_all, tuple filters, tuple inner):
        Call.__init__(self, fn, is_async, names, takes_all)
        self.filters = filters
        self.inner = inner


cdef class Node:
    cdef readonly tuple filters
    cdef readonly tuple outer
    cdef readonly tuple plain
    cdef readonly object index
    cdef readonly str prefixes
    cdef readonly tuple children

    def __init__(self, tuple filters, tuple outer, tuple plain, index, str prefixes, tuple children):
        self.filters = filters
        self.outer = outer
        self.plain = plain
        self.index = index
        self.prefixes = prefixes
        self.children = children


cpdef str command_key(str text):
    """``"/Start@bot args"`` -> ``"/start"``: what the command index is keyed by."""
    cdef Py_ssize_t i, end = len(text)
    cdef Py_UCS4 ch
    for i in range(end):
        ch = text[i]
        if ch == u"@" or Py_UNICODE_ISSPACE(ch):
            end = i
            break
    return text[:end].lower()


cdef extern from "Python.h":
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch)


async def _call(Call call, event, dict data):
    cdef str name
    if call.takes_all:
        result = call.fn(event, **data)
    elif call.names:
        kwargs = {}
        for name in call.names:
            if name in data:
                kwargs[name] = data[name]
        result = call.fn(event, **kwargs)
    else:
        result = call.fn(event)
    if call.is_async:
        result = await result
    return result


async def _passes(tuple filters, event, dict data):
    cdef Call f
    for f in filters:
        result = await _call(f, event, data)
        if type(result) is dict:  # passes, even when empty, and injects its values
            if result:
                data = {**data, **result}
        elif not result:
            return None
    return data


async def _handle(Entry entry, Py_ssize_t index, event, dict data):
    if index == len(entry.inner):
        return await _call(entry, event, data)
    return await entry.inner[index](partial(_handle, entry, index + 1), event, data)


async def _route(Node node, event, dict data):
    cdef Entry entry
    cdef Node child
    if node.filters:
        passed = await _passes(node.filters, event, data)
        if passed is None:
            return UNHANDLED  # the router's own filters reject: its children too
        data = passed
    cdef tuple entries = node.plain
    if node.index is not None:
        text = event.text or event.caption
        if text and text[0] in node.prefixes:
            entries = (<dict>node.index).get(command_key(text), entries)
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


async def _outer(Node node, Py_ssize_t index, event, dict data):
    if index == len(node.outer):
        return await _route(node, event, data)
    return await node.outer[index](partial(_outer, node, index + 1), event, data)


async def propagate(Node node, event, dict data):
    """Route ``event`` through ``node`` and its children (see ``_routing_py``)."""
    if node.outer:
        return await _outer(node, 0, event, data)
    return await _route(node, event, data)
