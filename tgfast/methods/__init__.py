"""Machine-readable descriptions of every Bot API method, generated from the spec."""

from __future__ import annotations

from .description import MethodDescription, ParamDescription
from .descriptions import METHODS

__all__ = ["METHODS", "MethodDescription", "ParamDescription"]
