"""The routing runtime in use: compiled ``_speedups._routing`` or its pure twin."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._speedups import NO_EXTENSIONS

if TYPE_CHECKING or NO_EXTENSIONS:
    from .._speedups import _routing_py as impl
else:
    try:
        from .._speedups import _routing as impl
    except ImportError:  # built with TGFAST_NO_EXTENSIONS: no compiled module shipped
        from .._speedups import _routing_py as impl

__all__ = ["SPEEDUPS", "impl"]

SPEEDUPS: bool = impl.__name__.endswith("._routing")
