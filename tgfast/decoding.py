"""Decoding Bot API JSON into the generated types, compiled when available.

The compiled ``_speedups._decode`` or its pure twin, as ``tgfast._speedups`` decides
for all compiled modules at once; ``SPEEDUPS`` says which one is live.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._speedups import SPEEDUPS, load

__all__ = [
    "DEFAULT_MAX_SIZE",
    "SPEEDUPS",
    "convert",
    "decode",
    "decode_update",
    "decode_updates",
]

if TYPE_CHECKING:
    from ._speedups import _decode_py as _impl
else:
    _impl = load("_decode")

DEFAULT_MAX_SIZE = _impl.DEFAULT_MAX_SIZE
convert = _impl.convert
decode = _impl.decode
decode_update = _impl.decode_update
decode_updates = _impl.decode_updates
