"""The routing runtimes: compiled ``_speedups._routing`` and its pure twin.

``impl`` is the one ``tgfast._speedups`` chose for all compiled modules at once: every
``Dispatcher`` routes with it unless built with ``routing=`` (the tests run both
side by side). ``RoutingModule`` is what a routing runtime provides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from .._speedups import SPEEDUPS, load
from .._speedups import _routing_py as pure

if TYPE_CHECKING:
    impl = pure
else:
    impl = load("_routing")

__all__ = ["SPEEDUPS", "RoutingModule", "impl", "pure"]


class RoutingModule(Protocol):
    """A routing runtime: ``_routing`` or ``_routing_py`` (typed as the twin, whose
    classes the compiled module's stub mirrors)."""

    @property
    def Call(self) -> type[pure.Call]: ...
    @property
    def Entry(self) -> type[pure.Entry]: ...
    @property
    def Node(self) -> type[pure.Node]: ...
    @property
    def Kind(self) -> type[pure.Kind]: ...
    @property
    def Table(self) -> type[pure.Table]: ...
    @property
    def DispatchCore(self) -> type[pure.DispatchCore]: ...
