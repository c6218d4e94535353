"""The layers of ``ARCHITECTURE.md``, kept true: what may import what.

``FLOORS`` lists tgfast's modules bottom up. A module may import, at its top, modules of
its own floor or of a floor below; an import upwards (a back-edge) must be inside a
function or under ``TYPE_CHECKING`` and listed in ``BACK_EDGES`` with its reason, and a
listed back-edge that the code no longer has must leave the list. aiogram's path shims
(``tgfast._aiogram.SHIM_MODULES``) stand outside the floors: they only re-export (their
own test), and no module of tgfast imports one. Only ``tgfast/redis/`` talks to Redis.

The test reads the sources with ``ast`` (``.pyx`` files line by line), so it runs once,
whichever build is under test; ``test_a_planted_back_edge_fails`` runs the same checker
on a small package written for the occasion.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from tgfast._aiogram import SHIM_MODULES

# the source tree (the .pyx sources are not installed), whichever build is under test
TGFAST = Path(__file__).resolve().parents[1] / "tgfast"
# a property of the sources, not of the build: once
pytestmark = pytest.mark.once

FLOORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundation", (
        "tgfast._logging", "tgfast.errors", "tgfast.backoff", "tgfast.defaults",
        "tgfast.tasks", "tgfast._aiogram",
        "tgfast.logs", "tgfast.tracing",  # log records' and spans' update fields, set per update
    )),
    ("data model", (
        "tgfast.types", "tgfast.methods",
        "tgfast.utils.text_decorations",  # message.html_text renders through it
    )),
    ("decoding", ("tgfast._speedups", "tgfast.decoding")),
    ("client, filters, fsm", (
        "tgfast.client", "tgfast.filters", "tgfast.fsm", "tgfast.deep_linking",
        "tgfast.utils.link", "tgfast.utils.token",  # the client and deep links use them
    )),
    ("dispatcher", (
        "tgfast.dispatcher",
        "tgfast._speedups._routing", "tgfast._speedups._routing_py",  # the routing table
        "tgfast.fsm.scene",  # a scene is a router
    )),
    ("server", (
        "tgfast.server",
        "tgfast.utils.album",  # AlbumMiddleware and the AlbumStore that redis implements
    )),
    ("redis", ("tgfast.redis",)),
    ("utilities", ("tgfast.utils", "tgfast.webhook", "tgfast.testing")),
    ("entry points", ("tgfast", "tgfast.cli", "tgfast.__main__")),
)  # fmt: skip
"""Bottom up; a module belongs to the floor of its longest listed prefix."""

_TC = "TYPE_CHECKING: an annotation, never imported at run time"
_LAZY = "function-level: imported when called, after every module is loaded"
_RUN = "aiogram's Dispatcher.start_polling/run_polling run the server's Poller"
BACK_EDGES: dict[tuple[str, str], str] = {
    ("tgfast.defaults", "tgfast.types"): "LinkPreviewOptions built from aiogram's "
    "link_preview_* flags; the types' defaults import DEFAULT from here",
    ("tgfast.types.base", "tgfast.client"): _TC + " (the bot an object is bound to)",
    ("tgfast.types.base", "tgfast.decoding"): _LAZY + " (model_validate and a dict given "
    "to a constructor decode: the decoder builds these types)",
    ("tgfast.types.binding", "tgfast.client"): _TC + " (the bot a shortcut calls)",
    ("tgfast.methods.base", "tgfast.client"): _TC + " (the bot that sends a method)",
    ("tgfast.methods.base", "tgfast._speedups._decode_shared"): _LAZY + " (a method declared "
    "as aiogram's are: its __returning__ type read as a type expression, as the decoder reads "
    "types)",
    ("tgfast.dispatcher.dispatcher", "tgfast.server.runner"): _RUN,
    ("tgfast.dispatcher.start_polling", "tgfast.server.polling"): _RUN,
    ("tgfast.dispatcher.start_polling", "tgfast.server.processing"): _RUN,
    ("tgfast._speedups._intake_py", "tgfast.server.webhook"): _TC + " (the server whose "
    "requests the protocol takes)",
    ("tgfast.server.serve", "tgfast.redis"): _LAZY + " (serve() wires the workers' shared "
    "Redis parts only when a Redis URL is configured)",
    ("tgfast.server.metrics", "tgfast"): _LAZY + " (the version and build in tgfast_build_info)",
    # logs and tracing sit low so that the server can set an update's log fields and test
    # the tracing flag per update; what they read of the floors above is read lazily
    ("tgfast.logs", "tgfast.types"): _TC + " (the update a record is about)",
    ("tgfast.logs", "tgfast.types.update_kinds"): _LAZY + " (an update's kind and chat, "
    "when a record is formatted)",
    ("tgfast.logs", "tgfast.server.supervisor"): _LAZY + " (this worker's id, read once)",
    ("tgfast.tracing", "tgfast"): _LAZY + " (tgfast's version on the tracer)",
    ("tgfast.tracing", "tgfast.client"): _TC + " (the bot whose calls get spans)",
    ("tgfast.tracing", "tgfast.client.hooks"): _TC + " (the ApiCall a span is made of)",
    ("tgfast.tracing", "tgfast.client.bot"): "instrument() times the Bot's decoding of "
    "getUpdates answers when asked: function-level",
    ("tgfast.tracing", "tgfast.dispatcher"): "instrument() wraps the dispatcher's feed "
    "when asked: function-level and TYPE_CHECKING",
    ("tgfast.tracing", "tgfast.types"): _TC + " (the update a span is about)",
    ("tgfast.tracing", "tgfast.types.update_kinds"): _LAZY + " (an update's kind and chat)",
    ("tgfast.tracing", "tgfast.server.webhook"): "instrument() times the webhook decoder "
    "when asked: function-level",
    ("tgfast.tracing", "tgfast.server.intake"): "instrument() times the webhook decoder "
    "when asked: function-level",
    ("tgfast.server.polling", "tgfast.redis.leader"): _TC + " (the leader lock it may hold)",
    ("tgfast.server.runner", "tgfast.redis.leader"): _TC + " (the leader lock it may hold)",
    ("tgfast.server.runner", "tgfast.redis.seen"): "a poller under a Redis leader lock "
    "records seen updates on the lock's Redis, for the next leader",
}
"""(importing module, imported module) -> why it may point upwards."""

REDIS_CLIENTS = {"RespClient", "Script", "wire_for", "connect_redis"}
"""Names of ``tgfast.redis`` that do Redis I/O for their caller: only redis/ uses them."""


@dataclass(frozen=True)
class Import:
    """One import of a tgfast module: where, what, and how (top, fn or tc)."""

    module: str  # the importing module
    target: str  # the imported module, absolute
    names: frozenset[str]
    how: str  # "top", "fn" (inside a function) or "tc" (under TYPE_CHECKING)
    line: int


PYX_IMPORT = re.compile(
    r"^(?P<indent>\s*)(?:from\s+(?P<module>[.\w]+)\s+c?import\s+(?P<names>.+)"
    r"|c?import\s+(?P<plain>.+))$"
)


def absolute(package: Sequence[str], module: str) -> str:
    """``module`` as written in a module of ``package`` (``..redis.x``) made absolute."""
    level = len(module) - len(module.lstrip("."))
    if not level:
        return module
    base = tuple(package[: len(package) - level + 1])
    rest = module[level:]
    return ".".join((*base, rest) if rest else base)


def module_name(root: Path, path: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def sources(root: Path) -> list[Path]:
    return sorted(root.rglob("*.py")) + sorted(root.rglob("*.pyx"))


def _is_type_checking(test: ast.expr) -> bool:
    return "TYPE_CHECKING" in ast.unparse(test)


def imports(root: Path, path: Path) -> Iterator[Import]:
    """Each import in ``path``, with the submodule for ``from package import module``."""
    name = module_name(root, path)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    known = {module_name(root, p) for p in sources(root)}
    source = path.read_text(encoding="utf-8")

    def found(target: str, names: set[str], how: str, line: int) -> Iterator[Import]:
        modules = {sub for sub in names if f"{target}.{sub}" in known}
        if names - modules or not names:  # from .. import types: the module tgfast.types
            yield Import(name, target, frozenset(names - modules), how, line)
        for sub in modules:
            yield Import(name, f"{target}.{sub}", frozenset(), how, line)

    if path.suffix == ".pyx":  # Cython: not Python's grammar; its imports are lines
        for line, text in enumerate(source.splitlines(), 1):
            match = PYX_IMPORT.match(text)
            how = "fn" if match and match["indent"] else "top"
            if match and match["module"]:
                names = {n.strip().split(" ")[0] for n in match["names"].strip("()").split(",")}
                yield from found(absolute(package, match["module"]), names, how, line)
            elif match:
                for plain in match["plain"].split(","):
                    yield Import(name, plain.strip().split(" ")[0], frozenset(), how, line)
        return

    def walk(nodes: list[ast.stmt], how: str) -> Iterator[Import]:
        for node in nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield Import(name, alias.name, frozenset(), how, node.lineno)
            elif isinstance(node, ast.ImportFrom):
                target = absolute(package, "." * node.level + (node.module or ""))
                yield from found(target, {a.name for a in node.names}, how, node.lineno)
            elif isinstance(node, ast.If) and _is_type_checking(node.test):
                yield from walk(node.body, "tc")
                yield from walk(node.orelse, how)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield from walk(node.body, "fn" if how == "top" else how)
            else:
                for field in ("body", "orelse", "finalbody", "handlers"):
                    block = getattr(node, field, None)
                    if isinstance(block, list):
                        inner = [n for n in block if isinstance(n, ast.stmt)]
                        inner += [s for h in block if isinstance(h, ast.ExceptHandler)
                                  for s in h.body]  # fmt: skip
                        yield from walk(inner, how)

    yield from walk(ast.parse(source, str(path)).body, "top")


def floor_of(module: str, floors: Sequence[tuple[str, Sequence[str]]]) -> int | None:
    best: tuple[int, int] | None = None  # (prefix length, floor)
    for index, (_, prefixes) in enumerate(floors):
        for prefix in prefixes:
            if module == prefix or module.startswith(prefix + "."):
                if best is None or len(prefix) > best[0]:
                    best = (len(prefix), index)
    return None if best is None else best[1]


def check(
    root: Path,
    floors: Sequence[tuple[str, Sequence[str]]],
    back_edges: Mapping[tuple[str, str], str],
    shims: Mapping[str, str],
) -> list[str]:
    """Every import against the floors: the problems found, one line each."""
    problems: list[str] = []
    used: set[tuple[str, str]] = set()
    top = root.name
    for path in sources(root):
        module = module_name(root, path)
        if module in shims:
            continue  # aiogram's front door: checked by test_shims_only_re_export
        mine = floor_of(module, floors)
        if mine is None:
            problems.append(f"{module}: on no floor (add it to FLOORS)")
            continue
        for found in imports(root, path):
            target = found.target
            if target != top and not target.startswith(top + "."):
                continue
            where = f"{path.relative_to(root.parent)}:{found.line}"
            if target in shims:
                problems.append(f"{where}: imports aiogram's shim {target}: import the module")
                continue
            theirs = floor_of(target, floors)
            if theirs is None or theirs <= mine:
                continue
            edge = (module, target)
            if edge in back_edges and found.how != "top":
                used.add(edge)
                continue
            problems.append(
                f"{where}: {module} ({floors[mine][0]}) imports {target} ({floors[theirs][0]})"
                + (" at its top" if found.how == "top" else f" ({found.how}) without a reason")
            )
    problems += [f"{a} -> {b}: listed, but no longer imported" for a, b in
                 sorted(set(back_edges) - used)]  # fmt: skip
    return problems


def test_tgfast_keeps_its_floors() -> None:
    problems = check(TGFAST, FLOORS, BACK_EDGES, SHIM_MODULES)
    assert not problems, "\n".join(problems)


def _write(root: Path, files: Mapping[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "pkg"


PLANTED_FLOORS = (("low", ("pkg.low",)), ("high", ("pkg.high", "pkg")))


def test_a_planted_back_edge_fails(tmp_path: Path) -> None:
    root = _write(tmp_path, {
        "pkg/__init__.py": "from . import high\n",
        "pkg/high.py": "from .low import x\n",
        "pkg/low.py": "from .high import y\nx = 1\n",
    })  # fmt: skip
    [problem] = check(root, PLANTED_FLOORS, {}, {})
    assert problem == "pkg/low.py:1: pkg.low (low) imports pkg.high (high) at its top", problem
    # a reason does not excuse a top-level import: it runs at import time
    assert check(root, PLANTED_FLOORS, {("pkg.low", "pkg.high"): "why"}, {})[0] == problem


def test_a_back_edge_inside_a_function_needs_a_reason(tmp_path: Path) -> None:
    root = _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/high.py": "y = 2\n",
        "pkg/low.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from . import high\n\ndef f():\n    from .high import y\n    return y\n",
    })  # fmt: skip
    assert check(root, PLANTED_FLOORS, {}, {}) == [
        "pkg/low.py:3: pkg.low (low) imports pkg.high (high) (tc) without a reason",
        "pkg/low.py:6: pkg.low (low) imports pkg.high (high) (fn) without a reason",
    ]
    assert check(root, PLANTED_FLOORS, {("pkg.low", "pkg.high"): "annotations"}, {}) == []
    # a reason for an import that went away must go too
    stale = {("pkg.low", "pkg.high"): "annotations", ("pkg.high", "pkg"): "gone"}
    assert check(root, PLANTED_FLOORS, stale, {}) == [
        "pkg.high -> pkg: listed, but no longer imported"
    ]


def test_shims_and_unplaced_modules_are_reported(tmp_path: Path) -> None:
    root = _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/high.py": "from .shim import x\n",
        "pkg/shim.py": "from .high import x\n",
        "pkg/stray/__init__.py": "",
    })  # fmt: skip
    floors = (("low", ("pkg.low",)), ("high", ("pkg.high", "pkg")), ("x", ("pkg.stray.x",)))
    problems = check(root, floors, {}, {"pkg.shim": "x"})
    assert problems == [
        "pkg/high.py:1: imports aiogram's shim pkg.shim: import the module",
    ], problems
    assert check(root, (("low", ("pkg.low",)),), {}, {"pkg.shim": "x"}) == [
        "pkg: on no floor (add it to FLOORS)",
        "pkg.high: on no floor (add it to FLOORS)",
        "pkg.stray: on no floor (add it to FLOORS)",
    ]


def test_the_scan_sees_what_it_must() -> None:
    names = {module_name(TGFAST, p) for p in sources(TGFAST)}
    assert {"tgfast.cli", "tgfast.server.runner", "tgfast._speedups._routing"} <= names
    cli = {i.target: i for i in imports(TGFAST, TGFAST / "cli.py")}
    assert cli["tgfast.redis"].how == "fn" and cli["tgfast.fsm.storage.base"].how == "top"
    assert absolute(("tgfast", "fsm", "storage"), "...redis.storage") == "tgfast.redis.storage"
    assert absolute(("tgfast", "fsm", "storage"), ".base") == "tgfast.fsm.storage.base"
    routing = {i.target for i in imports(TGFAST, TGFAST / "_speedups" / "_routing.pyx")}
    assert {"cpython.dict", "tgfast.dispatcher.event", "functools", "tgfast.decoding"} <= routing
    init = {i.target for i in imports(TGFAST, TGFAST / "__init__.py")}
    assert {"tgfast.methods", "tgfast.types", "tgfast.client"} <= init
    assert "tgfast" not in init  # from . import methods: the submodule, not the package
    assert {floor_of(m, FLOORS) for m in ("tgfast.types._types", "tgfast.fsm.scene")} == {1, 4}
    assert floor_of("tgfast.redis.storage", FLOORS) == floor_of("tgfast.redis", FLOORS) == 6


def talks_to_redis(found: Import) -> bool:
    if found.target == "redis" or found.target.startswith("redis."):
        return True  # redis-py
    if found.target in ("tgfast.redis.resp_client", "tgfast.redis.connect"):
        return True
    return found.target.startswith("tgfast.redis") and bool(found.names & REDIS_CLIENTS)


def test_only_tgfast_redis_talks_to_redis() -> None:
    """Other modules may use the package's parts (``RedisShared``...), not its clients."""
    offending = [
        f"{module_name(TGFAST, path)}:{found.line} {found.target} {sorted(found.names)}"
        for path in sources(TGFAST)
        if not module_name(TGFAST, path).startswith("tgfast.redis")
        for found in imports(TGFAST, path)
        if talks_to_redis(found)
    ]
    assert not offending, f"Redis I/O belongs in tgfast/redis/: {offending}"
    assert talks_to_redis(Import("m", "redis.asyncio", frozenset({"Redis"}), "top", 1))
    assert talks_to_redis(Import("m", "tgfast.redis", frozenset({"RespClient"}), "fn", 1))
    assert not talks_to_redis(Import("m", "tgfast.redis", frozenset({"RedisShared"}), "fn", 1))


def _re_exports_only(tree: ast.Module) -> list[str]:
    """The statements of a module that are not a re-export: imports, ``__all__``,
    aliases (``A = B``), ``__getattr__ = absent(...)`` with its table of reasons, and a
    package's ``__path__``."""
    extra = []
    for i, node in enumerate(tree.body):
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])  # fmt: skip
        names = [getattr(t, "id", None) for t in targets]
        value = getattr(node, "value", None)
        if names and all(names):
            if names == ["__all__"] or isinstance(value, (ast.Name, ast.Attribute)):
                continue
            if names == ["__getattr__"] and isinstance(value, ast.Call):
                if getattr(value.func, "id", None) == "absent":
                    continue
            if names == ["__path__"]:
                continue
            if isinstance(value, ast.Dict) and all(  # the reasons absent() gives
                isinstance(v, ast.Constant) and isinstance(v.value, str)
                for v in (*value.keys, *value.values)
            ):
                continue
        extra.append(ast.unparse(node).splitlines()[0])
    return extra


@pytest.mark.parametrize("shim", sorted(SHIM_MODULES))
def test_shims_only_re_export(shim: str) -> None:
    path = TGFAST.parent.joinpath(*shim.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    extra = _re_exports_only(ast.parse(path.read_text(encoding="utf-8")))
    assert not extra, f"{shim} is aiogram's path: it only re-exports, yet holds {extra}"


def test_the_re_export_check_sees_code() -> None:
    assert _re_exports_only(ast.parse('"""doc"""\nfrom a import b\nc = b\n__all__ = ["c"]')) == []
    assert _re_exports_only(ast.parse("import re\nX = re.compile('x')\ndef f(): pass")) == [
        "X = re.compile('x')",
        "def f():",
    ]
