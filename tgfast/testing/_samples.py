"""Well-formed values of any Bot API type, built from the generated classes' field rows.

What the fake answers a method it has nothing better for: the smallest object its
return type allows (every required field, no optional one), plausible enough for any
client to decode. A union takes its first variant, with the discriminator set.
"""

from __future__ import annotations

from typing import Any

from tgfast import types as _types
from tgfast.types.base import TelegramObject, split_alternatives

__all__ = ["sample"]

_SCALARS: dict[str, Any] = {
    "int": 1,
    "float": 0.0,
    "bool": False,
    "true": True,
    "str": "x",
    "date": 1_700_000_000,  # a Unix time (decoded to a datetime)
}
# str fields whose value a client may check against a fixed set
_NAMED_STR = {
    ("Chat", "type"): "private",
    ("ChatFullInfo", "type"): "private",
    ("Poll", "type"): "regular",
    ("Sticker", "type"): "regular",
    ("StickerSet", "sticker_type"): "regular",
}
_MAX_DEPTH = 8
# Required by Bot API releases after the vendored spec: a client that follows a newer
# release (aiogram 3.31 follows 10.3) refuses the object without them.
_NEWER_REQUIRED: dict[str, dict[str, Any]] = {
    "ChatAdministratorRights": {"can_send_welcome_messages": False},
    "ChatMemberAdministrator": {"can_send_welcome_messages": False},
}


def sample(expr: str, *, key: str = "", owner: str = "", depth: int = 0) -> Any:
    """A value of the type expression ``expr`` (``int``, ``[T]``, ``A|B``, a class name);
    ``key`` is the JSON field of class ``owner`` it is for, to pick a plausible string."""
    if expr.startswith("[") and expr.endswith("]"):
        return []
    alternatives = split_alternatives(expr)
    if len(alternatives) > 1:
        # a class over a bare "true" (editMessageText's Message|true): the richer answer
        objects = [a for a in alternatives if a not in _SCALARS and not a.startswith("[")]
        chosen = objects[0] if objects else alternatives[0]
        return sample(chosen, key=key, owner=owner, depth=depth)
    if expr in _SCALARS:
        if expr == "str":
            return _NAMED_STR.get((owner, key), key or "x")
        return _SCALARS[expr]
    cls = getattr(_types, expr, None)
    if not (isinstance(cls, type) and issubclass(cls, TelegramObject)):
        # a word of the type language added without a sample here: loud, not a bad answer
        raise LookupError(f"FakeTelegram has no sample value of type {expr!r}")
    return _object(cls, depth)


def _object(cls: type[TelegramObject], depth: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    rule = cls.__dict__.get("__tg_union__")  # its own: a variant inherits its union's
    if rule is not None:
        if rule.key is not None and rule.variants:
            value, variant = next(iter(rule.variants.items()))
            if rule.default is not None:
                variant = rule.default
                value = next((v for v, c in rule.variants.items() if c is variant), value)
            out = _object(variant, depth) if variant is not cls else {}
            out[rule.key] = value
            return out
        if rule.presence:
            return _object(rule.presence[0][1], depth)
    if depth > _MAX_DEPTH:
        return out
    for json_key, _attr, tp, required in cls.__tg_fields__:
        if required:
            out[json_key] = sample(tp, key=json_key, owner=cls.__name__, depth=depth + 1)
    out.update(_NEWER_REQUIRED.get(cls.__name__, ()))
    own = _discriminator_of(cls)
    if own is not None:
        out[own[0]] = own[1]
    return out


def _discriminator_of(cls: type[TelegramObject]) -> tuple[str, Any] | None:
    """``(key, value)`` naming ``cls`` in the union it is a variant of, if any."""
    for base in cls.__mro__[1:]:
        rule = base.__dict__.get("__tg_union__")
        if rule is not None and rule.key is not None:
            for value, variant in rule.variants.items():
                if variant is cls:
                    return rule.key, value
    return None
