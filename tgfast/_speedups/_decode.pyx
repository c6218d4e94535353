# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled decoder: orjson's output -> generated slotted objects, checked on the way.

The twin of ``_decode_py.py`` (same objects, same errors). Speed comes from doing
per type, once, what the twin does per value: each class gets a ``ClassBuilder``
that knows the memory offset of every slot, so an object is allocated, filled
with ``None`` in one pass and its present fields written straight into place,
without calling ``__init__`` or going through attribute lookup.
"""

from cpython.object cimport PyObject, PyTypeObject
from cpython.dict cimport PyDict_Next, PyDict_GetItem, PyDict_GetItemWithError
from cpython.ref cimport Py_INCREF, Py_DECREF
from cpython.datetime cimport import_datetime, datetime_new, get_utc
from libc.stdlib cimport calloc, free
from libc.string cimport memchr

import orjson

from ..errors import DecodeError
from ..types import _types
from ..types.base import enable_extra, keep_extra, split_alternatives
from ._decode_shared import (
    DEFAULT_MAX_SIZE, JSON_NAMES, MAX_UNIX_TIME, PRIMITIVES, PathError, _bad_tag, expr_of,
    json_name, repeated_key,
)

cdef extern from "Python.h":
    ctypedef struct PyMemberDef:
        Py_ssize_t offset
    ctypedef struct PyMemberDescrObject:
        PyMemberDef* d_member
    PyTypeObject PyMemberDescr_Type
    PyObject* Py_None
    PyObject* Py_True
    PyObject* Py_False
    Py_ssize_t Py_REFCNT(PyObject*)
    void Py_SET_REFCNT(PyObject*, Py_ssize_t)
    bint PyLong_CheckExact(object)
    bint PyUnicode_CheckExact(object)
    bint PyDict_CheckExact(object)
    bint PyList_CheckExact(object)
    bint PyFloat_CheckExact(object)
    bint PyBytes_CheckExact(object)
    Py_ssize_t PyBytes_GET_SIZE(object)
    char* PyBytes_AS_STRING(object)
    Py_ssize_t PyList_GET_SIZE(object)
    PyObject* PyList_GET_ITEM(object, Py_ssize_t)
    object PyList_New(Py_ssize_t)
    void PyList_SET_ITEM(object, Py_ssize_t, PyObject*)
    object PyFloat_FromDouble(double)
    double PyLong_AsDouble(object) except? -1.0
    long long PyLong_AsLongLongAndOverflow(object, int*) except? -1

# The CPython-internals tricks of this module all live in the C block below: objects
# made by _PyObject_GC_New with their None slots copied in and None's count raised once
# (tgfast_new_nones), and a tp_dealloc that clears the slots in one loop and lowers
# None's count once (tgfast_slots_dealloc). Each saves 7-12% of the instructions of a
# decode (benchmarks/README.md, "What the CPython-internals tricks buy").
cdef extern from *:
    """
    /* 1 when the slot holds None; else clears it (releasing what it held), 0. */
    static inline Py_ssize_t tgfast_clear_slot(PyObject **slot) {
        PyObject *value = *slot;
        if (value == Py_None) {
            return 1;
        }
        if (value != NULL) {
            *slot = NULL;
            Py_DECREF(value);
        }
        return 0;
    }
    /* A tp_dealloc for the generated classes, whose instances are nothing but object
       slots between the header and tp_basicsize: it clears them in one tight loop
       instead of subtype_dealloc's walk over every class's member table. It is only
       installed after tgfast_slots_only() has checked that layout. */
    static void tgfast_slots_dealloc(PyObject *self) {
        PyTypeObject *tp = Py_TYPE(self);
        PyObject_GC_UnTrack(self);
        Py_TRASHCAN_BEGIN(self, tgfast_slots_dealloc)
        PyObject **slot = (PyObject **)((char *)self + sizeof(PyObject));
        PyObject **end = (PyObject **)((char *)self + tp->tp_basicsize);
        PyObject *none = Py_None;
        Py_ssize_t nones = 0;
        /* Most slots hold None: skip them four at a time, settle None's count once. */
        for (; end - slot >= 4; slot += 4) {
            if (slot[0] == none && slot[1] == none && slot[2] == none && slot[3] == none) {
                nones += 4;
                continue;
            }
            nones += tgfast_clear_slot(slot) + tgfast_clear_slot(slot + 1)
                + tgfast_clear_slot(slot + 2) + tgfast_clear_slot(slot + 3);
        }
        for (; slot < end; slot++) {
            nones += tgfast_clear_slot(slot);
        }
        Py_SET_REFCNT(Py_None, Py_REFCNT(Py_None) - nones);
        tp->tp_free(self);
        Py_DECREF(tp);
        Py_TRASHCAN_END
    }
    static int tgfast_slots_only(PyTypeObject *tp) {
        return (tp->tp_flags & Py_TPFLAGS_HEAPTYPE) && (tp->tp_flags & Py_TPFLAGS_HAVE_GC)
            && tp->tp_dictoffset == 0 && tp->tp_weaklistoffset == 0 && tp->tp_itemsize == 0
            && tp->tp_finalize == NULL && tp->tp_del == NULL;
    }
    static void tgfast_install_dealloc(PyTypeObject *tp) {
        tp->tp_dealloc = tgfast_slots_dealloc;
    }
    /* An instance of a class tgfast_slots_only() accepted, every slot None: no zeroing
       (PyType_GenericAlloc's) before the Nones are copied in; tracked once they are. */
    #define TGFAST_MAX_SLOTS 512
    static PyObject *tgfast_nones[TGFAST_MAX_SLOTS];
    static void tgfast_init_nones(void) {
        for (Py_ssize_t i = 0; i < TGFAST_MAX_SLOTS; i++) {
            tgfast_nones[i] = Py_None;
        }
    }
    static PyObject *tgfast_new_nones(PyTypeObject *tp, Py_ssize_t nslots) {
        PyObject *obj = _PyObject_GC_New(tp);  /* header set and the type held, untracked */
        if (obj == NULL) {
            return NULL;
        }
        memcpy((char *)obj + sizeof(PyObject), tgfast_nones, nslots * sizeof(PyObject *));
        Py_SET_REFCNT(Py_None, Py_REFCNT(Py_None) + nslots);
        PyObject_GC_Track(obj);
        return obj;
    }
    /* An exact int within int64: ints of up to two 30-bit digits always are. */
    static inline int tgfast_int64_ok(PyObject *v) {
    #if PY_VERSION_HEX < 0x030C0000
        Py_ssize_t digits = Py_SIZE(v);
        if (-2 <= digits && digits <= 2) {
            return 1;
        }
    #else
        if (PyUnstable_Long_IsCompact((PyLongObject *)v)) {
            return 1;
        }
    #endif
        int overflow = 0;
        PyLong_AsLongLongAndOverflow(v, &overflow);
        return !overflow;
    }
    static inline Py_hash_t tgfast_str_hash(PyObject *s) {
        Py_hash_t h = ((PyASCIIObject *)s)->hash;
        return h != -1 ? h : PyObject_Hash(s);
    }
    """
    int tgfast_slots_only(PyTypeObject*)
    void tgfast_install_dealloc(PyTypeObject*)
    int TGFAST_MAX_SLOTS
    void tgfast_init_nones()
    object tgfast_new_nones(PyTypeObject*, Py_ssize_t)
    bint tgfast_int64_ok(PyObject*)
    Py_hash_t tgfast_str_hash(PyObject*) except? -1

ctypedef struct KeyEntry:
    Py_hash_t hash
    PyObject* key      # the field's JSON key (owned by ClassBuilder.fields)
    PyObject* seen     # the last equal key object met in input (a held reference)
    PyObject* field    # the Field (owned by ClassBuilder.fields)

__all__ = ["DEFAULT_MAX_SIZE", "convert", "decode", "decode_update", "decode_updates"]

cdef object _loads = orjson.loads
cdef object _JSONDecodeError = orjson.JSONDecodeError

# Field kinds the class builder checks inline; everything else goes through a Conv.
cdef enum:
    K_CONV = 0
    K_INT = 1
    K_STR = 2
    K_BOOL = 3


cdef inline object _wrong(str expected, object value):
    return PathError(f"expected {expected}, got {json_name(value)}")


cdef inline object _check_int(object v):
    if not tgfast_int64_ok(<PyObject*>v):
        raise PathError("integer out of 64-bit range")
    return v


tgfast_init_nones()


cdef class Conv:
    """A converter for one type expression."""
    cdef str expected
    cdef tuple accepts

    cdef object convert(self, object v):
        raise NotImplementedError


cdef class IntConv(Conv):
    cdef object convert(self, object v):
        if PyLong_CheckExact(v):
            return _check_int(v)
        raise _wrong("int", v)


cdef class StrConv(Conv):
    cdef object convert(self, object v):
        if PyUnicode_CheckExact(v):
            return v
        raise _wrong("str", v)


cdef class BoolConv(Conv):
    cdef object convert(self, object v):
        if v is True or v is False:
            return v
        raise _wrong("bool", v)


cdef class FloatConv(Conv):
    cdef object convert(self, object v):
        if PyFloat_CheckExact(v):
            return v
        if PyLong_CheckExact(v):
            return float(v)
        raise _wrong("float", v)


cdef class IntOrStrConv(Conv):
    cdef object convert(self, object v):
        if PyUnicode_CheckExact(v):
            return v
        if PyLong_CheckExact(v):
            return _check_int(v)
        raise _wrong("int or str", v)


import_datetime()
cdef object _UTC = get_utc()
cdef long long _MAX_UNIX_TIME = MAX_UNIX_TIME


cdef class DateConv(Conv):
    """A Unix time -> an aware UTC datetime, built field by field (no call into
    ``datetime.fromtimestamp``); the last one is kept, as datetimes are immutable and
    one update's dates are often the same second."""
    cdef long long last
    cdef object last_value

    cdef object convert(self, object v):
        cdef long long t, days, secs, z, era, doe, yoe, doy, mp, y, m, d
        cdef int overflow = 0
        if not PyLong_CheckExact(v):
            raise _wrong("int", v)
        # not PyLong_AsLongLong: on 3.11 it takes a slow path for ints of two digits,
        # which every Unix time since 1970-01-13 is
        t = PyLong_AsLongLongAndOverflow(v, &overflow)
        if t == self.last and self.last_value is not None and not overflow:
            return self.last_value
        if overflow or t < 0 or t > _MAX_UNIX_TIME:
            raise PathError(f"Unix time out of range (0 to {MAX_UNIX_TIME})")
        # days since 1970-01-01 -> civil date (H. Hinnant's days_from_civil, inverted)
        days = t // 86400
        secs = t - days * 86400
        z = days + 719468
        era = z // 146097
        doe = z - era * 146097
        yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
        doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
        mp = (5 * doy + 2) // 153
        d = doy - (153 * mp + 2) // 5 + 1
        m = mp + 3 if mp < 10 else mp - 9
        y = yoe + era * 400 + (1 if m <= 2 else 0)
        value = datetime_new(
            <int>y, <int>m, <int>d, <int>(secs // 3600), <int>(secs // 60 % 60),
            <int>(secs % 60), 0, _UTC,
        )
        self.last = t
        self.last_value = value
        return value


cdef class AltConv(Conv):
    """Alternatives chosen by the JSON type of the value (``Message|bool``)."""
    cdef dict table

    cdef object convert(self, object v):
        cdef PyObject* c = PyDict_GetItem(self.table, type(v))
        if c is NULL:
            raise _wrong(self.expected, v)
        return (<Conv>c).convert(v)


cdef class ListConv(Conv):
    cdef Conv item

    cdef object convert(self, object v):
        if not PyList_CheckExact(v):
            raise _wrong("array", v)
        cdef Py_ssize_t i = 0, n = PyList_GET_SIZE(v)
        cdef object out = PyList_New(n)
        cdef object x
        try:
            for i in range(n):
                x = self.item.convert(<object>PyList_GET_ITEM(v, i))
                Py_INCREF(x)
                PyList_SET_ITEM(out, i, <PyObject*>x)
        except PathError as e:
            # Unset items are NULL; fill them so the half-built list can be freed.
            for j in range(i, n):
                if PyList_GET_ITEM(out, j) is NULL:
                    Py_INCREF(None)
                    PyList_SET_ITEM(out, j, Py_None)
            e.segments.append(f"[{i}]")
            raise
        return out


cdef class Field:
    cdef Py_ssize_t offset
    cdef int kind
    cdef bint required
    cdef Conv conv
    cdef str expected


cdef class ClassBuilder(Conv):
    """Builds one generated class from a dict, writing its slots by offset.

    Field keys are found in a small open-addressing table that also remembers the
    last key object seen for each field: orjson reuses key strings, so most
    lookups end on a pointer comparison.
    """
    cdef object cls
    cdef PyTypeObject* tp
    cdef dict fields          # JSON key -> Field
    cdef tuple required       # JSON keys, declared order
    cdef Py_ssize_t nrequired
    cdef Py_ssize_t first     # offset of the first slot
    cdef Py_ssize_t nslots    # slots are contiguous: checked in setup
    cdef Py_ssize_t extra_offset
    cdef KeyEntry* table
    cdef Py_ssize_t mask

    def __dealloc__(self):
        cdef Py_ssize_t i
        if self.table is not NULL:
            for i in range(self.mask + 1):
                if self.table[i].seen is not NULL:
                    Py_DECREF(<object>self.table[i].seen)
            free(self.table)

    cdef void setup(self, object cls) except *:
        self.cls = cls
        self.tp = <PyTypeObject*>cls
        self.fields = {}
        offsets = sorted(_slot_offset(cls, name) for name in _all_slots(cls))
        self.first = offsets[0]
        self.nslots = len(offsets)
        if offsets != list(range(self.first, self.first + self.nslots * sizeof(PyObject*), sizeof(PyObject*))):
            raise TypeError(f"{cls.__name__}: slots are not contiguous")
        if self.first != sizeof(PyObject) or self.tp.tp_basicsize != self.first + self.nslots * sizeof(PyObject*):
            raise TypeError(f"{cls.__name__}: unexpected instance layout")
        if not tgfast_slots_only(self.tp):
            raise TypeError(f"{cls.__name__}: not a plain slotted class")
        if self.nslots > TGFAST_MAX_SLOTS:
            raise TypeError(f"{cls.__name__}: more than {TGFAST_MAX_SLOTS} slots")
        tgfast_install_dealloc(self.tp)
        self.extra_offset = _slot_offset(cls, "_extra")

    cdef void index_fields(self) except *:
        cdef Py_ssize_t size = 8, i
        cdef Py_hash_t h
        while size < 2 * len(self.fields):
            size *= 2
        self.table = <KeyEntry*>calloc(size, sizeof(KeyEntry))
        if self.table is NULL:
            raise MemoryError()
        self.mask = size - 1
        for key, field in self.fields.items():
            h = hash(key)
            i = h & self.mask
            while self.table[i].key is not NULL:
                i = (i + 1) & self.mask
            self.table[i].hash = h
            self.table[i].key = <PyObject*>key
            self.table[i].field = <PyObject*>field

    cdef inline PyObject* lookup(self, PyObject* k) except? NULL:
        cdef Py_hash_t h = tgfast_str_hash(k)
        cdef Py_ssize_t i = h & self.mask
        cdef KeyEntry* e
        while True:
            e = &self.table[i]
            if e.key is NULL:
                return NULL
            if e.hash == h:
                if e.seen == k or e.key == k:
                    return e.field
                if <object>e.key == <object>k:
                    Py_INCREF(<object>k)
                    if e.seen is not NULL:
                        Py_DECREF(<object>e.seen)
                    e.seen = k
                    return e.field
            i = (i + 1) & self.mask

    cdef object convert(self, object v):
        if not PyDict_CheckExact(v):
            raise _wrong("object", v)
        return self.build(<dict>v)

    cdef object build(self, dict d):
        # every slot holds None (its references taken in bulk): a field written below
        # gives its None back with Py_SET_REFCNT, as None is never deallocated
        cdef object obj = tgfast_new_nones(self.tp, self.nslots)
        cdef char* base = <char*><PyObject*>obj
        cdef Py_ssize_t pos = 0, seen = 0
        cdef PyObject* k = NULL
        cdef PyObject* v = NULL
        cdef PyObject* fp
        cdef object value
        cdef object extra = None
        cdef int kind
        try:
            while PyDict_Next(d, &pos, &k, &v):
                fp = NULL
                if PyUnicode_CheckExact(<object>k):
                    fp = self.lookup(k)
                if fp is NULL:
                    if extra is None:
                        extra = {}
                    extra[<object>k] = <object>v
                    continue
                if (<Field>fp).required:
                    seen += 1
                if v == Py_None:
                    if (<Field>fp).required:
                        raise PathError(f"expected {(<Field>fp).expected}, got null")
                    continue
                kind = (<Field>fp).kind
                if kind == K_STR:
                    if not PyUnicode_CheckExact(<object>v):
                        raise _wrong("str", <object>v)
                    Py_INCREF(<object>v)
                elif kind == K_INT:
                    if not PyLong_CheckExact(<object>v):
                        raise _wrong("int", <object>v)
                    if not tgfast_int64_ok(v):
                        raise PathError("integer out of 64-bit range")
                    Py_INCREF(<object>v)
                elif kind == K_BOOL:
                    if not (v == Py_True or v == Py_False):
                        raise _wrong("bool", <object>v)
                    Py_INCREF(<object>v)
                else:
                    value = (<Field>fp).conv.convert(<object>v)
                    Py_INCREF(value)
                    v = <PyObject*>value
                (<PyObject**>(base + (<Field>fp).offset))[0] = v
                Py_SET_REFCNT(Py_None, Py_REFCNT(Py_None) - 1)
        except PathError as e:
            e.segments.append("." + <str>k)
            raise
        if seen != self.nrequired:
            for key in self.required:
                if key not in d:
                    err = PathError("missing required field")
                    err.segments.append("." + key)
                    raise err
        if extra is not None:
            Py_INCREF(extra)
            (<PyObject**>(base + self.extra_offset))[0] = <PyObject*>extra
            Py_SET_REFCNT(Py_None, Py_REFCNT(Py_None) - 1)
            enable_extra(self.cls)  # unknown fields read as attributes (keep_extra)
        return obj


cdef class UnionConv(Conv):
    cdef object base
    cdef object key
    cdef dict variants        # tag -> ClassBuilder
    cdef object default       # ClassBuilder or None
    cdef tuple presence       # ((key, ClassBuilder), ...)
    cdef bint allow_str
    cdef bint allow_list
    cdef bint strict          # a discriminator: it must be a string
    cdef unsigned int key_bit # the key's bit in _met
    cdef Conv list_conv

    cdef object convert(self, object v):
        global _met
        cdef PyObject* c
        if PyDict_CheckExact(v):
            _met |= self.key_bit  # 0 when there is no key
            for key, builder in self.presence:
                if key in <dict>v:
                    return (<ClassBuilder>builder).build(<dict>v)
            if self.key is not None:
                builder = self.default
                tag = (<dict>v).get(self.key)
                if PyUnicode_CheckExact(tag) or (PyLong_CheckExact(tag) and not self.strict):
                    c = PyDict_GetItem(self.variants, tag)
                    if c is not NULL:
                        builder = <object>c
                elif self.strict:  # missing, null or not a string: malformed, not new
                    raise _bad_tag(self.key, tag, v)
                if builder is not None:
                    return (<ClassBuilder>builder).build(<dict>v)
            unknown = self.base.__new__(self.base)
            keep_extra(unknown, dict(v))
            return unknown
        if self.allow_str and PyUnicode_CheckExact(v):
            return v
        if self.allow_list and PyList_CheckExact(v):
            return self.list_conv.convert(v)
        raise _wrong(self.expected, v)


def _all_slots(cls):
    names = []
    for klass in reversed(cls.__mro__):
        for name in klass.__dict__.get("__slots__", ()):
            names.append(name)
    return names


def _slot_offset(cls, name):
    for klass in cls.__mro__:
        desc = klass.__dict__.get(name)
        if desc is not None:
            break
    else:
        raise TypeError(f"{cls.__name__} has no slot {name!r}")
    if type(desc) is not <object>&PyMemberDescr_Type:
        raise TypeError(f"{cls.__name__}.{name} is not a slot")
    return (<PyMemberDescrObject*><PyObject*>desc).d_member.offset


# The twin's table says what each primitive expects and takes; only the classes are ours.
cdef dict _PRIMITIVE_CONVS = {
    "int": IntConv,
    "str": StrConv,
    "InputFile": StrConv,
    "bool": BoolConv,
    "true": BoolConv,
    "float": FloatConv,
    "int|str": IntOrStrConv,
    "date": DateConv,
}


cdef class Registry:
    """Converters by type expression, built once and shared (types are recursive)."""
    cdef dict converters

    def __cinit__(self):
        self.converters = {}

    cdef Conv get(self, str expr):
        cdef object c = self.converters.get(expr)
        if c is None:
            c = self._make(expr)
            self.converters[expr] = c
        return <Conv>c

    cdef Conv _make(self, str expr):
        cdef Conv c
        if expr in PRIMITIVES:
            _py_conv, expected, accepts = PRIMITIVES[expr]
            c = _PRIMITIVE_CONVS[expr]()
            c.expected = expected
            c.accepts = accepts
            return c
        alternatives = split_alternatives(expr)
        if len(alternatives) > 1:
            return self._alternatives(expr, alternatives)
        if expr[0] == "[":
            return self._list(expr)
        cls = getattr(_types, expr)
        rule = cls.__dict__.get("__tg_union__")
        if rule is not None:
            return self._union(expr, cls, rule)
        return self._object(expr, cls)

    cdef Conv _alternatives(self, str expr, list alternatives):
        cdef AltConv c = AltConv()
        c.table = {}
        for alt in alternatives:
            conv = self.get(alt)
            for tp in conv.accepts:
                c.table.setdefault(tp, conv)
        c.expected = " or ".join(dict.fromkeys((<Conv>self.get(a)).expected for a in alternatives))
        c.accepts = tuple(c.table)
        return c

    cdef Conv _list(self, str expr):
        cdef ListConv c = ListConv()
        c.expected = "array"
        c.accepts = (list,)
        self.converters[expr] = c
        c.item = self.get(expr[1:len(expr) - 1])
        return c

    cdef Conv _object(self, str expr, object cls):
        cdef ClassBuilder b = ClassBuilder()
        cdef Field f
        b.expected = "object"
        b.accepts = (dict,)
        b.setup(cls)
        self.converters[expr] = b
        required = []
        for key, attr, tp, req in cls.__tg_fields__:
            f = Field()
            f.offset = _slot_offset(cls, attr)
            f.required = req
            f.conv = self.get(tp)
            f.expected = f.conv.expected
            f.kind = {"int": K_INT, "str": K_STR, "bool": K_BOOL, "true": K_BOOL}.get(tp, K_CONV)
            b.fields[key] = f
            if req:
                required.append(key)
        b.required = tuple(required)
        b.nrequired = len(required)
        b.index_fields()
        return b

    cdef Conv _union(self, str expr, object base, object rule):
        cdef UnionConv c = UnionConv()
        accepts = [dict]
        if rule.allow_str:
            accepts.append(str)
        if rule.allow_list:
            accepts.append(list)
        c.accepts = tuple(accepts)
        c.expected = " or ".join(JSON_NAMES[t] for t in reversed(accepts))
        c.base = base
        c.key = rule.key
        c.allow_str = rule.allow_str
        c.allow_list = rule.allow_list
        c.strict = rule.key is not None and rule.default is None
        c.key_bit = _key_bit(rule.key) if rule.key is not None else 0
        self.converters[expr] = c
        c.variants = {tag: self.get(cls.__name__) for tag, cls in rule.variants.items()}
        c.default = self.get(rule.default.__name__) if rule.default is not None else None
        c.presence = tuple((key, self.get(cls.__name__)) for key, cls in rule.presence)
        if rule.allow_list:
            c.list_conv = self.get(f"[{expr}]")
        return c


# A discriminator key that comes twice in one object picks whichever variant the parser
# keeps (orjson: the last): such an object is malformed. The check costs one pass over
# the raw bytes, so it runs only after a decode that met a union (_met != 0); plain
# messages never pay it. The scan finds candidates; repeated_key (the twin's check) is
# exact and names the path.
cdef enum:
    _MAX_KEYS = 31             # one bit each; bit 31 marks an array frame
    _MAX_DEPTH = 1100          # orjson refuses more than 1,024 levels
cdef unsigned int _ARRAY = 0x80000000u
cdef unsigned int _met = 0     # bits of the discriminator keys met by the decode in progress
cdef list _keys = []           # bit i -> the key as UTF-8 bytes (kept alive for _key_ptr)
cdef const char* _key_ptr[_MAX_KEYS]
cdef Py_ssize_t _key_len[_MAX_KEYS]
cdef Py_ssize_t _nkeys = 0


cdef unsigned int _key_bit(str key):
    global _nkeys
    cdef bytes raw = key.encode()
    cdef Py_ssize_t i
    if raw in _keys:
        return 1u << _keys.index(raw)
    i = len(_keys)
    if i >= _MAX_KEYS:   # the spec has 3 discriminator keys: never reached
        return 0
    _keys.append(raw)
    _key_ptr[i] = PyBytes_AS_STRING(raw)
    _key_len[i] = len(raw)
    _nkeys = i + 1
    return 1u << i


cdef inline unsigned int _bit_of(const char* name, Py_ssize_t size, unsigned int met):
    cdef Py_ssize_t i, j
    for i in range(_nkeys):
        if _key_len[i] == size and met & (1u << i):
            j = 0
            while j < size and _key_ptr[i][j] == name[j]:
                j += 1
            if j == size:
                return 1u << i
    return 0


cdef unsigned char _STRUCTURE[256]   # the bytes that start a string, or nest
cdef unsigned char _IN_STRING[256]   # the bytes that end a string, or escape in one
for _c in (34, 123, 125, 91, 93, 0):  # " { } [ ] and the NUL that ends every bytes
    _STRUCTURE[_c] = 1
for _c in (34, 92):
    _IN_STRING[_c] = 1


cdef inline const char* _string_end(const char* q, const char* end):
    """The closing quote of the string whose content starts at ``q`` (NULL if none):
    the first bytes one by one (most strings are short), then memchr."""
    cdef const char* stop
    cdef const char* b
    while q < end:
        stop = q + 24 if end - q > 24 else end
        while q < stop and not _IN_STRING[<unsigned char>q[0]]:
            q += 1
        if q < stop:
            if q[0] == 34:
                return q  # escapes are skipped in pairs: this quote is not one
            q += 2
            continue
        if stop == end:
            return NULL
        q = <const char*>memchr(q, 34, end - q)
        if q == NULL:
            return NULL
        b = q
        while b[-1] == 92:  # behind an odd run of backslashes a quote is escaped
            b -= 1
        if (q - b) % 2 == 0:
            return q
        q += 1
    return NULL


cdef bint _may_repeat(bytes raw, unsigned int met):
    """False when no object of ``raw`` (valid JSON) holds a key of ``met`` twice; True
    when one does, or when an escaped key or the depth leaves it to the exact check."""
    cdef const char* p = PyBytes_AS_STRING(raw)
    cdef const char* end = p + PyBytes_GET_SIZE(raw)   # CPython's bytes end with a NUL
    cdef const char* q
    cdef const char* b
    cdef unsigned int frames[_MAX_DEPTH]
    cdef unsigned int bit
    cdef int depth = -1
    cdef char c
    while True:
        while not _STRUCTURE[<unsigned char>p[0]]:
            p += 1
        if p >= end:
            return False
        c = p[0]
        if c == 34:  # a string; a key when an object's ':' follows
            q = _string_end(p + 1, end)
            if q == NULL:
                return True  # not valid JSON: leave it to the exact check
            if depth >= 0 and not frames[depth] & _ARRAY:
                b = q + 1
                while b[0] == 32 or b[0] == 10 or b[0] == 13 or b[0] == 9:
                    b += 1
                if b[0] == 58:
                    if memchr(p + 1, 92, q - p - 1) != NULL:
                        return True  # an escaped key: the exact check reads it
                    bit = _bit_of(p + 1, q - p - 1, met)
                    if bit:
                        if frames[depth] & bit:
                            return True
                        frames[depth] |= bit
            p = q + 1
        elif c == 123 or c == 91:
            depth += 1
            if depth == _MAX_DEPTH:
                return True
            frames[depth] = _ARRAY if c == 91 else 0
            p += 1
        elif c == 0:  # a NUL before the end: not valid JSON
            return True
        else:
            depth -= 1
            p += 1


cdef void _check_repeated(object data, unsigned int met) except *:
    raw = data if PyBytes_CheckExact(data) else data.encode() if isinstance(data, str) else bytes(data)
    if _may_repeat(raw, met):
        keys = {_keys[i].decode() for i in range(len(_keys)) if met & (1u << i)}
        error = repeated_key(raw, keys)
        if error is not None:
            raise error


cdef object _decode(Conv conv, object data, object max_size):
    global _met
    value = _load(data, max_size)
    _met = 0
    result = _run(conv, value)
    if _met:
        _check_repeated(data, _met)
    return result


cdef Registry _registry = Registry()
cdef Conv _UPDATE = _registry.get("Update")
cdef Conv _UPDATES = _registry.get("[Update]")


cdef object _load(object data, object max_size):
    cdef Py_ssize_t size
    if PyBytes_CheckExact(data):
        size = PyBytes_GET_SIZE(data)
    elif isinstance(data, (str, bytearray, memoryview, bytes)):
        size = len(data)
    else:
        raise TypeError(f"expected bytes or str, got {type(data).__name__}")
    if max_size is not None and size > max_size:
        raise DecodeError(f"input too large ({size} > max_size={max_size})")
    try:
        return _loads(data)
    except _JSONDecodeError as e:
        raise DecodeError(f"invalid JSON: {e}") from None


cdef object _run(Conv conv, object value):
    try:
        return conv.convert(value)
    except PathError as e:
        raise e.to_decode_error() from None


def decode_update(data, *, max_size=DEFAULT_MAX_SIZE):
    """One webhook body -> ``Update``."""
    return _decode(_UPDATE, data, max_size)


def decode_updates(data, *, max_size=DEFAULT_MAX_SIZE):
    """A JSON array of updates (a ``getUpdates`` result) -> ``list[Update]``."""
    return _decode(_UPDATES, data, max_size)


cdef dict _by_type = {}
"""tp -> its converter, so that a call for a type met before (every Bot API call's
result) builds no expression string."""


cdef Conv _conv_of(object tp):
    cdef PyObject* c
    try:
        c = PyDict_GetItemWithError(_by_type, tp)
    except TypeError:  # unhashable (PyDict_GetItem would report it as unraisable)
        c = NULL
    if c is not NULL:
        return <Conv>c
    conv = _registry.get(expr_of(tp))  # a tp it cannot decode into raises here
    try:
        _by_type[tp] = conv
    except TypeError:  # unhashable: looked up again next time
        pass
    return conv


def decode(tp, data, *, max_size=DEFAULT_MAX_SIZE):
    """JSON -> a value of ``tp`` (a Bot API class, ``list[X]``, a primitive)."""
    return _decode(_conv_of(tp), data, max_size)


def convert(tp, obj):
    """Already-parsed JSON (dicts, lists, ...) -> a value of ``tp``."""
    return _run(_conv_of(tp), obj)
