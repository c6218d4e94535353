"""Typing stub for the compiled routing table; its behaviour is that of ``_routing_py``.

Checked against the compiled module by ``tests/test_stubs.py`` (``mypy.stubtest``).
Every class is an extension type (``@disjoint_base``, PEP 800); ``DispatchCore``
calls ``freeze()``, which ``Dispatcher`` provides.
"""

from collections.abc import Callable, Coroutine
from contextvars import ContextVar
from typing import Any, final

from typing_extensions import disjoint_base

__all__ = ["Call", "DispatchCore", "Entry", "Kind", "Node", "Table", "command_head"]

@disjoint_base
class Call:
    fn: Callable[..., Any]
    is_async: bool
    names: tuple[str, ...]
    takes_all: bool
    def __init__(
        self, fn: Callable[..., Any], is_async: bool, names: tuple[str, ...], takes_all: bool
    ) -> None: ...

@disjoint_base
class Entry(Call):
    filters: tuple[Call, ...]
    inner: tuple[Any, ...]
    command: Any
    inject_command: bool
    cmd_keys: frozenset[str]
    sync_filters: bool
    handler: Any
    router: Any
    wants_router: bool
    def __init__(
        self,
        fn: Callable[..., Any],
        is_async: bool,
        names: tuple[str, ...],
        takes_all: bool,
        filters: tuple[Call, ...],
        inner: tuple[Any, ...],
        command: Any = None,
        inject_command: bool = False,
        handler: Any = None,
        router: Any = None,
        wants_router: bool = False,
    ) -> None: ...

@final
class Node:
    filters: tuple[Call, ...]
    outer: tuple[Any, ...]
    items: tuple[Entry | Node, ...]
    index: dict[str, tuple[Entry | Node, ...]] | None
    prefixes: str
    event_type: type | None
    router: Any
    wants_router: bool
    def __init__(
        self,
        filters: tuple[Call, ...],
        outer: tuple[Any, ...],
        items: tuple[Entry | Node, ...],
        index: dict[str, tuple[Entry | Node, ...]] | None,
        prefixes: str,
        event_type: type | None = None,
        router: Any = None,
        wants_router: bool = False,
    ) -> None: ...

@disjoint_base
class Kind:
    name: str
    node: Node
    user: Callable[[Any], Any] | None
    chat: Callable[[Any], Any] | None
    event_type: type
    bindable: bool
    needs_data: bool
    def __init__(
        self,
        name: str,
        node: Node,
        user: Callable[[Any], Any] | None,
        chat: Callable[[Any], Any] | None,
        event_type: type,
        needs_data: bool,
    ) -> None: ...

@disjoint_base
class Table:
    kinds: tuple[Kind, ...]
    errors: Node | None
    update_outer: tuple[Any, ...]
    workflow_data: dict[str, Any]
    current_bot: ContextVar[Any]
    dispatcher: Any
    updates: Node | None
    def __init__(
        self,
        kinds: tuple[Kind, ...],
        errors: Node | None,
        update_outer: tuple[Any, ...],
        workflow_data: dict[str, Any],
        current_bot: ContextVar[Any],
        dispatcher: Any = None,
        updates: Node | None = None,
    ) -> None: ...
    def data(
        self, kind: Kind, bot: Any, update: Any, event: Any, kwargs: dict[str, Any]
    ) -> dict[str, Any]: ...

def command_head(text: str) -> tuple[str, bool]: ...

@disjoint_base
class DispatchCore:
    _table: Table | None
    def feed_update(self, bot: Any, update: Any, **kwargs: Any) -> Coroutine[Any, Any, Any]: ...
    def feed_raw_update(
        self, bot: Any, update: bytes | str | dict[str, Any], **kwargs: Any
    ) -> Coroutine[Any, Any, Any]: ...
