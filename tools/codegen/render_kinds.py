"""Print the update vocabulary: which event an update holds, its chat, its user, its key.

One generated module, ``tgfast/types/update_kinds.py``, answers these for every update
kind, from the spec (an event's ``chat``, ``from`` or ``user`` field) and the override
table ``overrides/update_kinds.json`` (what the spec's field names cannot say); the
dispatcher, the FSM and the ordering of updates all read it. ``dispatcher/_kinds.py``
adds the typed observer of each kind.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .model import Field, Model, SpecError, _load_override
from .render import HEADER, _docstring

Step = tuple[str, bool]  # (Python attribute, may be None)


@dataclass(frozen=True)
class Source:
    """Where one kind's chat or user is: a path of fields, or a private chat's id."""

    steps: tuple[Step, ...] = ()
    private: str | None = None  # the attribute holding the id of a private chat

    @property
    def name(self) -> str:
        if self.private is not None:
            return f"private_{self.private}"
        return "_".join(attr for attr, _optional in self.steps)


@dataclass(frozen=True)
class KindDef:
    kind: str
    event_type: str
    description: str
    chat: Source | None
    user: Source | None


def _field(model: Model, tp: str, key: str) -> Field:
    """Field ``key`` of ``tp``; of a union, the field all its members have alike."""
    td = model.types[tp]
    members = (td.union or {}).get("members", []) if td.is_union else [tp]
    found = [f for m in members for f in model.types[m].fields if f.key == key]
    if not found or len(found) != len(members) or len({(f.attr, f.tp) for f in found}) != 1:
        raise SpecError(f"overrides/update_kinds.json: {tp} has no field {key!r} in every form")
    first = found[0]
    return Field(first.key, first.attr, first.tp, all(f.required for f in found), "")


def _path(model: Model, event_type: str, path: str, ends_in: str) -> Source:
    steps, tp = [], event_type
    for key in path.split("."):
        f = _field(model, tp, key)
        steps.append((f.attr, not f.required))
        tp = f.tp
    if tp != ends_in:
        raise SpecError(f"overrides/update_kinds.json: {event_type}.{path} is {tp}, not {ends_in}")
    return Source(tuple(steps))


def _override(model: Model, event_type: str, entry: Any, ends_in: str) -> Source | None:
    if entry is None:
        return None
    if "private" in entry:
        f = _field(model, event_type, entry["private"])
        if f.tp != "int" or not f.required:
            raise SpecError(f"overrides/update_kinds.json: {event_type}.{f.key} is no chat id")
        return Source(private=f.attr)
    return _path(model, event_type, entry["path"], ends_in)


def _default(model: Model, event_type: str, keys: tuple[str, ...], ends_in: str) -> Source | None:
    """The first of ``keys`` that ``event_type`` has, holding an ``ends_in``."""
    for key in keys:
        f = next((f for f in model.types[event_type].fields if f.key == key), None)
        if f is not None and f.tp == ends_in:
            return Source(((f.attr, not f.required),))
    return None


def update_kinds(model: Model) -> list[KindDef]:
    """Every update kind (an optional field of ``Update``) with its chat and user."""
    overrides = _load_override("update_kinds.json")
    chats, users = overrides.get("chat", {}), overrides.get("user", {})
    kinds = [f for f in model.types["Update"].fields if not f.required]
    unknown = (set(chats) | set(users)) - {f.key for f in kinds}
    if unknown:
        raise SpecError(f"overrides/update_kinds.json names no update kind: {sorted(unknown)}")
    out = []
    for f in kinds:
        chat = (
            _override(model, f.tp, chats[f.key], "Chat")
            if f.key in chats
            else _default(model, f.tp, ("chat",), "Chat")
        )
        user = (
            _override(model, f.tp, users[f.key], "User")
            if f.key in users
            else _default(model, f.tp, ("from", "user"), "User")
        )
        out.append(KindDef(f.attr, f.tp, f.description, chat, user))
    return out


# --- the readers --------------------------------------------------------------------------


def _reader(src: Source, what: str) -> str:
    """The reader of ``src``: an ``attrgetter`` for one field (no Python frame on the
    dispatcher's path), else a generated function."""
    if src.private is None and len(src.steps) == 1:
        return f"attrgetter({src.steps[0][0]!r})"
    return f"_{what}_{src.name}"


def _walk(steps: tuple[Step, ...], indent: str) -> tuple[list[str], str, str]:
    """Lines reading ``steps`` from ``event``: each optional step but the last opens an
    ``if ... is not None:`` block; the last value's expression and the indent it is at."""
    lines, expr = [], "event"
    for i, (attr, optional) in enumerate(steps):
        expr = f"{expr}.{attr}"
        if optional and i < len(steps) - 1:
            lines.append(f"{indent}{attr} = {expr}\n")
            lines.append(f"{indent}if {attr} is not None:\n")
            indent += "    "
            expr = attr
    return lines, expr, indent


def _reader_function(src: Source, what: str, tp: str) -> Iterator[str]:
    yield f"\n\ndef _{what}_{src.name}(event: Any) -> {tp} | None:\n"
    if src.private is not None:
        yield f'    return Chat(id=event.{src.private}, type="private")\n'
        return
    lines, expr, indent = _walk(src.steps, "    ")
    yield from lines
    yield f"{indent}{what}: {tp} | None = {expr}\n"
    yield f"{indent}return {what}\n"
    if lines:
        yield "    return None\n"


def _may_be_none(src: Source) -> bool:
    return src.private is None and any(optional for _attr, optional in src.steps)


def _key_name(kd: KindDef) -> str:
    """``_key_message_chat_else_from_user``: the sources the key is read from."""
    parts = []
    if kd.chat is not None:
        parts.append(kd.chat.name)
    if kd.user is not None and (kd.chat is None or _may_be_none(kd.chat)):
        parts.append(kd.user.name)
    return "_key_" + "_else_".join(parts) if parts else "_no_key"


def _key_function(kd: KindDef) -> Iterator[str]:
    """The ordering key: the chat's id, else the user's, else None.

    Typed ``Any`` (``KEY_READERS`` says ``int | None``) so that it returns its
    expression directly: the ordering path is hot, and a plain function beats an
    ``attrgetter("chat.id")`` there (CPython 3.11 inlines Python-to-Python calls).
    """
    yield f"\n\ndef {_key_name(kd)}(event: Any) -> Any:\n"
    if kd.chat is None and kd.user is None:
        yield "    return None\n"
        return
    for src in (kd.chat, kd.user):
        if src is None:
            continue
        if src.private is not None:
            yield f"    return event.{src.private}\n"
            return
        lines, expr, indent = _walk(src.steps, "    ")
        yield from lines
        *_, (last, optional) = src.steps
        if optional:
            yield f"{indent}{last} = {expr}\n"
            yield f"{indent}if {last} is not None:\n"
            yield f"{indent}    return {last}.id\n"
        else:
            yield f"{indent}return {expr}.id\n"
            if not lines:
                return
    yield "    return None\n"


def render_update_kinds(model: Model) -> str:
    kinds = update_kinds(model)
    functions: dict[str, list[str]] = {}  # readers, then keys, each written once
    for src, what, tp in [(kd.chat, "chat", "Chat") for kd in kinds] + [
        (kd.user, "user", "User") for kd in kinds
    ]:
        if src is not None and _reader(src, what).startswith("_"):
            functions.setdefault(_reader(src, what), list(_reader_function(src, what, tp)))
    for kd in kinds:
        functions.setdefault(_key_name(kd), list(_key_function(kd)))
    private = any(kd.chat is not None and kd.chat.private for kd in kinds)
    out = [
        HEADER.format(version=model.version, date=model.release_date),
        '"""Which event an update holds, the chat and the user it belongs to, its ordering key.\n\n',
        "The one vocabulary of update kinds: the dispatcher (``event_chat``,\n",
        "``event_from_user``), the FSM (whose record) and the processing model (which updates\n",
        "run in order: ``tgfast.server.keys``) all read it. From the spec (an event's\n",
        "``chat``, ``from`` or ``user`` field) and ``tools/codegen/overrides/update_kinds.json``.\n",
        '"""\n\n',
        "from __future__ import annotations\n\n",
        "from collections.abc import Callable\n",
        "from operator import attrgetter\n",
        "from typing import TYPE_CHECKING, Any\n\n",
        *(["from ._types import Chat\n\n"] if private else []),
        "if TYPE_CHECKING:\n",
        *([] if private else ["    from ._types import Chat\n"]),
        "    from ._types import Update, User\n\n",
        "__all__ = [\n",
        *(
            f"    {n!r},\n"
            for n in sorted(
                [
                    "CHAT_READERS",
                    "EVENT_TYPES",
                    "KEY_READERS",
                    "UNKNOWN_KIND",
                    "UPDATE_KINDS",
                    "USER_READERS",
                    "chat_of",
                    "event_of",
                    "user_of",
                ]
            )
        ),  # fmt: skip
        "]\n\n",
        'UNKNOWN_KIND = "unknown"\n',
        '"""The kind of an update with none of the fields this version knows (a newer Bot API)."""\n\n',
        "UPDATE_KINDS: tuple[str, ...] = (\n",
        *(f"    {kd.kind!r},\n" for kd in kinds),
        ")\n",
        '"""The update kinds in the order of ``Update``\'s fields."""\n\n',
        "EVENT_TYPES: dict[str, str] = {\n",
        *(f"    {kd.kind!r}: {kd.event_type!r},\n" for kd in kinds),
        "}\n",
        '"""Update kind -> the name of its event\'s type."""\n',
    ]
    for lines in functions.values():
        out.extend(lines)
    out += [
        "\n\nCHAT_READERS: dict[str, Callable[[Any], Chat | None] | None] = {\n",
        *(f"    {kd.kind!r}: {_opt_reader(kd.chat, 'chat')},\n" for kd in kinds),
        "}\n",
        '"""Update kind -> how to read the chat its event belongs to (None: it has none)."""\n\n',
        "USER_READERS: dict[str, Callable[[Any], User | None] | None] = {\n",
        *(f"    {kd.kind!r}: {_opt_reader(kd.user, 'user')},\n" for kd in kinds),
        "}\n",
        '"""Update kind -> how to read the user its event comes from (None: it has none)."""\n\n',
        "KEY_READERS: dict[str, Callable[[Any], int | None]] = {\n",
        *(f"    {kd.kind!r}: {_key_name(kd)},\n" for kd in kinds),
        "}\n",
        '"""Update kind -> its event\'s ordering key: the chat\'s id, else the user\'s, else None."""\n',
        "\n\ndef event_of(update: Update) -> tuple[str, Any]:\n",
        '    """``(kind, event)`` of an update; ``("unknown", None)`` for a kind not known."""\n',
        '    for kind in UPDATE_KINDS:  # "message" first: one lookup for most updates\n',
        "        event = getattr(update, kind)\n",
        "        if event is not None:\n",
        "            return kind, event\n",
        "    return UNKNOWN_KIND, None\n",
        "\n\ndef chat_of(update: Update) -> Chat | None:\n",
        '    """The chat ``update`` belongs to, if any."""\n',
        "    kind, event = event_of(update)\n",
        "    reader = CHAT_READERS.get(kind)\n",
        "    return None if reader is None else reader(event)\n",
        "\n\ndef user_of(update: Update) -> User | None:\n",
        '    """The user ``update`` comes from, if any."""\n',
        "    kind, event = event_of(update)\n",
        "    reader = USER_READERS.get(kind)\n",
        "    return None if reader is None else reader(event)\n",
    ]
    return "".join(out)


def _opt_reader(src: Source | None, what: str) -> str:
    return "None" if src is None else _reader(src, what)


# --- tgfast/dispatcher/_kinds.py -----------------------------------------------------------


def render_observers(model: Model) -> str:
    """A typed observer for each update kind (``router.message``: ``Observer[Message]``)."""
    kinds = update_kinds(model)
    out = [
        HEADER.format(version=model.version, date=model.release_date),
        '"""The kinds of update (the optional fields of ``Update``), one observer each."""\n\n',
        "from __future__ import annotations\n\n",
        "from typing import TYPE_CHECKING\n\n",
        "from ..types.update_kinds import EVENT_TYPES, UPDATE_KINDS\n\n",
        "if TYPE_CHECKING:\n",
        "    from ..types import (\n",
        *(f"        {tp},\n" for tp in sorted({kd.event_type for kd in kinds})),
        "    )\n",
        "    from .observer import Observer\n\n",
        '__all__ = ["EVENT_TYPES", "UPDATE_KINDS", "UpdateObservers"]\n\n\n',
        "class UpdateObservers:\n",
        '    """The observer of each update kind on a router: ``@router.message(...)``."""\n\n',
        "    __slots__ = ()\n",
    ]
    for kd in kinds:
        out.append(f"\n    {kd.kind}: Observer[{kd.event_type}]\n")
        out.append(_docstring([kd.description], "    "))
    return "".join(out)


def render_kinds(model: Model) -> dict[str, str]:
    """Relative output path -> file text, for the update vocabulary."""
    return {
        "tgfast/types/update_kinds.py": render_update_kinds(model),
        "tgfast/dispatcher/_kinds.py": render_observers(model),
    }
