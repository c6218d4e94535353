"""``State`` and ``StatesGroup``: named steps of a conversation, usable as filters.

A state is stored as a plain string, ``"<group path>:<name>"`` (``"Form:name"``,
``"Form.Address:city"`` for a nested group), so any storage keeps it and any process
reads it back. Each ``State`` is also a filter taking ``(event, raw_state)``: the
dispatcher's FSM middleware supplies ``raw_state``, the current state string or None.
A ``StatesGroup`` class is a filter meaning "any state of this group" through the
``__tgfast_filter__`` hook of its metaclass (calling the class would construct it).

``State("*")`` (``any_state``) passes whatever the state, none included;
``State()`` outside a group (``default_state``) passes only when there is no state.
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

    __slots__ = ("_any", "_group", "_name", "_state")
    __filter_params__: ClassVar[tuple[str, ...]] = ("raw_state",)

    _group: StatesGroupMeta | None

    def __init__(self, state: str | None = None) -> None:
        if state is not None and not isinstance(state, str):
            raise TypeError(f"a state name is a str or None, not {type(state).__name__}")
        if state == "":
            raise ValueError("a state name must not be empty")
        self._name = state
        self._group = None
        self._state = state
        self._any = state == ANY_STATE

    def __set_name__(self, owner: type, name: str) -> None:
        if self._name is None:
            self._name = name

    def _bind(self, group: StatesGroupMeta) -> None:
        """Called by the group's metaclass, again when the group is nested in another."""
        self._group = group
        if not self._any:
            self._state = f"{group.__full_group_name__}:{self._name}"

    @property
    def state(self) -> str | None:
        """The string stored for this state (None for ``default_state``)."""
        return self._state

    @property
    def group(self) -> StatesGroupMeta | None:
        """The ``StatesGroup`` this state belongs to (None outside a group)."""
        return self._group

    def __call__(self, event: Any, raw_state: str | None = None) -> bool:
        return self._any or raw_state == self._state

    def __eq__(self, other: object) -> bool:
        if isinstance(other, State):
            return self._state == other._state
        if isinstance(other, str) or other is None:
            return self._state == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._state)

    def __str__(self) -> str:
        return str(self._state)

    def __repr__(self) -> str:
        return f"<State {self._state!r}>"


class StatesGroupMeta(type):
    """Collects a group's states and nested groups when the class is created."""

    __parent__: StatesGroupMeta | None
    __children__: tuple[StatesGroupMeta, ...]
    __states__: tuple[State, ...]
    __all_states__: tuple[State, ...]
    __all_states_names__: frozenset[str]
    __full_group_name__: str

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
        cls.__all_states_names__ = frozenset(s.state for s in cls.__all_states__ if s.state)

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
    nested groups' included; ``Form`` itself is a filter for any of them.
    """

    def __init__(self) -> None:
        raise TypeError(
            f"{type(self).__name__} is a group of states, not something to instantiate; "
            f"use the class itself (as a filter: @router.message({type(self).__name__}))"
        )


any_state = State(ANY_STATE)
"""Matches whatever the state is, including no state."""

default_state = State()
"""Matches only when there is no state (the same as ``StateFilter(None)``)."""
