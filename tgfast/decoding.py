"""Decoding Bot API JSON into the generated types, compiled when available.

The compiled ``_speedups._decode`` is used unless ``TGFAST_NO_EXTENSIONS`` is set
or the package was built without extensions; ``SPEEDUPS`` says which one is live.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._speedups import NO_EXTENSIONS

__all__ = [
    "DEFAULT_MAX_SIZE",
    "SPEEDUPS",
    "convert",
    "decode",
    "decode_update",
    "decode_updates",
]

if TYPE_CHECKING or NO_EXTENSIONS:
    from ._speedups import _decode_py as _impl
else:
    try:
        from ._speedups import _decode as _impl
    except ImportError:  # built with TGFAST_NO_EXTENSIONS: no compiled module shipped
        from ._speedups import _decode_py as _impl

SPEEDUPS: bool = _impl.__name__.endswith("._decode")
DEFAULT_MAX_SIZE = _impl.DEFAULT_MAX_SIZE
convert = _impl.convert
decode = _impl.decode
decode_update = _impl.decode_update
decode_updates = _impl.decode_updates
