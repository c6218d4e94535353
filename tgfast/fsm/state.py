"""``State`` and ``StatesGroup``: named steps of a conversation, usable as filters.

A state is stored as a plain string, ``"<group path>:<name>"`` (``"Form:name"``,
``"Form.Address:city"`` for a nested group), so any storage keeps it and any process
reads it back. Each ``State`` is also a filter taking ``(event, raw_state)``: the
dispatcher's FSM middleware supplies ``raw_state``, the current state string or None.
A ``StatesGroup`` class is a filter meaning "any state of this group" through the
``__tgfast_filter__`` hook of its metaclass (calling the class would construct it).

``State("*")`` (``any_state``) passes whatever the state, none included;
``State()`` outside a group (``default_state``) passes only when there is no state.
A named state outside a group is stored as aiogram stores it, ``"@:<name>"``, or
``"<group_name>:<name>"`` with ``State(name, group_name=...)``, so records an aiogram
bot left in its storage are read back as the same states.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..filters.base import Filter

__all__ = ["ANY_STATE", "State", "StatesGroup", "StatesGroupMeta", "any_state", "default_state"]

ANY_STATE = "*"
"""The state string that matches every state, and no state."""


class State(Filter):
    """One step of a conversation: ``name = State()`` inside a ``StatesGroup``.

    ``state`` is the string kept in storage. ``State("label")`` names the step
    explicitly (the group path is still prefixed); ``State("*")`` matches any state.
    As a filter it passes when the current state is this one.
    """

    __slots__ = ("_any", "_group", "_group_name", "_state", "_stored")
    __filter_params__: ClassVar[tuple[str, ...]] = ("raw_state",)

    _group: StatesGroupMeta | None

    def __init__(self, state: str | None = None, group_name: str | None = None) -> None:
        if state is not None and not isinstance(state, str):
            raise TypeError(f"a state name is a str or None, not {type(state).__name__}")
        if state == "":
            raise ValueError("a state name must not be empty")
        if group_name is not None and (not isinstance(group_name, str) or not group_name):
            raise ValueError(f"group_name must be a non-empty str, not {group_name!r}")
        self._state = state
        self._group = None
        self._group_name = group_name
        self._any = state == ANY_STATE
        self._stored = self._label(None)

    def _label(self, group: StatesGroupMeta | None) -> str | None:
        """The stored string: ``group_name`` wins, then the group's path, then ``@``."""
        name = self._state
        if name is None or self._any:
            return name
        if self._group_name is not None:
            return f"{self._group_name}:{name}"
        return f"{'@' if group is None else group.__full_group_name__}:{name}"

    def __set_name__(self, owner: type, name: str) -> None:
        if not isinstance(owner, StatesGroupMeta):
            raise ValueError(f"{owner.__name__}.{name}: a State belongs in a StatesGroup subclass")
        if self._state is None:
            self._state = name

    def _bind(self, group: StatesGroupMeta) -> None:
        """Called by the group's metaclass, again when the group is nested in another."""
        self._group = group
        self._stored = self._label(group)

    @property
    def state(self) -> str | None:
        """The string stored for this state (None for ``default_state``)."""
        return self._stored

    @property
    def group(self) -> StatesGroupMeta:
        """The ``StatesGroup`` this state belongs to (``RuntimeError`` outside one, as
        in aiogram)."""
        if self._group is None:
            raise RuntimeError(f"{self!r} is not in any StatesGroup")
        return self._group

    def __call__(self, event: Any, raw_state: str | None = None) -> bool:
        return self._any or raw_state == self._stored

    def __eq__(self, other: object) -> bool:
        if isinstance(other, State):
            return self._stored == other._stored
        if isinstance(other, str) or other is None:
            return self._stored == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._stored)

    def __repr__(self) -> str:
        return f"<State '{self._stored or ''}'>"  # aiogram's str() and repr()

    __str__ = __repr__


class StatesGroupMeta(type):
    """Collects a group's states and nested groups when the class is created."""

    __parent__: StatesGroupMeta | None
    __children__: tuple[StatesGroupMeta, ...]
    __states__: tuple[State, ...]
    __all_states__: tuple[State, ...]
    __all_states_names__: tuple[str, ...]
    __full_group_name__: str
    __childs__: tuple[StatesGroupMeta, ...]  # aiogram's names, beside tgfast's
    __state_names__: tuple[str, ...]
    __all_childs__: tuple[StatesGroupMeta, ...]

    def __new__(
        mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any], **kwargs: Any
    ) -> StatesGroupMeta:
        cls = super().__new__(mcs, name, bases, namespace, **kwargs)
        states: list[State] = []
        children: list[StatesGroupMeta] = []
        for attr, value in namespace.items():
            if isinstance(value, State):
                if value._any:
                    raise ValueError(f"{name}.{attr}: State('*') matches any state; "
                                     "it cannot be a step of a group")  # fmt: skip
                if value._group is not None:
                    raise ValueError(f"{name}.{attr}: this State already belongs to "
                                     f"{value._group.__full_group_name__}")  # fmt: skip
                states.append(value)
            elif isinstance(value, StatesGroupMeta):
                children.append(value)
        cls.__parent__ = None
        cls.__states__ = tuple(states)
        cls.__children__ = tuple(children)
        cls._rebind(None)
        for child in children:
            child._rebind(cls)
        return cls

    def _rebind(cls, parent: StatesGroupMeta | None) -> None:
        """Name the group after its parents, then its states and nested groups."""
        cls.__parent__ = parent
        prefix = "" if parent is None else parent.__full_group_name__ + "."
        cls.__full_group_name__ = prefix + cls.__name__
        for state in cls.__states__:
            state._bind(cls)
        for child in cls.__children__:
            child._rebind(cls)
        cls.__all_states__ = cls.__states__ + tuple(
            s for child in cls.__children__ for s in child.__all_states__
        )
        cls.__all_states_names__ = tuple(s.state for s in cls.__all_states__ if s.state)
        cls.__childs__ = cls.__children__
        cls.__state_names__ = tuple(s.state for s in cls.__states__ if s.state)
        cls.__all_childs__ = cls.__children__ + tuple(
            g for child in cls.__children__ for g in child.__all_childs__
        )

    def __contains__(cls, item: object) -> bool:
        """``Form.name in Form``, ``"Form:name" in Form``, ``Form.Sub in Form``."""
        if isinstance(item, State):
            return item.state in cls.__all_states_names__
        if isinstance(item, str):
            return item in cls.__all_states_names__
        if isinstance(item, StatesGroupMeta):
            return item is not cls and any(
                item is child or item in child for child in cls.__children__
            )
        return False

    def __str__(cls) -> str:
        return f"<StatesGroup '{cls.__full_group_name__}'>"

    def __iter__(cls) -> Any:
        """The group's states, nested groups' included, in declaration order."""
        return iter(cls.__all_states__)

    def __tgfast_filter__(cls) -> Any:
        """As a filter: passes when the current state is any state of this group."""
        from .filter import StateFilter

        return StateFilter(cls)


class StatesGroup(metaclass=StatesGroupMeta):
    """Base of a group of states::

        class Form(StatesGroup):
            name = State()
            age = State()

    ``Form.name.state == "Form:name"``; ``Form.__all_states__`` lists every state,
    nested groups' included; ``Form`` itself is a filter for any of them, and so is an
    instance, ``Form()`` (aiogram's spelling).
    """

    @classmethod
    def get_root(cls) -> type[StatesGroup]:
        """The outermost group this one is nested in (itself when it is not nested)."""
        root: StatesGroupMeta = cls
        while root.__parent__ is not None:
            root = root.__parent__
        return root  # type: ignore[return-value]

    def __call__(self, event: Any, raw_state: str | None = None) -> bool:
        return raw_state in type(self).__all_states_names__

    def __str__(self) -> str:
        return f"StatesGroup {type(self).__full_group_name__}"


any_state = State(ANY_STATE)
"""Matches whatever the state is, including no state."""

default_state = State()
"""Matches only when there is no state (the same as ``StateFilter(None)``)."""
