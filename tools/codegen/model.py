"""Read the Bot API spec and the override files into a model the renderers print.

Everything the spec cannot say (keyword renames, unions without a discriminator,
enum sources) lives in ``overrides/*.json`` beside this file; anything the model
cannot place is an error here, never a silent guess in the output.
"""

from __future__ import annotations

import json
import keyword
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OVERRIDES = Path(__file__).with_name("overrides")

PRIMITIVES = {
    "Integer": "int",
    "String": "str",
    "Boolean": "bool",
    "Float": "float",
    "True": "true",
    "InputFile": "InputFile",
}
DISCRIMINATOR_KEYS = ("type", "status", "source")
_CONSTANT = re.compile(r"(?:always|must be) [\"“]?([A-Za-z0-9_]+)[\"”]?")
_QUOTED = re.compile(r"[\"“]([^\"”]+)[\"”]")


class SpecError(Exception):
    """The spec and the overrides disagree: fix the override, not the output."""


@dataclass
class Field:
    key: str
    attr: str
    tp: str  # the type language of tgfast.types.base
    required: bool
    description: str
    default: str | None = None  # a constant the class fills in (union discriminators)
    bot_default: str | None = None  # the DefaultBotProperties attribute it defaults to


@dataclass
class TypeDef:
    name: str
    href: str
    description: list[str]
    fields: list[Field] = field(default_factory=list)
    bases: list[str] = field(default_factory=list)
    is_union: bool = False
    union: dict[str, Any] | None = None  # rendered into a UnionRule


@dataclass
class Param:
    name: str
    attr: str
    tp: str
    required: bool
    description: str


@dataclass
class MethodDef:
    name: str
    href: str
    description: list[str]
    returns: str
    params: list[Param]
    attr: str = ""  # the Python name of the method on Bot
    positional: list[str] = field(default_factory=list)  # optional, yet passed by position


@dataclass
class EnumDef:
    name: str
    doc: str
    members: list[tuple[str, str | int]]  # (member name, value)


@dataclass
class Shortcut:
    owner: str  # the type that gets the method
    name: str
    method: str  # the Bot API method it calls
    bind: dict[str, str | None]  # parameter -> expression over self (None: not offered)
    doc: str


@dataclass
class Model:
    version: str
    release_date: str
    types: dict[str, TypeDef]
    methods: dict[str, MethodDef]
    enums: list[EnumDef]
    defaults: dict[str, str] = field(default_factory=dict)  # parameter -> bot default
    shortcuts: list[Shortcut] = field(default_factory=list)
    shortcut_mixins: dict[str, str] = field(default_factory=dict)  # owner -> "module:Class"
    helpers: dict[str, str] = field(default_factory=dict)  # type -> mixin of tgfast.types.helpers

    def carries_files(self, expr: str, _seen: frozenset[str] = frozenset()) -> bool:
        """Whether a value of this type may hold an ``InputFile`` (then uploads are possible)."""
        for alt in re.split(r"[\[\]|]", expr):
            if alt == "InputFile":
                return True
            td = self.types.get(alt)
            if td is None or alt in _seen:
                continue
            members = (td.union or {}).get("members", []) if td.is_union else []
            seen = _seen | {alt}
            if any(self.carries_files(f.tp, seen) for f in td.fields) or any(
                self.carries_files(m, seen) for m in members
            ):
                return True
        return False


def _load_override(name: str) -> dict[str, Any]:
    data = json.loads((OVERRIDES / name).read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


def type_expr(spec_types: list[str]) -> str:
    """Spec type strings -> the type language (``["Integer", "String"]`` -> ``int|str``)."""
    alternatives = [_one_type(t) for t in spec_types]
    if len(alternatives) > 1 and all(a.startswith("[") for a in alternatives):
        # "Array of A, Array of B" means one array whose items may be any of them.
        return "[" + "|".join(a[1:-1] for a in alternatives) + "]"
    return "|".join(alternatives)


def _one_type(spec_type: str) -> str:
    if spec_type.startswith("Array of "):
        return "[" + _one_type(spec_type[len("Array of ") :]) + "]"
    return PRIMITIVES.get(spec_type, spec_type)


def _field_type(f: dict[str, Any]) -> str:
    """A String field that takes ``attach://<name>`` holds a file to upload (its JSON
    form is still a string): typed ``InputFile`` so that uploads find it."""
    tp = type_expr(f["types"])
    if tp == "str" and "attach://" in f.get("description", ""):
        return "InputFile"
    return tp


# What every TelegramObject has (tgfast/types/base.py): no field may shadow it.
RESERVED = frozenset(
    ("to_dict", "_extra", "_bot", "bot", "as_", "model_dump", "model_dump_json")
    + ("model_copy", "model_validate", "model_validate_json", "model_fields", "model_extra")
)


def _attr_name(key: str, renames: dict[str, str]) -> str:
    name = renames.get(key, key)
    if keyword.iskeyword(name) or name in RESERVED:
        raise SpecError(f"field {key!r} needs a Python name in overrides/names.json")
    return name


def _text(description: str | list[str]) -> list[str]:
    return [description] if isinstance(description, str) else list(description)


def _add_legacy_types(spec: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """The spec plus the types and fields the Bot API removed that aiogram keeps."""
    types = dict(spec["types"])
    for name, o in overrides.get("types", {}).items():
        if name in types:
            raise SpecError(f"overrides/legacy_types.json: {name} is in the spec again")
        href = f"https://core.telegram.org/bots/api#{name.lower()}"
        types[name] = {"name": name, "href": href, **o}
    for ref, o in overrides.get("fields", {}).items():
        owner, _, key = ref.partition(".")
        fields = list(types[owner]["fields"])
        names = [f["name"] for f in fields]
        if key in names or o["after"] not in names:
            raise SpecError(f"overrides/legacy_types.json: {ref} is in the spec, or has no place")
        entry = {
            "name": key,
            "types": o["types"],
            "required": False,
            "description": o["description"],
        }
        fields.insert(names.index(o["after"]) + 1, entry)
        types[owner] = {**types[owner], "fields": fields}
    return {**spec, "types": types}


def build_model(spec: dict[str, Any]) -> Model:
    spec = _add_legacy_types(spec, _load_override("legacy_types.json"))
    renames = _load_override("names.json")
    union_overrides = _load_override("unions.json")
    types: dict[str, TypeDef] = {}
    for name, raw in spec["types"].items():
        td = TypeDef(name, raw["href"], _text(raw.get("description", [])))
        if "subtypes" in raw:
            td.is_union = True
        for f in raw.get("fields", []):
            td.fields.append(
                Field(
                    key=f["name"],
                    attr=_attr_name(f["name"], renames),
                    tp=_field_type(f),
                    required=f["required"],
                    description=f.get("description", ""),
                )
            )
        types[name] = td
    subtypes = {name: raw["subtypes"] for name, raw in spec["types"].items() if "subtypes" in raw}
    subtypes.update(_field_unions(types, union_overrides))
    for name, members in subtypes.items():
        types[name].union = _union_rule(name, members, types, union_overrides)
    unused = set(union_overrides) - {n for n, t in types.items() if t.is_union}
    if unused:
        raise SpecError(f"overrides/unions.json names unknown unions: {sorted(unused)}")
    methods = {
        name: MethodDef(
            name=name,
            href=raw["href"],
            description=_text(raw.get("description", [])),
            returns=type_expr(raw["returns"]),
            params=[
                Param(
                    f["name"],
                    _attr_name(f["name"], renames),
                    type_expr(f["types"]),
                    f["required"],
                    f.get("description", ""),
                )
                for f in raw.get("fields", [])
            ],
        )
        for name, raw in spec["methods"].items()
    }
    _add_legacy_params(methods, _load_override("legacy_params.json"))
    method_names = _load_override("method_names.json")
    positional = _load_override("positional.json")
    for md in methods.values():
        md.attr = method_names.get(md.name) or snake(md.name)
        md.positional = positional.pop(md.name, [])
        if set(md.positional) - {p.name for p in md.params}:
            raise SpecError(f"overrides/positional.json: {md.name} lacks {md.positional}")
    if positional or set(method_names) - set(methods):
        raise SpecError("overrides name methods the spec does not have")
    _mark_dates(types, methods, _load_override("dates.json"))
    model = Model(spec["version"], spec["release_date"], types, methods, [])
    model.enums = _enums(model, _load_override("enums.json"))
    model.defaults = _defaults(model, _load_override("defaults.json"))
    _type_defaults(model, _load_override("type_defaults.json"))
    shortcut_overrides = _load_override("shortcuts.json")
    model.shortcuts = _shortcuts(model, shortcut_overrides)
    model.shortcut_mixins = dict(shortcut_overrides.get("mixins", {}))
    if set(model.shortcut_mixins) - {sc.owner for sc in model.shortcuts}:
        raise SpecError("overrides/shortcuts.json: a mixin for a type without shortcuts")
    model.helpers = _load_override("helpers.json")
    if set(model.helpers) - set(types):
        raise SpecError("overrides/helpers.json names types the spec does not have")
    for ref, value in _load_override("constants.json").items():
        owner, _, key = ref.partition(".")
        fld = next((f for f in types[owner].fields if f.key == key and f.required), None)
        if fld is None:
            raise SpecError(f"overrides/constants.json: {ref} is not a required field")
        _set_default(fld, value, owner)
    return model


def _field_unions(types: dict[str, TypeDef], overrides: dict[str, Any]) -> dict[str, list[str]]:
    """A field that takes one of several types the spec does not name as a union (Bot
    API 10.3's ``InputRichMessageMedia.media``) gets a union named in unions.json (the
    name aiogram gives it), so that its value decodes by its discriminator."""
    named = {o["field"]: name for name, o in overrides.items() if "field" in o}
    out: dict[str, list[str]] = {}
    for owner, td in list(types.items()):
        for f in td.fields:
            bare = f.tp.strip("[]")
            alts = bare.split("|")
            if len(alts) < 2 or not all(a in types and not types[a].is_union for a in alts):
                continue
            ref = f"{owner}.{f.key}"
            name = named.pop(ref, None)
            if name is None:
                raise SpecError(f"{ref} takes one of {alts}: name its union in unions.json")
            types[name] = TypeDef(name, td.href, [f"One of the types {ref} takes."])
            types[name].is_union = True
            out[name] = alts
            f.tp = f.tp.replace(bare, name)
    if named:
        raise SpecError(f"overrides/unions.json: no field takes several types at {sorted(named)}")
    return out


def _add_legacy_params(methods: dict[str, MethodDef], overrides: dict[str, Any]) -> None:
    """Append the parameters Telegram still accepts though the spec dropped them."""
    for name, o in overrides.items():
        for method in o["methods"]:
            md = methods.get(method)
            if md is None or any(p.name == name for p in md.params):
                raise SpecError(f"overrides/legacy_params.json: {method}.{name} is unknown or kept")
            doc = f"{o['description']}. Deprecated: use {o['instead']} (Telegram still accepts it)"
            md.params.append(Param(name, name, type_expr([o["type"]]), False, doc))


def _mark_dates(
    types: dict[str, TypeDef], methods: dict[str, MethodDef], overrides: dict[str, Any]
) -> None:
    """Type the Unix-time fields and parameters of ``dates.json`` as ``date``."""
    for ref in [*overrides["fields"], *overrides["not_dates"]]:
        owner, _, key = ref.partition(".")
        td, md = types.get(owner), methods.get(owner)
        fields: list[Any] = td.fields if td else md.params if md else []
        found = [f for f in fields if getattr(f, "key", getattr(f, "name", None)) == key]
        if len(found) != 1 or found[0].tp != "int":
            raise SpecError(f"overrides/dates.json: {ref} is not an Integer field or parameter")
        if ref in overrides["fields"]:
            found[0].tp = "date"


def snake(name: str) -> str:
    """``sendVideoNote`` -> ``send_video_note``: a method's Python name."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _defaults(model: Model, overrides: dict[str, str]) -> dict[str, str]:
    params = {p.name for md in model.methods.values() for p in md.params}
    unknown = sorted(set(overrides) - params)
    if unknown:
        raise SpecError(f"overrides/defaults.json names no parameter of any method: {unknown}")
    return overrides


def _type_defaults(model: Model, overrides: dict[str, str]) -> None:
    """Mark the fields that take a bot default, in the types a call can carry."""
    sent: set[str] = set()
    pending = [p.tp for md in model.methods.values() for p in md.params]
    while pending:
        for alt in re.split(r"[\[\]|]", pending.pop()):
            td = model.types.get(alt)
            if td is None or alt in sent:
                continue
            sent.add(alt)
            pending += [f.tp for f in td.fields]
            pending += (td.union or {}).get("members", []) if td.is_union else []
    used: set[str] = set()
    for name in sorted(sent):
        for f in model.types[name].fields:
            for key in (f"{name}.{f.key}", f.key):
                if key in overrides:
                    f.bot_default = overrides[key]
                    used.add(key)
                    break
    unused = sorted(set(overrides) - used)
    if unused:
        raise SpecError(f"overrides/type_defaults.json names no field of a sent type: {unused}")


def _shortcuts(model: Model, overrides: dict[str, Any]) -> list[Shortcut]:
    out: list[Shortcut] = []
    for fam in overrides.get("families", []):
        requires = set(fam.get("requires", fam["bind"]))
        for md in model.methods.values():
            names = {p.name for p in md.params}
            if (
                md.name.startswith(fam["prefix"])
                and md.returns in fam["returns"]
                and requires <= names
                and md.name not in fam.get("exclude", ())
            ):
                rest = fam.get("names", {}).get(md.name) or snake(md.name[len(fam["prefix"]) :])
                name = (
                    fam["plain"]
                    if md.name == fam["plain_method"]
                    else fam["name"].format(rest=rest)
                )
                bind = {k: v for k, v in fam["bind"].items() if k in names}
                out.append(Shortcut(fam["owner"], name, md.name, bind, fam["doc"]))
    for owner, entries in overrides.get("shortcuts", {}).items():
        for name, o in entries.items():
            out.append(Shortcut(owner, name, o["method"], o["bind"], o["doc"]))
    # a type that stands for another (ChatFullInfo, what getChat returns, for Chat) takes
    # its shortcuts too, as aiogram's subclass does
    for owner, source in overrides.get("same_as", {}).items():
        out += [
            Shortcut(owner, sc.name, sc.method, dict(sc.bind), sc.doc)
            for sc in list(out)
            if sc.owner == source
        ]
    seen: set[tuple[str, str]] = set()
    for sc in out:
        td = model.types.get(sc.owner)
        md = model.methods.get(sc.method)
        if td is None or md is None:
            raise SpecError(f"overrides/shortcuts.json: {sc.owner}.{sc.name} -> {sc.method}?")
        missing = set(sc.bind) - {p.name for p in md.params}
        if missing:
            raise SpecError(f"{sc.owner}.{sc.name}: {sc.method} has no {sorted(missing)}")
        if (sc.owner, sc.name) in seen or sc.name in {f.attr for f in td.fields}:
            raise SpecError(f"{sc.owner}.{sc.name} is defined twice or shadows a field")
        seen.add((sc.owner, sc.name))
    return out


def _union_rule(
    name: str, subtypes: list[str], types: dict[str, TypeDef], overrides: dict[str, Any]
) -> dict[str, Any]:
    rule: dict[str, Any] = {"allow_str": False, "allow_list": False}
    members = []
    for sub in subtypes:
        if sub == "String":
            rule["allow_str"] = True
        elif sub == f"Array of {name}":
            rule["allow_list"] = True
        elif sub in types and not types[sub].is_union:
            members.append(sub)
            types[sub].bases.append(name)
        else:
            raise SpecError(f"union {name}: cannot place member {sub!r}")
    rule["members"] = members
    detected = _detect_discriminator(name, members, types)
    o = {k: v for k, v in overrides.get(name, {}).items() if k != "field" and k[0] != "_"}
    if "presence" in o:
        for key, cls in o["presence"]:
            if cls not in members or key not in {f.key for f in types[cls].fields}:
                raise SpecError(f"overrides/unions.json {name}: {cls}.{key} does not exist")
        rule["presence"] = [tuple(p) for p in o["presence"]]
    if "key" in o:
        convert = int if o.get("key_type") == "int" else str
        rule["key"] = o["key"]
        rule["variants"] = {convert(v): cls for v, cls in o["variants"].items()}
        rule["default"] = o.get("default")
    elif detected is not None and (not o or o.get("then_discriminator")):
        key, pairs = detected
        taken = {cls for _, cls in rule.get("presence", [])}
        variants: dict[str, str] = {}
        for value, sub in pairs:
            if sub in taken:
                continue
            if value in variants:
                raise SpecError(f"union {name}: {variants[value]} and {sub} share {key}={value!r}")
            variants[value] = sub
        rule["key"] = key
        rule["variants"] = variants
    if "key" not in rule and "presence" not in rule:
        raise SpecError(f"union {name} has no discriminator: describe it in overrides/unions.json")
    return rule


def _detect_discriminator(
    name: str, members: list[str], types: dict[str, TypeDef]
) -> tuple[str, list[tuple[str, str]]] | None:
    """The key whose description gives every member a constant, and those constants.

    The constants also become the defaults of the members' ``__init__``.
    """
    for key in DISCRIMINATOR_KEYS:
        pairs = []
        for sub in members:
            fld = next((f for f in types[sub].fields if f.key == key), None)
            match = _CONSTANT.search(fld.description) if fld else None
            if fld is None or match is None:
                break
            pairs.append((match.group(1), sub, fld))
        else:
            for value, sub, fld in pairs:
                _set_default(fld, value, sub)
            return key, [(value, sub) for value, sub, _ in pairs]
    return None


def _set_default(fld: Field, value: str | bool, owner: str) -> None:
    if fld.default is not None and fld.default != repr(value):
        raise SpecError(f"{owner}.{fld.key} has two constants: {fld.default} and {value!r}")
    fld.default = repr(value)


def _field_description(model: Model, ref: str) -> str:
    owner, _, name = ref.partition(".")
    fields: list[Any] = (
        model.types[owner].fields if owner in model.types else model.methods[owner].params
    )
    for f in fields:
        if getattr(f, "key", getattr(f, "name", None)) == name:
            return str(f.description)
    raise SpecError(f"overrides/enums.json: no field {ref}")


def _member_name(value: str) -> str:
    name = re.sub(r"[^0-9A-Za-z]+", "_", value).strip("_").upper()
    if not name or name[0].isdigit():
        raise SpecError(f"enum value {value!r} needs a name in overrides/enums.json")
    return name


def _enums(model: Model, overrides: dict[str, Any]) -> list[EnumDef]:
    out = []
    for name, o in overrides.items():
        names: dict[str, str] = o.get("names", {})
        if "fields_of" in o:
            keys = [f.key for f in model.types[o["fields_of"]].fields]
            if "after" in o:
                keys = keys[keys.index(o["after"]) :]
            values = [k for k in keys if k not in o.get("exclude", [])]
            doc = f"The optional fields of {o['fields_of']} that name its kind."
        elif "quoted" in o:
            values = list(dict.fromkeys(_QUOTED.findall(_field_description(model, o["quoted"]))))
            doc = f"Values of {o['quoted']}."
        elif "union" in o:
            union = model.types[o["union"]].union or {}
            values = list(dict.fromkeys(union.get("variants", {})))
            doc = f"The {union.get('key')} values of {o['union']}."
        else:
            raw = o["values"]
            if isinstance(raw, dict):
                names = {v: k for k, v in raw.items()}
                values = list(raw.values())
            else:
                values = list(raw)
            if "check_in" in o:
                text = _field_description(model, o["check_in"])
                missing = [v for v in values if str(v) not in text]
                if missing:
                    raise SpecError(f"enum {name}: {missing} not in {o['check_in']}")
            doc = f"Values of {o.get('check_in', name)}."
        if not values:
            raise SpecError(f"enum {name} found no values")
        members = [(names.get(v) or _member_name(v), v) for v in values]
        members += [(member, value) for member, value in o.get("also", {}).items()]
        out.append(EnumDef(name, doc, members))
    return out


def load(spec_path: Path) -> Model:
    return build_model(json.loads(spec_path.read_text(encoding="utf-8")))
