"""``StateFilter``: passes when the current FSM state is one of those given."""

from __future__ import annotations

from typing import Any, ClassVar

from ..filters.base import Filter, sync_twin
from .state import ANY_STATE, State, StatesGroup, StatesGroupMeta

__all__ = ["StateFilter"]


class StateFilter(Filter):
    """``StateFilter(Form.name, Other, "Legacy:step", None)``: any of these states.

    Each argument is a ``State``, a ``StatesGroup`` class or instance (any of its
    states, nested groups' included), a state string, or ``None`` for "no state"; ``"*"`` or
    ``any_state`` passes whatever the state. The accepted strings are collected once,
    so a check is one set lookup on the ``raw_state`` the FSM middleware supplies.
    """

    __slots__ = ("_any", "_names", "states")
    __filter_params__: ClassVar[tuple[str, ...]] = ("raw_state",)

    def __init__(self, *states: State | StatesGroupMeta | StatesGroup | str | None) -> None:
        if not states:  # ValueError, as aiogram raises
            raise ValueError("StateFilter needs at least one state (None means 'no state')")
        names: set[str | None] = set()
        for item in states:
            if isinstance(item, StatesGroup):  # an instance stands for its group, as in aiogram
                item = type(item)
            if isinstance(item, State):
                names.add(item.state)
            elif isinstance(item, StatesGroupMeta):
                names.update(item.__all_states_names__)
            elif item is None or isinstance(item, str):
                names.add(item)
            else:
                raise TypeError(
                    "StateFilter takes State, StatesGroup classes, state strings or None, "
                    f"not {item!r}"
                )
        self.states = states
        self._any = ANY_STATE in names
        self._names = frozenset(names)

    def check(self, event: Any, /, raw_state: str | None = None) -> bool:
        return self._any or raw_state in self._names

    @sync_twin
    async def __call__(self, obj: Any, raw_state: str | None = None) -> bool:
        return self._any or raw_state in self._names

    def __repr__(self) -> str:
        return f"StateFilter({', '.join(map(_label, self.states))})"


def _label(item: object) -> str:
    if isinstance(item, StatesGroupMeta):
        return item.__full_group_name__
    return repr(item.state if isinstance(item, State) else item)
