"""aiogram's path to the orders in which a scene's handlers are tried: a scene takes one
as ``class Quiz(Scene, state="quiz", attrs_resolver=inspect_members_resolver)``. They
live with the scenes, in ``tgfast.fsm.scene``."""

from __future__ import annotations

from ..fsm.scene import AttrsResolver as ClassAttrsResolver
from ..fsm.scene import (
    get_reversed_mro_unique_attrs_resolver,
    get_sorted_mro_attrs_resolver,
    inspect_members_resolver,
)

__all__ = [
    "ClassAttrsResolver",
    "get_reversed_mro_unique_attrs_resolver",
    "get_sorted_mro_attrs_resolver",
    "inspect_members_resolver",
]
