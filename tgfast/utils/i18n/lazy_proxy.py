"""``LazyProxy``: a value computed each time it is used, not when it is written.

``__("Menu")`` is written at import time, when no user and so no locale is known; the
proxy calls ``gettext`` again whenever it is compared, formatted or turned into a
string, so ``F.text == __("Menu")`` compares with the text in the locale of the update
being filtered. aiogram uses Babel's ``babel.support.LazyProxy`` for this; tgfast has
its own small one so that Babel is needed only to extract and compile catalogues.

Like Babel's, the proxy is not hashable (its value changes with the locale): put it
in a list or tuple, not a set or a dict key.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["LazyProxy"]


class LazyProxy:
    """Stands for ``func(*args, **kwargs)``, called on each use (once, with
    ``enable_cache=True``: Babel's default, which aiogram turns off)."""

    __slots__ = ("_args", "_cached", "_func", "_is_cache_enabled", "_kwargs")

    def __init__(
        self, func: Callable[..., Any], *args: Any, enable_cache: bool = True, **kwargs: Any
    ) -> None:
        self._func = func
        self._args = args
        self._kwargs = kwargs
        self._is_cache_enabled = enable_cache
        self._cached: Any = _UNSET

    @property
    def value(self) -> Any:
        """What the proxy stands for now."""
        if self._cached is not _UNSET:
            return self._cached
        value = self._func(*self._args, **self._kwargs)
        if self._is_cache_enabled:
            self._cached = value
        return value

    def __str__(self) -> str:
        return str(self.value)

    def __repr__(self) -> str:
        # never evaluates: a filter's repr is made at import, outside any i18n context
        shown = [repr(a) for a in self._args]
        shown += [f"{k}={v!r}" for k, v in self._kwargs.items() if v is not None]
        name = getattr(self._func, "__name__", repr(self._func))
        return f"LazyProxy({name}, {', '.join(shown)})"

    # ``"Menu" == proxy`` reaches these too (str's own gives NotImplemented); the result
    # is the value's, not forced to bool: ``__("Menu") == F.text`` is a magic filter
    def __eq__(self, other: object) -> Any:
        return self.value == other

    def __ne__(self, other: object) -> Any:
        return self.value != other

    def __lt__(self, other: object) -> Any:
        return self.value < other

    def __le__(self, other: object) -> Any:
        return self.value <= other

    def __gt__(self, other: object) -> Any:
        return self.value > other

    def __ge__(self, other: object) -> Any:
        return self.value >= other

    __hash__ = None  # type: ignore[assignment]

    def __bool__(self) -> bool:
        return bool(self.value)

    def __len__(self) -> int:
        return len(self.value)

    def __contains__(self, item: object) -> bool:
        return item in self.value

    def __iter__(self) -> Iterator[Any]:
        return iter(self.value)

    def __getitem__(self, key: Any) -> Any:
        return self.value[key]

    def __add__(self, other: Any) -> Any:
        return self.value + other

    def __radd__(self, other: Any) -> Any:
        return other + self.value

    def __mod__(self, other: Any) -> Any:
        return self.value % other

    def __rmod__(self, other: Any) -> Any:
        return other % self.value

    def __mul__(self, other: Any) -> Any:
        return self.value * other

    def __rmul__(self, other: Any) -> Any:
        return other * self.value

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.value(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if name in LazyProxy.__slots__:  # not set yet (copy, unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.value, name)  # .format(...), .upper(), ...

    def __dir__(self) -> list[str]:
        return dir(self.value)

    def __copy__(self) -> LazyProxy:
        return LazyProxy(
            self._func, *self._args, enable_cache=self._is_cache_enabled, **self._kwargs
        )

    def __deepcopy__(self, memo: dict[int, Any]) -> LazyProxy:
        return LazyProxy(
            self._func,
            *copy.deepcopy(self._args, memo),
            enable_cache=self._is_cache_enabled,
            **copy.deepcopy(self._kwargs, memo),
        )


_UNSET: Any = object()
