"""Print the client side of the model: method classes, the Bot's methods, shortcuts."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator, Sequence

from .model import MethodDef, Model, Param, Shortcut
from .render import (
    HEADER,
    WIDTH,
    _docstring,
    _field_annotation,
    _keep_extra,
    _tuple,
    annotation,
)

REQUEST_TIMEOUT_DOC = "seconds to wait for this call, instead of the session's timeout."


def class_name(method: str) -> str:
    """``sendMessage`` -> ``SendMessage``: the method object's class."""
    return method[0].upper() + method[1:]


def _ordered(params: list[Param], positional: Sequence[str] = ()) -> list[Param]:
    """Required parameters first (they may be passed by position), then the rest."""
    first = [p for p in params if p.required or p.name in positional]
    return first + [p for p in params if p not in first]


def _parameter(p: Param, model: Model) -> str:
    ann = annotation(p.tp, model)
    if p.required:
        return f"{p.attr}: {ann}"
    if p.name in model.defaults:
        return f"{p.attr}: {ann} | Default | None = Default({model.defaults[p.name]!r})"
    return f"{p.attr}: {ann} | None = None"


def _signature(
    params: list[Param], model: Model, extra: list[str], positional: Sequence[str] = ()
) -> str:
    """The parameter lines of a ``def`` after ``self``."""
    ordered = _ordered(params, positional)
    lines = [_parameter(p, model) for p in ordered if p.required or p.name in positional]
    optional = [_parameter(p, model) for p in ordered[len(lines) :]] + extra
    if optional and not optional[0].startswith("**"):
        lines.append("*")
    lines += optional
    return "".join(f"        {line},\n" for line in ["self", *lines])


def _method_doc(
    md: MethodDef, params: list[Param], indent: str, lead: list[str], request_timeout: bool = True
) -> str:
    """A docstring: ``lead`` and the method's description, its arguments, its link."""
    width = WIDTH - len(indent)

    def fill(text: str, first: str = "", rest: str = "") -> str:
        return textwrap.fill(
            text, width, initial_indent=first, subsequent_indent=rest,
            break_long_words=False, break_on_hyphens=False,
        )  # fmt: skip

    blocks = [fill(line) for line in [*lead, *md.description] if line.strip()]
    args = [fill(f"{p.attr}: {p.description}", "    ", "        ") for p in _ordered(params)]
    if request_timeout:
        args.append(fill(f"request_timeout: {REQUEST_TIMEOUT_DOC}", "    ", "        "))
    blocks += ["Args:\n" + "\n".join(args)] if args else []
    blocks.append(f"Bot API: {md.href}")
    body = "\n\n".join(blocks).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return f'{indent}"""{textwrap.indent(body, indent).strip()}\n{indent}"""\n'


def _returns(md: MethodDef, model: Model) -> str:
    return annotation(md.returns, model)


# --- tgfast/methods/_methods.py ------------------------------------------------------


def _method_class(md: MethodDef, model: Model) -> Iterator[str]:
    name = class_name(md.name)
    # quoted: the types are imported for type checkers only (see render_method_classes)
    yield f'\n\nclass {name}(TelegramMethod["{_returns(md, model)}"]):\n'
    yield _docstring([*md.description, f"Bot API: {md.href}"], "    ")
    yield "\n"
    yield f"    __slots__ = {_tuple([repr(p.attr) for p in md.params], '    ')}\n"
    yield f"    __api_method__ = {md.name!r}\n"
    yield f"    __returns__ = {md.returns!r}\n"
    uploads = any(model.carries_files(p.tp) for p in md.params)
    yield f"    __uploads__ = {uploads!r}\n"
    rows = [f"({p.name!r}, {p.attr!r}, {p.tp!r}, {p.required!r})" for p in md.params]
    yield f"    __tg_fields__ = {_tuple(rows, '    ')}\n"
    defaults = {p.attr: model.defaults[p.name] for p in md.params if p.name in model.defaults}
    if defaults:
        yield f"    __tg_defaults__ = {defaults!r}\n"
    yield "\n"
    for p in md.params:
        ann = annotation(p.tp, model)
        if not p.required:
            ann += " | Default | None" if p.name in model.defaults else " | None"
        yield f"    {p.attr}: {ann}\n"
    # keywords the method does not know are kept and sent, as aiogram's method objects
    # keep them (a parameter of a later Bot API); the Bot's methods and the shortcuts
    # never call __init__, so this costs their path nothing
    yield "\n    def __init__(\n"
    yield "        self,\n"
    if md.params:
        yield "        *,\n"
        yield "".join(f"        {_parameter(p, model)},\n" for p in _ordered(md.params))
    yield "        **extra: Any,\n"
    yield "    ) -> None:\n"
    for p in md.params:
        yield f"        self.{p.attr} = {p.attr}\n"
    yield from _keep_extra()
    yield "        self._bot = None\n"
    yield from _build(md, model)


def _build(md: MethodDef, model: Model) -> Iterator[str]:
    """``build`` written out for this method: the generic one in ``TelegramMethod``
    loops over ``__tg_fields__`` with ``getattr`` and costs ~4x as much on the path of
    every ``await message.answer(...)``. tests/test_generated.py holds the two equal."""
    yield "\n    def build(self, defaults: DefaultBotProperties | None = None) -> dict[str, Any]:\n"
    yield '        """The parameters as sent (see ``TelegramMethod.build``)."""\n'
    required = [p for p in md.params if p.required]
    items = ", ".join(f"{p.name!r}: self.{p.attr}" for p in required)
    yield f"        params: dict[str, Any] = {{{items}}}\n"
    for p in md.params:
        if p.required:
            continue
        if p.name in model.defaults:
            yield f"        {p.attr} = self.{p.attr}\n"
            # .__class__, not type(): a parameter may be called ``type`` (sendPoll)
            yield f"        if {p.attr}.__class__ is Default:\n"
            yield (
                f"            {p.attr} = None if defaults is None "
                f"else defaults.{model.defaults[p.name]}\n"
            )
            yield f"        if {p.attr} is not None:\n"
            yield f"            params[{p.name!r}] = {p.attr}\n"
        else:
            yield f"        if self.{p.attr} is not None:\n"
            yield f"            params[{p.name!r}] = self.{p.attr}\n"
    yield "        if self._extra:\n"
    yield "            self._send_extra(params)\n"
    yield "        return params\n"


def render_method_classes(model: Model) -> str:
    out = [
        HEADER.format(version=model.version, date=model.release_date),
        '"""Every Bot API method as an object: ``await bot(SendMessage(...))``."""\n\n',
        "from __future__ import annotations\n\n",
        "from typing import TYPE_CHECKING, Any\n\n",
        "from ..defaults import Default, DefaultBotProperties\n",
        "from ..types.base import keep_extra\n",
        "from .base import TelegramMethod\n\n",
        "if TYPE_CHECKING:  # annotations only: _types imports the shortcuts, which import this\n",
        "    from ..types._types import *  # noqa: F403\n\n",
        "__all__ = [\n",
        *(f"    {class_name(n)!r},\n" for n in sorted(model.methods, key=class_name)),
        "]\n",
    ]
    for md in model.methods.values():
        out.extend(_method_class(md, model))
    out.append("\n\nMETHOD_CLASSES: dict[str, type[TelegramMethod[Any]]] = {\n")
    out.extend(f"    {n!r}: {class_name(n)},\n" for n in model.methods)
    out.append("}\n")
    return "".join(out)


# --- tgfast/client/_api.py -------------------------------------------------------------


def _params_body(params: list[Param], model: Model, given: dict[str, str]) -> Iterator[str]:
    """Build ``params``: required and bound values always, optional ones when not None."""
    fixed = [p for p in params if p.required or p.name in given]
    items = ", ".join(f"{p.name!r}: {given.get(p.name, p.attr)}" for p in fixed)
    yield f"        params: dict[str, Any] = {{{items}}}\n"
    for p in params:
        if p in fixed:
            continue
        if p.name in model.defaults:
            yield f"        if {p.attr}.__class__ is Default:\n"
            yield f"            {p.attr} = self.defaults.{model.defaults[p.name]}\n"
        yield f"        if {p.attr} is not None:\n"
        yield f"            params[{p.name!r}] = {p.attr}\n"


def _bot_method(md: MethodDef, model: Model) -> Iterator[str]:
    yield f"\n    async def {md.attr}(\n"
    yield _signature(md.params, model, ["request_timeout: float | None = None"], md.positional)
    yield f"    ) -> {_returns(md, model)}:\n"
    yield _method_doc(md, md.params, "        ", [])
    yield from _params_body(md.params, model, {})
    uploads = any(model.carries_files(p.tp) for p in md.params)
    tail = ", uploads=True" if uploads else ""
    yield (
        f"        return await self._call({md.name!r}, params, {_returns_name(md.returns)}, "
        f"request_timeout{tail})\n"
    )


def _returns_name(returns: str) -> str:
    """``"[Message]"`` -> ``_R_list_Message``: the typed constant for a result type."""
    return "_R_" + returns.replace("[", "list_").replace("]", "").replace("|", "_or_")


def render_bot_api(model: Model) -> str:
    results = sorted({md.returns for md in model.methods.values()})
    out = [
        HEADER.format(version=model.version, date=model.release_date),
        '"""One ``async`` method on ``Bot`` for each Bot API method."""\n\n',
        "from __future__ import annotations\n\n",
        "from typing import TYPE_CHECKING, Any, TypeVar\n\n",
        "from ..defaults import Default, DefaultBotProperties\n",
        "from ..methods.base import Returns\n\n",
        "if TYPE_CHECKING:\n",
        "    from ..types._types import *  # noqa: F403\n\n",
        '__all__ = ["BotAPI"]\n\n',
        'T = TypeVar("T")\n\n',
        "# each result type once, typed with what it decodes to: _call returns that type\n",
        *(
            f"{_returns_name(r)}: Returns[{annotation(r, model)}] = Returns({r!r})\n"
            for r in results
        ),
        "\n\n",
        "class BotAPI:\n",
        '    """The generated half of ``Bot``: it builds parameters, ``Bot._call`` sends them."""\n\n',
        "    __slots__ = ()\n\n",
        "    defaults: DefaultBotProperties\n\n",
        "    async def _call(\n",
        "        self,\n        method: str,\n        params: dict[str, Any],\n",
        "        returns: Returns[T],\n        request_timeout: float | None = None,\n",
        "        uploads: bool = False,\n    ) -> T:\n",
        "        raise NotImplementedError\n",
    ]
    for md in model.methods.values():
        out.extend(_bot_method(md, model))
    return "".join(out)


# --- tgfast/types/_shortcuts.py ---------------------------------------------------------


def shortcut_owners(model: Model) -> list[str]:
    return list(dict.fromkeys(sc.owner for sc in model.shortcuts))


def _read_fields(owner: str, model: Model) -> Iterator[str]:
    """Declarations, for type checkers, of the fields of ``owner`` its shortcuts read."""
    read = {
        name
        for sc in model.shortcuts
        if sc.owner == owner
        for expr in sc.bind.values()
        if expr is not None
        for name in re.findall(r"\bself\.(\w+)", expr)
    }
    fields = {f.attr: f for f in model.types[owner].fields}
    if read:
        yield f"\n    if TYPE_CHECKING:  # the fields of {owner} that these shortcuts read\n"
        for name in sorted(read):
            if name in fields:
                yield f"        {name}: {_field_annotation(fields[name], model)}\n"
            else:  # a helper method of the type (tgfast.types.helpers)
                yield f"        def {name}(self) -> Any: ...\n"


def _shortcut(sc: Shortcut, model: Model) -> Iterator[str]:
    """A plain method that returns the method object, bound to the object's bot:
    ``await message.answer("hi")`` sends it, ``return message.answer("hi")`` from a
    handler has the dispatcher send it (as the webhook answer, in reply mode)."""
    md = model.methods[sc.method]
    cls = class_name(md.name)
    offered = [p for p in md.params if p.name not in sc.bind]
    yield f"\n    def {sc.name}(\n"
    # **kwargs: what aiogram's shortcuts pass on to the method object (a parameter this
    # shortcut does not offer, a keyword the method does not know)
    yield _signature(offered, model, ["**kwargs: Any"], md.positional)
    yield f"    ) -> {cls}:\n"
    bound = ", ".join(name for name, expr in sc.bind.items() if expr is not None)
    lead = [sc.doc, _shortcut_lead(cls, bound)]
    yield _method_doc(md, offered, "        ", lead, request_timeout=False)
    yield from _required_fields(sc, md, model)
    # every slot stored directly: calling __init__ with every parameter by keyword costs
    # ~3x as much, on the path of every ``message.answer(...)``
    yield f"        method = object.__new__(_methods.{cls})\n"
    for p in md.params:
        value = (sc.bind[p.name] or "None") if p.name in sc.bind else p.attr
        yield f"        method.{p.attr} = {value}\n"
    yield "        method._extra = None\n"
    yield "        method._bot = self._bot or current_bot.get()\n"
    filled = tuple(p.attr for p in md.params if sc.bind.get(p.name) is not None)
    yield "        if kwargs:\n"
    yield f"            method._take_keywords(kwargs, {filled!r}, {sc.owner + '.' + sc.name!r})\n"
    yield "        return method\n"


def _required_fields(sc: Shortcut, md: MethodDef, model: Model) -> Iterator[str]:
    """A required parameter bound to an optional field (``guest_query_id``): a clear
    error when this object lacks it, instead of a call Telegram refuses."""
    fields = {f.attr: f for f in model.types[sc.owner].fields}
    for p in md.params:
        match = re.fullmatch(r"self\.(\w+)(?:\.\w+)?", sc.bind.get(p.name) or "")
        if p.required and match and not fields[match.group(1)].required:
            attr = match.group(1)
            yield f"        if self.{attr} is None:\n"
            yield f'            raise MissingFieldError("this {sc.owner} has no {attr}: {sc.name}() needs one")\n'


def _shortcut_lead(cls: str, bound: str) -> str:
    taken = f", with {bound} taken from here" if bound else ""
    return f"Returns ``{cls}``{taken}; bound to this object's bot: ``await`` it to send it."


def render_shortcuts(model: Model) -> str:
    mixins = model.shortcut_mixins
    out = [
        HEADER.format(version=model.version, date=model.release_date),
        '"""Shortcut methods of the types (``message.answer(...)``), as mixins.\n\n',
        "Each returns a method object bound to the object's bot, as aiogram's do.\n",
        '"""\n\n',
        "from __future__ import annotations\n\n",
        "from typing import TYPE_CHECKING, Any\n\n",
        "from ..defaults import Default\n",
        "from ..errors import MissingFieldError\n",
        "from ..methods import _methods  # read at call time: _methods imports this package\n",
        "from . import _types  # bound at call time: _types imports this module\n",
        "from .binding import current_bot\n",
        *(
            f"from .{module} import {name}\n"
            for module, name in sorted(m.split(":") for m in mixins.values())
        ),
        "\nif TYPE_CHECKING:\n",
        "    from ..methods._methods import *  # noqa: F403\n",
        "    from ._types import *  # noqa: F403\n\n",
        "__all__ = [\n",
        *(f"    {o + 'Shortcuts'!r},\n" for o in sorted(shortcut_owners(model))),
        "]\n",
    ]
    for owner in shortcut_owners(model):
        base = f"({mixins[owner].split(':')[1]})" if owner in mixins else ""
        out.append(f"\n\nclass {owner}Shortcuts{base}:\n")
        out.append(f'    """Methods of ``{owner}`` that make Bot API calls for it."""\n\n')
        out.append("    __slots__ = ()\n")
        out.append("    _bot: Any\n")
        out.extend(_read_fields(owner, model))
        for sc in model.shortcuts:
            if sc.owner == owner:
                out.extend(_shortcut(sc, model))
    return "".join(out)


def render_client(model: Model) -> dict[str, str]:
    """Relative output path -> file text, for the client side."""
    return {
        "tgfast/methods/_methods.py": render_method_classes(model),
        "tgfast/client/_api.py": render_bot_api(model),
        "tgfast/types/_shortcuts.py": render_shortcuts(model),
    }
