"""Hypothesis strategies for the generated Bot API types, derived from their metadata.

Nothing here lists classes or fields by hand: every strategy is read off a class's
``__tg_fields__`` (JSON key, attribute, type expression, required), its ``__init__``
defaults and, for union bases, its ``__tg_union__`` rule. The values are exactly
those the decoders must accept and rebuild unchanged, so for any generated ``obj``:

    convert(type(obj), obj.to_dict()) == obj

Entry points:

* ``objects(cls)``      instances of ``cls`` (a union base gives one of its variants,
                        or now and then an "unknown variant" base instance);
* ``json_values(cls)``  their JSON form, ``objects(cls).map(lambda o: o.to_dict())``;
* ``values(expr)``      values of a type expression (``"RichText"`` can be a ``str``
                        or a list; ``"[PhotoSize]"`` a list; ``"int|str"``; ...);
* ``to_json(value)``    the JSON form of anything ``values`` produced.

Depth: the top-level object is at depth 0 and each nested object one deeper. From
``max_depth`` on, optional fields that hold objects are left unset, required lists
of objects are empty and unions that admit a bare string (``RichText``) use one;
required object fields are still filled (the Bot API has no cycle of required
object fields, so this terminates). Strategies are built lazily (``st.deferred``)
and cached per class, depth and union constraint.
"""

from __future__ import annotations

import inspect
from datetime import datetime, timezone
from functools import cache
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from tgfast.defaults import Default
from tgfast.types import _types
from tgfast.types.base import TelegramObject, UnionRule, split_alternatives

__all__ = [
    "ALL_CLASSES",
    "DEFAULT_MAX_DEPTH",
    "INT64_MAX",
    "INT64_MIN",
    "UNION_BASES",
    "floats",
    "ints",
    "json_scalars",
    "json_values",
    "objects",
    "roundtrip_values",
    "texts",
    "to_json",
    "union_members",
    "values",
    "variant_objects",
]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
DEFAULT_MAX_DEPTH = 2
MAX_OPTIONAL_FIELDS = 8
"""At most this many optional fields are set per object: ``Message`` has ~100, and
setting them all (recursively) would make every example huge and slow."""
MAX_LIST = 3

ALL_CLASSES: tuple[type[TelegramObject], ...] = tuple(getattr(_types, n) for n in _types.__all__)
UNION_BASES: tuple[type[TelegramObject], ...] = tuple(
    c for c in ALL_CLASSES if c.__dict__.get("__tg_union__") is not None
)
_PRIMITIVE_NAMES = frozenset({"int", "str", "bool", "float", "true", "InputFile", "date"})

# --- primitives ------------------------------------------------------------------

ints = st.integers(INT64_MIN, INT64_MAX)
# orjson refuses lone surrogates, so no JSON text can hold one.
texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
# NaN and infinities have no JSON form; every finite double survives orjson's
# shortest round-trip repr exactly (the round-trip tests check this on every run).
floats = st.floats(allow_nan=False, allow_infinity=False)
json_scalars = st.one_of(st.none(), st.booleans(), ints, floats, texts)
_json_any = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(texts, inner, max_size=3),
    ),
    max_leaves=6,
)

_PRIMITIVES: dict[str, SearchStrategy[Any]] = {
    "int": ints,
    "str": texts,
    "InputFile": texts,  # a file_id / URL string is the only JSON form of InputFile
    "bool": st.booleans(),
    "true": st.just(True),  # "always True" fields
    "float": floats,
    # a Unix time from 1970 to 9999, decoded to an aware UTC datetime
    "date": st.integers(0, 253402300799).map(lambda t: datetime.fromtimestamp(t, timezone.utc)),
}


# --- type expressions -----------------------------------------------------------


def holds_objects(expr: str) -> bool:
    """Whether a value of ``expr`` can contain a generated class."""
    return any(
        name not in _PRIMITIVE_NAMES
        for name in expr.replace("[", "|").replace("]", "|").split("|")
        if name
    )


def union_rule(cls: type) -> UnionRule | None:
    return cls.__dict__.get("__tg_union__")


def union_members(cls: type[TelegramObject]) -> list[type[TelegramObject]]:
    """Every concrete class a union base can decode to, in rule order."""
    rule = union_rule(cls)
    assert rule is not None, cls
    members = [c for _, c in rule.presence]
    members += list(rule.variants.values())
    if rule.default is not None:
        members.append(rule.default)
    return list(dict.fromkeys(members))


def _init_defaults(cls: type) -> dict[str, Any]:
    """Non-None ``__init__`` defaults: the discriminator constants (``type="emoji"``)."""
    if "__init__" not in cls.__dict__:
        return {}
    return {
        p.name: p.default
        for p in inspect.signature(cls.__init__).parameters.values()
        if p.default is not inspect.Parameter.empty
        and p.default is not None
        and type(p.default) is not Default  # left to the bot's defaults: an ordinary optional
    }


# --- union constraints ----------------------------------------------------------
#
# A variant reached through a union field must be generated so that the union rule
# picks that same variant again when decoding its JSON:
#   * ``key`` rules: a variant's key field holds its tag (``date == 0`` for
#     InaccessibleMessage); the default variant's key must hold none of the tags
#     (a Message with ``date == 0`` would decode as an InaccessibleMessage);
#   * ``presence`` rules (first listed key present wins): the variant's own key is
#     set, and the keys listed before it are absent; variants picked by tag or by
#     default must carry no presence key at all.
# A constraint is a hashable tuple of (json_key, kind, value) triples so strategies
# can be cached per (class, depth, constraint).

Constraint = tuple[tuple[str, str, Any], ...]


def _variant_constraint(rule: UnionRule, cls: type[TelegramObject]) -> Constraint:
    out: list[tuple[str, str, Any]] = []
    presence_keys = [k for k, _ in rule.presence]
    chosen = next((i for i, (_, c) in enumerate(rule.presence) if c is cls), None)
    if chosen is not None:
        out.extend((k, "absent", None) for k in presence_keys[:chosen])
        out.append((presence_keys[chosen], "present", None))
    else:
        out.extend((k, "absent", None) for k in presence_keys)
        if rule.key is not None:
            tags = [t for t, c in rule.variants.items() if c is cls]
            if tags:
                out.append((rule.key, "fixed", tags[0]))
            else:
                assert cls is rule.default, (rule, cls)
                out.append((rule.key, "exclude", tuple(rule.variants)))
    return tuple(out)


def _check_constraint(cls: type[TelegramObject], constraint: Constraint) -> None:
    rows = {key: req for key, _attr, _tp, req in cls.__tg_fields__}
    for key, kind, _value in constraint:
        if kind == "absent" and rows.get(key):
            raise AssertionError(
                f"{cls.__name__} requires {key!r}, so the union rule can never pick it"
            )
        if kind in ("present", "fixed", "exclude") and key not in rows:
            raise AssertionError(f"{cls.__name__} has no field {key!r} for its union rule")


# --- objects --------------------------------------------------------------------


def _extra_fields() -> SearchStrategy[dict[str, Any] | None]:
    # Unknown keys get a prefix no Bot API key has, so they can never collide with
    # a field or a union presence key of any class.
    return st.one_of(
        st.none(),
        st.dictionaries(texts.map(lambda s: "x_unknown_" + s), _json_any, min_size=1, max_size=2),
    )


@cache
def _object(
    cls: type[TelegramObject], depth: int, max_depth: int, constraint: Constraint = ()
) -> SearchStrategy[TelegramObject]:
    if union_rule(cls) is not None:
        return _union(cls, depth, max_depth)
    _check_constraint(cls, constraint)
    rules = {key: (kind, value) for key, kind, value in constraint}
    defaults = _init_defaults(cls)
    at_limit = depth >= max_depth
    required: dict[str, SearchStrategy[Any]] = {}
    optional: dict[str, SearchStrategy[Any]] = {}
    for key, attr, tp, req in cls.__tg_fields__:
        kind, value = rules.get(key, (None, None))
        if kind == "absent":
            continue
        if kind == "fixed":
            strategy: SearchStrategy[Any] = st.just(value)
        elif attr in defaults:
            # Discriminators (``type``, ``status``, ``source``) keep their constant.
            strategy = st.just(defaults[attr])
        else:
            strategy = values(tp, depth=depth + 1, max_depth=max_depth)
            if kind == "exclude":
                tags = value
                strategy = strategy.filter(lambda v, tags=tags: all(to_json(v) != t for t in tags))
        if req or kind in ("present", "fixed", "exclude"):
            required[attr] = strategy
        elif not (at_limit and holds_objects(tp)):
            optional[attr] = strategy
    names = sorted(optional)
    if names:
        chosen = st.lists(st.sampled_from(names), unique=True, max_size=MAX_OPTIONAL_FIELDS)
        opt_kwargs = chosen.flatmap(
            lambda picked: st.fixed_dictionaries({n: optional[n] for n in picked})
        )
    else:
        opt_kwargs = st.just({})

    def build(args: tuple[dict[str, Any], dict[str, Any], dict[str, Any] | None]) -> Any:
        req_kw, opt_kw, extra = args
        obj = cls(**req_kw, **opt_kw)
        obj._extra = extra
        for attr in cls.__tg_defaults__:  # the decoded form: an absent field is None
            if type(getattr(obj, attr)) is Default:
                setattr(obj, attr, None)
        return obj

    return st.tuples(st.fixed_dictionaries(required), opt_kwargs, _extra_fields()).map(build)


def _unknown_variant(cls: type[TelegramObject], rule: UnionRule) -> SearchStrategy[TelegramObject]:
    """A dict no variant claims: decodes to a bare ``cls`` holding the raw fields."""
    tag = texts.filter(lambda t: t not in rule.variants).map(lambda t: "x_unknown_" + t)
    fields = st.dictionaries(
        texts.map(lambda s: "x_unknown_" + s), _json_any, min_size=0 if rule.key else 1, max_size=3
    )

    def build(args: tuple[str, dict[str, Any]]) -> TelegramObject:
        tag_value, raw = args
        if rule.key is not None:
            raw = {rule.key: tag_value, **raw}
        return cls(**raw)

    return st.tuples(tag, fields).map(build)


@cache
def _union(cls: type[TelegramObject], depth: int, max_depth: int) -> SearchStrategy[Any]:
    """Objects of a union base: one of its variants (or an unknown variant)."""
    rule = union_rule(cls)
    assert rule is not None
    options = [
        st.deferred(
            lambda member=member: _object(
                member, depth, max_depth, _variant_constraint(rule, member)
            )
        )
        for member in union_members(cls)
    ]
    if rule.default is None:
        # Without a default, an unmatched dict decodes to the bare base class.
        # (Never an empty one: ``{}`` decodes to a base with ``_extra == {}``,
        # while ``cls()`` has ``_extra is None``, so they would compare unequal.)
        options.append(_unknown_variant(cls, rule))
    return st.one_of(options)


@cache
def values(expr: str, *, depth: int = 0, max_depth: int = DEFAULT_MAX_DEPTH) -> SearchStrategy[Any]:
    """Python values of a type expression, as the decoders would return them."""
    if expr in _PRIMITIVES:
        return _PRIMITIVES[expr]
    at_limit = depth > max_depth
    alternatives = split_alternatives(expr)
    if len(alternatives) > 1:
        # The decoders pick an alternative by JSON type (first one wins); every
        # alternative list in the Bot API has distinct JSON types (``int|str``,
        # ``Message|bool``), so each alternative round-trips on its own.
        return st.one_of([values(a, depth=depth, max_depth=max_depth) for a in alternatives])
    if expr.startswith("["):
        inner = expr[1:-1]
        if at_limit and holds_objects(inner):
            return st.just([])
        return st.lists(values(inner, depth=depth, max_depth=max_depth), max_size=MAX_LIST)
    cls = getattr(_types, expr)
    rule = union_rule(cls)
    if rule is not None and (rule.allow_str or rule.allow_list):
        bare: list[SearchStrategy[Any]] = [texts] if rule.allow_str else []
        if at_limit and bare:
            return bare[0]
        options = [*bare, st.deferred(lambda: _union(cls, depth, max_depth))]
        if rule.allow_list and not at_limit:
            options.append(
                st.deferred(
                    lambda: st.lists(
                        values(expr, depth=depth + 1, max_depth=max_depth), max_size=MAX_LIST
                    )
                )
            )
        return st.one_of(options)
    return st.deferred(lambda: _object(cls, depth, max_depth))


def objects(
    cls: type[TelegramObject], *, max_depth: int = DEFAULT_MAX_DEPTH
) -> SearchStrategy[TelegramObject]:
    """Valid instances of a generated class (for a union base: of its variants)."""
    return st.deferred(lambda: _object(cls, 0, max_depth))


def roundtrip_values(
    cls: type[TelegramObject], *, max_depth: int = DEFAULT_MAX_DEPTH
) -> SearchStrategy[Any]:
    """What ``decode(cls, ...)`` gives back, for round-trips of every class.

    That is ``objects(cls)``, except for ``InputFile``: the class only documents
    file uploads (multipart data, never JSON), and in the type language the name
    ``InputFile`` means its JSON form, a file_id / URL / ``attach://`` string. So
    ``decode(InputFile, ...)`` decodes a string, and an ``InputFile()`` instance
    (JSON ``{}``) has no decodable form at all; its round-trip is that of strings.
    """
    if cls.__name__ in _PRIMITIVE_NAMES:
        return values(cls.__name__)
    return objects(cls, max_depth=max_depth)


def variant_objects(
    base: type[TelegramObject],
    member: type[TelegramObject],
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> SearchStrategy[TelegramObject]:
    """Instances of ``member`` that the union rule of ``base`` maps back to ``member``."""
    rule = union_rule(base)
    assert rule is not None and member in union_members(base), (base, member)
    return st.deferred(lambda: _object(member, 0, max_depth, _variant_constraint(rule, member)))


def json_values(
    cls: type[TelegramObject], *, max_depth: int = DEFAULT_MAX_DEPTH
) -> SearchStrategy[dict[str, Any]]:
    """The Telegram JSON (as parsed by orjson) of valid instances of ``cls``."""
    return objects(cls, max_depth=max_depth).map(lambda o: o.to_dict())


def to_json(value: Any) -> Any:
    """The JSON form of any value ``values`` generates."""
    if isinstance(value, TelegramObject):
        return value.to_dict()
    if isinstance(value, list):
        return [to_json(v) for v in value]
    if isinstance(value, datetime):
        return int(value.timestamp())
    return value
