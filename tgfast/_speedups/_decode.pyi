"""Typing stub for the compiled decoder; its behaviour is that of ``_decode_py``."""

from typing import Any, TypeVar

from ..types import Update

__all__ = ["DEFAULT_MAX_SIZE", "convert", "decode", "decode_update", "decode_updates"]

_T = TypeVar("_T")
_Input = bytes | bytearray | memoryview | str

DEFAULT_MAX_SIZE: int

def decode_update(data: _Input, *, max_size: int | None = ...) -> Update: ...
def decode_updates(data: _Input, *, max_size: int | None = ...) -> list[Update]: ...
def decode(tp: type[_T] | Any, data: _Input, *, max_size: int | None = ...) -> _T: ...
def convert(tp: type[_T] | Any, obj: Any) -> _T: ...
