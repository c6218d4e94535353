"""Only ``tgfast/redis/`` talks to Redis: no other module of tgfast imports redis-py or
the RESP client. Other modules may use the package's parts (``RedisShared``,
``RedisSeenUpdates``, ``RedisLeaderLock``...), which do their own I/O.

One exception, by name: aiogram's path ``tgfast/fsm/storage/redis.py`` is a re-export
shim of ``tgfast.redis.storage.RedisStorage`` (aiogram users import it from there); the
test checks it holds nothing but its docstring, imports from ``tgfast.redis`` (and
from its sibling ``base``: the key builders aiogram users pass) and ``__all__``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

# the source tree (the .pyx sources are not installed), whichever build is under test
TGFAST = Path(__file__).resolve().parents[1] / "tgfast"
# a property of the sources, not of the build: once
pytestmark = pytest.mark.once
SHIMS = {
    "fsm/storage/redis.py": "aiogram's path to RedisStorage (tgfast.fsm.storage.redis)",
}
FORBIDDEN_NAMES = {"RespClient", "Script", "wire_for", "connect_redis"}
PYX_IMPORT = re.compile(
    r"^\s*(?:from\s+(?P<module>[.\w]+)\s+c?import\s+(?P<names>.+)|c?import\s+(?P<plain>.+))$"
)


def _absolute(package: tuple[str, ...], module: str) -> str:
    """``module`` as written in a file of ``package`` (``..redis.x``) made absolute."""
    level = len(module) - len(module.lstrip("."))
    if not level:
        return module
    base = package[: len(package) - level + 1]
    rest = module[level:]
    return ".".join((*base, rest) if rest else base)


def imports(path: Path) -> list[tuple[str, set[str]]]:
    """Each import of ``path`` as (absolute module, names taken from it)."""
    package = path.relative_to(TGFAST.parent).with_suffix("").parts[:-1]
    if path.name == "__init__.py":
        package = path.relative_to(TGFAST.parent).parts[:-1]
    found: list[tuple[str, set[str]]] = []
    source = path.read_text(encoding="utf-8")
    if path.suffix == ".pyx":  # Cython: not Python's grammar; its imports are lines
        for line in source.splitlines():
            match = PYX_IMPORT.match(line)
            if match and match["module"]:
                names = {n.strip().split(" ")[0] for n in match["names"].strip("()").split(",")}
                found.append((_absolute(package, match["module"]), names))
            elif match:
                found += [(m.strip().split(" ")[0], set()) for m in match["plain"].split(",")]
        return found
    for node in ast.walk(ast.parse(source, str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, set()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(package, "." * node.level + (node.module or ""))
            found.append((module, {alias.name for alias in node.names}))
    return found


def talks_to_redis(module: str, names: set[str]) -> bool:
    if module == "redis" or module.startswith("redis."):
        return True  # redis-py
    if module == "tgfast.redis.resp_client" or module == "tgfast.redis.connect":
        return True
    return module.startswith("tgfast.redis") and bool(names & FORBIDDEN_NAMES)


def modules() -> list[Path]:
    paths = sorted(TGFAST.rglob("*.py")) + sorted(TGFAST.rglob("*.pyx"))
    return [p for p in paths if "redis" not in p.relative_to(TGFAST).parts[:1]]


def test_the_scan_sees_what_it_must() -> None:
    names = {p.relative_to(TGFAST).as_posix() for p in modules()}
    assert {"cli.py", "server/runner.py", "fsm/storage/redis.py"} <= names
    assert not any(name.startswith("redis/") for name in names)
    # the resolver: a relative import is read relative to its own package
    cli = dict(imports(TGFAST / "cli.py"))
    assert "tgfast.redis" in cli and "tgfast.fsm.storage.base" in cli
    assert _absolute(("tgfast", "fsm", "storage"), "...redis.storage") == "tgfast.redis.storage"
    assert _absolute(("tgfast", "fsm", "storage"), ".base") == "tgfast.fsm.storage.base"
    routing = {m for m, _ in imports(TGFAST / "_speedups" / "_routing.pyx")}
    assert {"cpython.dict", "tgfast.dispatcher.event", "functools", "tgfast.decoding"} <= routing, (
        routing
    )
    assert talks_to_redis("redis.asyncio", {"Redis"})
    assert talks_to_redis("tgfast.redis", {"RespClient"})
    assert not talks_to_redis("tgfast.redis", {"RedisShared"})


@pytest.mark.parametrize("path", modules(), ids=lambda p: p.relative_to(TGFAST).as_posix())
def test_no_module_outside_tgfast_redis_talks_to_redis(path: Path) -> None:
    if path.relative_to(TGFAST).as_posix() in SHIMS and path.suffix == ".py":
        return  # checked by the shim test
    offending = [(m, sorted(n)) for m, n in imports(path) if talks_to_redis(m, n)]
    assert not offending, f"{path}: Redis I/O belongs in tgfast/redis/: {offending}"


@pytest.mark.parametrize("shim", sorted(SHIMS))
def test_shims_only_re_export(shim: str) -> None:
    tree = ast.parse((TGFAST / shim).read_text(encoding="utf-8"))
    for i, node in enumerate(tree.body):
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        if (
            isinstance(node, ast.ImportFrom)
            and node.level
            and (node.module or "").startswith("redis")
        ):
            continue  # from ...redis.x import Name (tgfast.redis, relative)
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module == "base":
            continue  # from .base import DefaultKeyBuilder (the storage's key names)
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [
            "__all__"
        ]:
            continue
        raise AssertionError(f"{shim} must only re-export from tgfast.redis: {ast.dump(node)}")
    for module, _ in imports(TGFAST / shim):
        assert module in ("__future__", "tgfast.fsm.storage.base") or module.startswith(
            "tgfast.redis"
        ), module
