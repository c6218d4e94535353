"""Typing stub for the compiled routing table; its behaviour is that of ``_routing_py``."""

from collections.abc import Callable
from typing import Any

__all__ = ["Call", "Entry", "Node", "command_key", "propagate"]

class Call:
    fn: Callable[..., Any]
    is_async: bool
    names: tuple[str, ...]
    takes_all: bool
    def __init__(
        self, fn: Callable[..., Any], is_async: bool, names: tuple[str, ...], takes_all: bool
    ) -> None: ...

class Entry(Call):
    filters: tuple[Call, ...]
    inner: tuple[Any, ...]
    def __init__(
        self,
        fn: Callable[..., Any],
        is_async: bool,
        names: tuple[str, ...],
        takes_all: bool,
        filters: tuple[Call, ...],
        inner: tuple[Any, ...],
    ) -> None: ...

class Node:
    filters: tuple[Call, ...]
    outer: tuple[Any, ...]
    plain: tuple[Entry, ...]
    index: dict[str, tuple[Entry, ...]] | None
    prefixes: str
    children: tuple[Node, ...]
    def __init__(
        self,
        filters: tuple[Call, ...],
        outer: tuple[Any, ...],
        plain: tuple[Entry, ...],
        index: dict[str, tuple[Entry, ...]] | None,
        prefixes: str,
        children: tuple[Node, ...],
    ) -> None: ...

def command_key(text: str) -> str: ...
async def propagate(node: Node, event: Any, data: dict[str, Any]) -> Any: ...
