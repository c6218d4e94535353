"""The shape of a method description: what a Bot API method takes and returns."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["MethodDescription", "ParamDescription"]


class ParamDescription(NamedTuple):
    """One parameter: its Bot API name, Python name, type, whether it is required."""

    name: str
    attr: str
    type: str
    required: bool
    description: str


class MethodDescription(NamedTuple):
    """One Bot API method; types use the language of ``tgfast.types.base``.

    ``attr`` is its name on ``Bot`` (``send_message``).
    """

    name: str
    attr: str
    returns: str
    href: str
    description: str
    params: tuple[ParamDescription, ...]
